// metav1.Time and metav1.MicroTime as kube-apiserver v1.26 (Go 1.19) decodes and encodes them:
// time.Parse with time.RFC3339 ("2006-01-02T15:04:05Z07:00", which also takes a fraction after
// the seconds) or RFC3339Micro ("2006-01-02T15:04:05.000000Z07:00", exactly six digits), then
// stored in UTC: Time to the second, MicroTime to the microsecond. Errors are Go's ParseError texts.

export const RFC3339 = '2006-01-02T15:04:05Z07:00';
export const RFC3339_MICRO = '2006-01-02T15:04:05.000000Z07:00';

type Elem = 'year' | 'month' | 'day' | 'hour' | 'minute' | 'second' | 'fraction' | 'zone';
const CHUNKS: { prefix: string; elem: Elem; std: string }[] = [
  { prefix: '', elem: 'year', std: '2006' },
  { prefix: '-', elem: 'month', std: '01' },
  { prefix: '-', elem: 'day', std: '02' },
  { prefix: 'T', elem: 'hour', std: '15' },
  { prefix: ':', elem: 'minute', std: '04' },
  { prefix: ':', elem: 'second', std: '05' },
  { prefix: '', elem: 'fraction', std: '.000000' },
  { prefix: '', elem: 'zone', std: 'Z07:00' },
];

class Bad extends Error {}

function quote(s: string): string {
  return JSON.stringify(s);
}

const isDigit = (s: string, i: number): boolean => i < s.length && s[i]! >= '0' && s[i]! <= '9';

/** Go's getnum: one or two digits; `fixed` demands two. */
function getnum(s: string, fixed: boolean): [number, string] {
  if (!isDigit(s, 0)) throw new Bad();
  if (!isDigit(s, 1)) {
    if (fixed) throw new Bad();
    return [Number(s[0]), s.slice(1)];
  }
  return [Number(s.slice(0, 2)), s.slice(2)];
}

function daysIn(month: number, year: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** The stored form of `value` for a Time (`micro` false) or MicroTime field; throws Go's message. */
export function canonicalTime(value: string, micro: boolean): string {
  const layout = micro ? RFC3339_MICRO : RFC3339;
  const fail = (layoutElem: string, valueElem: string, message = ''): never => {
    throw new Error(
      message
        ? `parsing time ${quote(value)}${message}`
        : `parsing time ${quote(value)} as ${quote(layout)}: cannot parse ${quote(valueElem)} as ${quote(layoutElem)}`,
    );
  };
  const f = { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0, nanos: 0, offset: 0 };
  let rest = value;
  for (const { prefix, elem, std } of CHUNKS) {
    if (elem === 'fraction' && !micro) continue;
    if (prefix && rest[0] !== prefix) fail(prefix, rest);
    rest = rest.slice(prefix.length);
    const hold = rest;
    let range = '';
    try {
      switch (elem) {
        case 'year':
          if (rest.length < 4 || !/^[0-9]{4}/.test(rest)) throw new Bad();
          f.year = Number(rest.slice(0, 4));
          rest = rest.slice(4);
          break;
        case 'month':
          [f.month, rest] = getnum(rest, true);
          if (f.month <= 0 || f.month > 12) range = 'month';
          break;
        case 'day':
          [f.day, rest] = getnum(rest, true);
          break;
        case 'hour':
          [f.hour, rest] = getnum(rest, false);
          if (f.hour >= 24) range = 'hour';
          break;
        case 'minute':
          [f.minute, rest] = getnum(rest, true);
          if (f.minute >= 60) range = 'minute';
          break;
        case 'second': {
          [f.second, rest] = getnum(rest, true);
          if (f.second >= 60) range = 'second';
          else if (!micro && rest.length >= 2 && (rest[0] === '.' || rest[0] === ',') && isDigit(rest, 1)) {
            let n = 2;
            while (isDigit(rest, n)) n++;
            f.nanos = Number(rest.slice(1, Math.min(n, 10)).padEnd(9, '0'));
            rest = rest.slice(n);
          }
          break;
        }
        case 'fraction':
          if (rest.length < 7 || (rest[0] !== '.' && rest[0] !== ',') || !/^[0-9]{6}$/.test(rest.slice(1, 7))) throw new Bad();
          f.nanos = Number(rest.slice(1, 7)) * 1000;
          rest = rest.slice(7);
          break;
        case 'zone':
          if (rest[0] === 'Z') {
            rest = rest.slice(1);
            break;
          }
          if (rest.length < 6 || rest[3] !== ':' || (rest[0] !== '+' && rest[0] !== '-')) throw new Bad();
          {
            const [h] = getnum(rest.slice(1, 3), true);
            const [m] = getnum(rest.slice(4, 6), true);
            f.offset = (rest[0] === '-' ? -1 : 1) * (h * 60 + m) * 60;
          }
          rest = rest.slice(6);
          break;
      }
    } catch (e) {
      if (!(e instanceof Bad)) throw e;
      fail(std, hold);
    }
    if (range) fail(std, rest, `: ${range} out of range`);
  }
  if (rest.length > 0) fail('', rest, `: extra text: ${quote(rest)}`);
  if (f.day < 1 || f.day > daysIn(f.month, f.year)) fail('', rest, ': day out of range');
  const ms = Date.UTC(f.year, f.month - 1, f.day, f.hour, f.minute, f.second) - f.offset * 1000;
  const utc = new Date(ms).toISOString().slice(0, 19);
  return micro ? `${utc}.${String(Math.floor(f.nanos / 1000)).padStart(6, '0')}Z` : `${utc}Z`;
}
