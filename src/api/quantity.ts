// resource.Quantity as k8s.io/apimachinery v0.26 decodes and encodes it (api/resource/quantity.go):
// ParseQuantity's grammar and errors, and the canonical string the server stores and answers
// (`0.5` → `500m`, `1.5Gi` → `1536Mi`, `1000m` → `1`), including the case where Go keeps the
// string as sent because it is already canonical. Exact decimal arithmetic with bigint.

export const QUANTITY_FORMAT_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const SUFFIX_ERROR = "unable to parse quantity's suffix";

type Format = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

const BINARY: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const DECIMAL_BY_EXP = new Map(Object.entries(DECIMAL).map(([s, e]) => [e, s]));
const BINARY_BY_EXP = new Map(Object.entries(BINARY).map(([s, e]) => [e / 10, s]));
const MAX_INT64 = (1n << 63n) - 1n;

interface Parts {
  positive: boolean;
  num: string;
  denom: string;
  suffix: string;
}

/** parseQuantityString: sign, numerator, denominator and suffix, or the format error. */
function split(str: string): Parts {
  let i = 0;
  let positive = true;
  if (str[0] === '-' || str[0] === '+') {
    positive = str[0] === '+';
    i++;
  }
  while (str[i] === '0') i++;
  const numStart = i;
  while (i < str.length && str[i]! >= '0' && str[i]! <= '9') i++;
  const num = str.slice(numStart, i) || '0';
  let denom = '';
  if (str[i] === '.') {
    const start = ++i;
    while (i < str.length && str[i]! >= '0' && str[i]! <= '9') i++;
    denom = str.slice(start, i);
  }
  const suffixStart = i;
  while (i < str.length && 'eEinumkKMGTP'.includes(str[i]!)) i++;
  if (str[i] === '-' || str[i] === '+') i++;
  while (i < str.length && str[i]! >= '0' && str[i]! <= '9') i++;
  if (i < str.length) throw new Error(QUANTITY_FORMAT_ERROR);
  return { positive, num, denom, suffix: str.slice(suffixStart) };
}

function interpret(suffix: string): { base: 2 | 10; exponent: number; format: Format } {
  if (suffix in BINARY) return { base: 2, exponent: BINARY[suffix]!, format: 'BinarySI' };
  if (suffix in DECIMAL) return { base: 10, exponent: DECIMAL[suffix]!, format: 'DecimalSI' };
  if (/^[eE][-+]?[0-9]+$/.test(suffix)) return { base: 10, exponent: Number(suffix.slice(1)), format: 'DecimalExponent' };
  throw new Error(SUFFIX_ERROR);
}

/** Go keeps the string as sent when its fast path finds it canonical already. */
function keptAsSent(p: Parts, base: 2 | 10, exponent: number): boolean {
  const shifted = p.num + p.denom;
  if (base === 10) {
    const scale = exponent - p.denom.length;
    return 18 - shifted.length >= 0 && scale >= -9 && scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
  }
  if (p.denom.length > 0) return false;
  const precision = 15 - p.num.length - Math.trunc((exponent * 3) / 10) - 1;
  const value = BigInt(shifted);
  return precision >= 0 && value << BigInt(exponent) <= MAX_INT64 && (value & 7n) !== 0n;
}

function stripFactors(v: bigint, factor: bigint): [bigint, number] {
  let times = 0;
  while (v !== 0n && v % factor === 0n) {
    v /= factor;
    times++;
  }
  return [v, times];
}

/** The string Go stores for `str`, or throws the decoder's error (its message is the server's). */
export function canonicalQuantity(str: string): string {
  if (str.length === 0) throw new Error(QUANTITY_FORMAT_ERROR);
  if (str === '0') return str;
  const parts = split(str);
  const { base, exponent, format: parsedFormat } = interpret(parts.suffix);
  if (keptAsSent(parts, base, exponent)) return str;
  // value = mantissa × 10^scale, exact.
  let mantissa = BigInt(parts.num + parts.denom);
  let scale = -parts.denom.length;
  if (base === 10) scale += exponent;
  else mantissa <<= BigInt(exponent);
  let format = parsedFormat;
  if (scale < -9 && mantissa !== 0n) {
    // Rounded up to 1n: "if you want some resources, you should get some" (quantity.go).
    const div = 10n ** BigInt(-9 - scale);
    mantissa = (mantissa + div - 1n) / div;
    scale = -9;
  }
  if (mantissa === 0n) return '0';
  while (scale < 0 && mantissa % 10n === 0n) {
    mantissa /= 10n;
    scale++;
  }
  const sign = parts.positive ? '' : '-';
  const magnitude = scale >= 0 ? mantissa * 10n ** BigInt(scale) : undefined;
  if (format === 'BinarySI' && (magnitude === undefined || magnitude < 1024n)) format = 'DecimalSI';
  if (format === 'BinarySI') {
    const [amount, times] = stripFactors(magnitude!, 1024n);
    return `${sign}${amount}${BINARY_BY_EXP.get(times) ?? ''}`;
  }
  let [amount, times] = stripFactors(mantissa, 10n);
  let exp = scale + times;
  const rem = ((exp % 3) + 3) % 3;
  amount *= 10n ** BigInt(rem);
  exp -= rem;
  if (format === 'DecimalExponent') return `${sign}${amount}${exp === 0 ? '' : `e${exp}`}`;
  return `${sign}${amount}${DECIMAL_BY_EXP.get(exp) ?? `e${exp}`}`;
}

/**
 * The quantity as a number (Go's AsApproximateFloat64), for sizing MySQL from requests and limits
 * and for comparing values; undefined for what ParseQuantity refuses. Numbers pass through.
 */
export function quantityNumber(q: string | number | undefined): number | undefined {
  if (q === undefined) return undefined;
  if (typeof q === 'number') return Number.isFinite(q) ? q : undefined;
  const str = q.trim();
  if (str === '') return undefined;
  try {
    const p = split(str);
    const { base, exponent } = interpret(p.suffix);
    const magnitude = Number(`${p.num}.${p.denom || '0'}`) * base ** exponent;
    return p.positive ? magnitude : -magnitude;
  } catch {
    return undefined;
  }
}

/** Quantity.MilliValue(): thousandths, rounded up. */
export function quantityMilli(q: string | number | undefined): number | undefined {
  const v = quantityNumber(q);
  return v === undefined ? undefined : Math.ceil(v * 1000 - 1e-6);
}

/**
 * Why the real server would refuse `value` where a resource.Quantity goes, in its own words
 * (parse errors) or the validation's ("must be greater than or equal to 0"); undefined when it is fine.
 */
export function quantityProblem(value: unknown): string | undefined {
  if (typeof value === 'number') return value < 0 ? 'must be greater than or equal to 0' : undefined;
  if (typeof value !== 'string') return QUANTITY_FORMAT_ERROR;
  try {
    return canonicalQuantity(value).startsWith('-') ? 'must be greater than or equal to 0' : undefined;
  } catch (e) {
    return (e as Error).message;
  }
}
