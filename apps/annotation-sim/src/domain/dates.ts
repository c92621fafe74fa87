/**
 * DRF renders datetimes with Python's `isoformat()` and `+00:00` → `Z`: microseconds appear only when
 * non-zero (`2026-01-01T00:00:00Z`, `2026-01-01T00:00:00.123000Z`). The clock has millisecond resolution.
 */
export function formatDrfDate(epochMs: number): string {
  const iso = new Date(epochMs).toISOString();
  const ms = iso.slice(20, 23);
  return ms === '000' ? `${iso.slice(0, 19)}Z` : `${iso.slice(0, 19)}.${ms}000Z`;
}
