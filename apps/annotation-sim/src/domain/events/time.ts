/**
 * Times as CVAT's Python shows them. Internally an instant is epoch **microseconds** (a JS number is
 * exact up to 2^53 µs, far beyond year 2200), because client timestamps carry microseconds and DRF
 * echoes them; the analytics store keeps milliseconds, like ClickHouse's `DateTime64(3)`.
 */

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

function parts(us: number) {
  const ms = Math.floor(us / 1000);
  const micro = us - ms * 1000;
  const d = new Date(ms);
  const fraction = (ms - Math.floor(ms / 1000) * 1000) * 1000 + micro;
  return {
    date: `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`,
    time: `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`,
    fraction: fraction === 0 ? '' : `.${pad(fraction, 6)}`,
    d,
  };
}

/** Python's `str(datetime)` of an aware UTC datetime: `2026-08-12 10:00:00.412000+00:00`. */
export function formatPyDateTime(us: number): string {
  const p = parts(us);
  return `${p.date} ${p.time}${p.fraction}+00:00`;
}

/** `strftime('%Y_%m_%d_%H_%M_%S')` in UTC, for `logs_<timestamp>.csv`. */
export function formatFileTimestamp(us: number): string {
  const d = new Date(Math.floor(us / 1000));
  return `${pad(d.getUTCFullYear(), 4)}_${pad(d.getUTCMonth() + 1)}_${pad(d.getUTCDate())}_${pad(d.getUTCHours())}_${pad(d.getUTCMinutes())}_${pad(d.getUTCSeconds())}`;
}

const EARLIEST_MS = -62_135_596_800_000; // 0001-01-01T00:00:00Z
const LATEST_MS = 253_402_300_799_999; // 9999-12-31T23:59:59.999Z

// Python's `fromisoformat` or, failing that, Django's `datetime_re` (1-2 digit fields, spaces before
// the offset); no surrounding whitespace.
const ISO_RE =
  /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ](\d{1,2})(?::(\d{1,2})(?::(\d{1,2})(?:[.,](\d+))?)?)?)?\s*(Z|z|[+-]\d{2}(?::?\d{2}(?::?\d{2})?)?)?$/;

/**
 * Parses an ISO-8601 date-time the way DRF's `DateTimeField` accepts it (Django's `parse_datetime`);
 * a value without an offset is UTC (CVAT's `TIME_ZONE`). Returns epoch µs, or undefined when invalid.
 */
export function parseIsoDateTime(value: string): number | undefined {
  const m = ISO_RE.exec(value);
  if (!m) return undefined;
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', tz = 'Z'] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  // Python's datetime holds years 1 to 9999 (MINYEAR, MAXYEAR).
  if (year < 1 || month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return undefined;
  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0-99 as 1900-1999.
  const check = new Date(Date.UTC(2000, month - 1, day, hour, minute, second));
  check.setUTCFullYear(year, month - 1, day);
  const ms = check.getTime();
  if (check.getUTCDate() !== day || check.getUTCMonth() !== month - 1) return undefined;
  let offsetMs = 0;
  if (tz !== 'Z' && tz !== 'z') {
    const sign = tz.startsWith('-') ? -1 : 1;
    const digits = tz.slice(1).replace(/:/g, '');
    const oh = Number(digits.slice(0, 2));
    const om = Number(digits.slice(2, 4) || '0');
    const os = Number(digits.slice(4, 6) || '0');
    if (oh > 23 || om > 59 || os > 59) return undefined;
    offsetMs = sign * ((oh * 60 + om) * 60 + os) * 1000;
  }
  const micros = Number(frac.slice(0, 6).padEnd(6, '0'));
  const utc = ms - offsetMs;
  // An offset can carry a time at the range's edge out of it (0001-01-01T00:00:00+01:00): Django's
  // conversion to UTC fails there, and no such time can be stored.
  if (utc < EARLIEST_MS || utc > LATEST_MS) return undefined;
  return utc * 1000 + micros;
}
