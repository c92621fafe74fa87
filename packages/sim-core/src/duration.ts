/** Thrown for bad input from callers (control plane, scenario files, fault rules): rendered as 400. */
export class SimInputError extends Error {
  override readonly name = 'SimInputError';
  /** Where in the input the problem is, as path segments (`['trigger', 'times']`). */
  readonly segments: (string | number)[];
  /** The same as a string: `trigger.times`, `faults[0].effect`. */
  readonly path?: string;
  constructor(message: string, path?: string | (string | number)[]) {
    super(message);
    this.segments = path === undefined ? [] : typeof path === 'string' ? splitPath(path) : path;
    this.path = this.segments.length > 0 ? joinPath(this.segments) : undefined;
  }
}

/** `a.b[2].c` → `['a', 'b', 2, 'c']`. */
export function splitPath(path: string): (string | number)[] {
  const out: (string | number)[] = [];
  for (const part of path.match(/[^.[\]]+|\[\d+\]/g) ?? []) {
    out.push(part.startsWith('[') ? Number(part.slice(1, -1)) : part);
  }
  return out;
}

/** `['a', 'b', 2, 'c']` → `a.b[2].c`. */
export function joinPath(segments: readonly PropertyKey[]): string {
  let out = '';
  for (const key of segments) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DURATION_RE = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/;

/**
 * Parses a duration into milliseconds: a number is taken as milliseconds, a string is one or more
 * `<number><unit>` parts with units ms, s, m, h, d.
 *
 * @example parseDuration('1.5s') // 1500
 * @example parseDuration('2m30s') // 150000
 */
export function parseDuration(value: string | number): number {
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0)
      throw new SimInputError(`invalid duration ${value}: must be >= 0`);
    return value;
  }
  const text = value.trim();
  let total = 0;
  let rest = text;
  if (rest === '')
    throw new SimInputError(`invalid duration "${value}": expected e.g. "500ms", "1.5s", "2m"`);
  while (rest.length > 0) {
    const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)/.exec(rest);
    if (!m) throw new SimInputError(`invalid duration "${value}": expected e.g. "500ms", "1.5s", "2m"`);
    total += Number(m[1]) * (UNIT_MS[m[2] as string] as number);
    rest = rest.slice(m[0].length);
  }
  return total;
}

/** True when `value` is a single-unit duration string such as `2s`. */
export function isDurationString(value: string): boolean {
  return DURATION_RE.test(value) || /^(\d+(?:\.\d+)?(ms|s|m|h|d))+$/.test(value);
}

/** Formats milliseconds as the shortest readable duration (`1500` → `1.5s`). */
export function formatDuration(ms: number): string {
  if (ms % 60_000 === 0 && ms >= 60_000) return `${ms / 60_000}m`;
  if (ms >= 1_000) return `${ms / 1_000}s`;
  return `${ms}ms`;
}
