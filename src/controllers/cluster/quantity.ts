// Kubernetes resource quantities ("1Gi", "500m", "2", "1e3") as numbers, enough for sizing
// MySQL from requests/limits. Returns undefined for text that is not a quantity.

const BINARY: Readonly<Record<string, number>> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const DECIMAL: Readonly<Record<string, number>> = { n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };

export function parseQuantity(q: string | number | undefined): number | undefined {
  if (q === undefined) return undefined;
  if (typeof q === 'number') return Number.isFinite(q) ? q : undefined;
  const m = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?)$/.exec(q.trim());
  if (!m) return undefined;
  const base = Number(m[1]);
  if (m[2]) return base * 10 ** Number(m[2].slice(1));
  const suffix = m[3] ?? '';
  return base * (BINARY[suffix] ?? DECIMAL[suffix] ?? 1);
}

/** Quantity.Value(): the integer value, rounded up. */
export function quantityValue(q: string | number | undefined): number | undefined {
  const v = parseQuantity(q);
  return v === undefined ? undefined : Math.ceil(v - 1e-9);
}

/** Quantity.MilliValue(): thousandths, rounded up. */
export function quantityMilli(q: string | number | undefined): number | undefined {
  const v = parseQuantity(q);
  return v === undefined ? undefined : Math.ceil(v * 1000 - 1e-6);
}
