import { encodeCsvField } from './csv';

/**
 * How the event store keeps values: low-cardinality strings as dictionary codes (each value's CSV
 * field encoded once), numbers as doubles with NaN for NULL, and the texts it reads back from a
 * row's stored CSV line.
 */

/** NULL's field (empty), shared by every dictionary: it is only read, copied into lines. */
const NULL_FIELD = encodeCsvField(null);

/** A dictionary of strings; code 0 is NULL. Each value's CSV field is encoded once. */
export class Dictionary {
  private readonly codes = new Map<string, number>();
  readonly values: (string | null)[] = [null];
  readonly fields: Uint8Array[] = [NULL_FIELD];
  private last: string | null = null;
  private lastCode = 0;
  code(value: string | null): number {
    if (value === null) return 0;
    // Consecutive rows mostly share scope, source and user.
    if (value === this.last) return this.lastCode;
    let c = this.codes.get(value);
    if (c === undefined) {
      c = this.values.length;
      this.values.push(value);
      this.fields.push(encodeCsvField(value));
      this.codes.set(value, c);
    }
    this.last = value;
    this.lastCode = c;
    return c;
  }
  has(value: string): number | undefined {
    return this.codes.get(value);
  }
}

export const text = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
/** UTF-8 holds any string but one with a lone surrogate (it becomes U+FFFD). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const SURROGATE = /[\uD800-\uDFFF]/;
export const exactInUtf8 = (s: string | null) => s === null || !SURROGATE.test(s) || !LONE_SURROGATE.test(s);
/** A number as a Float64Array would store it; NULL is NaN. */
export const numberOrNaN = (v: number | null | undefined) =>
  v === null || v === undefined ? Number.NaN : Number(v);
export const negativeZero = (v: number, bit: number) => (v === 0 && 1 / v < 0 ? bit : 0);
/** A number read back from its field: empty is NULL. */
export const parseNumber = (field: string | undefined, negZero: boolean): number | null =>
  field === undefined || field === '' ? null : negZero ? -0 : Number(field);
