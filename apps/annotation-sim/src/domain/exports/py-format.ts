/**
 * Python's `"%.Nf" % v` and `"{:.Nf}".format(v)`: the correctly rounded decimal of the binary value,
 * as `toFixed`, except that an exact tie (a binary fraction such as 0.125) rounds to even where
 * `toFixed` rounds away from zero.
 *
 * @example pyFixed(3.125, 2) // '3.12' (toFixed: '3.13')
 */
export function pyFixed(v: number, digits: number): string {
  const rounded = v.toFixed(digits);
  if (!Number.isFinite(v)) return rounded;
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
