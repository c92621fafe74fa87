import { PyFloat, pythonJsonDumps } from '../python-json';

/**
 * Python's `"%.Nf" % v` and `"{:.Nf}".format(v)`: the correctly rounded decimal of the binary value,
 * as `toFixed`, except that an exact tie (a binary fraction such as 0.125) rounds to even where
 * `toFixed` rounds away from zero.
 *
 * @example pyFixed(3.125, 2) // '3.12' (toFixed: '3.13')
 */
export function pyFixed(v: number, digits: number): string {
  // `toFixed` drops the sign of -0 (Python writes `-0.00`).
  const rounded = Object.is(v, -0) ? `-${v.toFixed(digits)}` : v.toFixed(digits);
  if (!Number.isFinite(v)) return rounded;
  // Only an exact tie differs, and a tie's scaled value n + 0.5 is exact in binary (below 2^52): a value
  // whose scaled fraction is not 0.5 is no tie, without the costly exact expansion below.
  const scaled = Math.abs(v) * 10 ** digits;
  if (scaled < 2 ** 52 && scaled % 1 !== 0.5) return rounded;
  // The exact expansion: a tie is a 5 then only zeros after the kept digits.
  const exact = Math.abs(v).toFixed(Math.min(100, digits + 60));
  const point = exact.indexOf('.');
  const kept = exact.slice(0, point + 1 + digits);
  if (!/^50*$/.test(exact.slice(point + 1 + digits))) return rounded;
  const last = Number(kept.at(-1) === '.' ? kept.at(-2) : kept.at(-1));
  if (last % 2 !== 0) return rounded;
  const text = digits === 0 ? kept.slice(0, -1) : kept;
  return v < 0 ? `-${text}` : text;
}

/**
 * Datumaro's coordinate rounding (`np.around(v, 2)`): the value times 100 rounded half to even, over
 * 100.
 */
export function round2(v: number): number {
  const scaled = v * 100;
  const floor = Math.floor(scaled);
  const rounded = scaled - floor === 0.5 ? (floor % 2 === 0 ? floor : floor + 1) : Math.round(scaled);
  return rounded / 100;
}

const NO_FLOAT_KEYS: ReadonlySet<string> = new Set();

/** JSON as Datumaro's `dump_json` (orjson) writes it: compact, UTF-8 kept, {@link PyFloat}s with `.0`. */
export const compactJson = (v: unknown) =>
  pythonJsonDumps(v, { compact: true, ascii: false, floatKeys: NO_FLOAT_KEYS });

/** A Python float (written with its `.0` when whole). */
export const pyFloat = (v: number) => new PyFloat(v);
