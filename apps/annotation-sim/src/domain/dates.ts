/**
 * DRF renders an aware UTC datetime with Python's `isoformat()` and `+00:00` → `Z`: the fraction appears
 * only when non-zero, as microseconds (`2026-01-01T00:00:00Z`, `2026-01-01T00:00:00.123000Z`). The one
 * writer of that form: the world clock's milliseconds ({@link formatDrfDate}) and the events API's
 * microseconds ({@link formatDrfDateTime}).
 */
function drfDateTime(ms: number, micro: number): string {
  const iso = new Date(ms).toISOString();
  // Past 9999 (only a float's rounding of 9999-12-31T23:59:59.999999 gets there) toISOString writes an
  // expanded year, `+010000`: the year's digits alone, as Python would not write it either.
  const head = iso.charCodeAt(0) === 43 ? `${Number(iso.slice(1, 7))}${iso.slice(7, 22)}` : iso.slice(0, 19);
  const fraction = (ms - Math.floor(ms / 1000) * 1000) * 1000 + micro;
  return fraction === 0 ? `${head}Z` : `${head}.${String(fraction).padStart(6, '0')}Z`;
}

/** DRF's rendering of a clock time (epoch milliseconds): `2026-01-01T00:00:00.123000Z`. */
export function formatDrfDate(epochMs: number): string {
  return drfDateTime(epochMs, 0);
}

/** DRF's rendering of an instant in epoch microseconds: `2026-08-12T10:00:00.412000Z` (no fraction when zero). */
export function formatDrfDateTime(us: number): string {
  const ms = Math.floor(us / 1000);
  return drfDateTime(ms, us - ms * 1000);
}
