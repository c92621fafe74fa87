/**
 * How the event store lays a row out: which fields live in typed columns (numbers, dictionary codes),
 * the flag bits of what the stored line cannot say, and the sizes the columns and line segments start
 * from and grow to.
 */

import { EVENT_COLUMNS } from './record';

/** Where each column's field is in a stored CSV line. */
export const FIELD = Object.fromEntries(EVENT_COLUMNS.map((name, i) => [name, i])) as Record<
  (typeof EVENT_COLUMNS)[number],
  number
>;

/** The numbers exports filter and sort on; the others (`obj_id`, `count`, `duration`, `access_token_id`) live only in the line. */
export const NUMERIC = ['timestamp', 'project_id', 'task_id', 'job_id', 'user_id', 'org_id'] as const;
export type NumericColumn = (typeof NUMERIC)[number];
export const CODED = ['scope', 'source', 'user_name', 'user_email', 'org_slug'] as const;
export type CodedColumn = (typeof CODED)[number];

/**
 * Bytes of the first line segment; each next one is twice the last, up to {@link MAX_SEGMENT_BYTES} (a
 * longer line gets a segment of its own). A store of a few rows holds a few KB of lines, a large one
 * 4 MiB segments.
 */
export const FIRST_SEGMENT_BYTES = 2 * 1024;
export const MAX_SEGMENT_BYTES = 4 * 1024 * 1024;
/** Rows the columns are first allocated for (on the first append); they double from there. */
export const FIRST_CAPACITY = 16;
/**
 * Bits of `nulls`: which of the texts kept only in the line are NULL (an empty field is both), and which
 * of the numbers kept only in the line are -0 (written `0`, like `String(-0)`).
 */
export const BIT = {
  nullObjName: 1,
  nullObjVal: 2,
  nullPayload: 4,
  negativeZeroObjId: 8,
  negativeZeroCount: 16,
  negativeZeroDuration: 32,
  negativeZeroAccessTokenId: 64,
} as const;

/** Bytes a row takes in the columns: the numbers, the codes, where its line is, its flags. */
export const ROW_COLUMN_BYTES = NUMERIC.length * 8 + CODED.length * 4 + 3 * 4 + 1;
/** Columns of a store that holds no row yet (never written: `grow` replaces them before the first row). */
export const EMPTY_F64 = new Float64Array(0);
export const EMPTY_U32 = new Uint32Array(0);
export const EMPTY_U8 = new Uint8Array(0);
