/**
 * How the event store gives line segments back when its oldest rows are evicted, and how big the next
 * segment is: geometric growth, but never much beyond the line bytes the store holds, so a store that
 * keeps evicting stays the size of what it keeps.
 */

import { FIRST_CAPACITY, FIRST_SEGMENT_BYTES, MAX_SEGMENT_BYTES } from './store-layout';

/** Moves the rows from position `n` to `size` to the front of every column, in place. */
export function shiftDown(
  columns: readonly (Float64Array | Uint32Array | Uint8Array)[],
  n: number,
  size: number,
) {
  for (const c of columns) c.copyWithin(0, n, size);
}

/** Bytes of the lines of the first `n` rows. */
export function bytesBetween(lineStart: Uint32Array, lineEnd: Uint32Array, n: number): number {
  let bytes = 0;
  for (let p = 0; p < n; p++) bytes += (lineEnd[p] as number) - (lineStart[p] as number);
  return bytes;
}

/** Columns for `rows` rows after an eviction left most of them empty: room to double, a power of two. */
export function capacityFor(rows: number): number {
  let capacity = FIRST_CAPACITY;
  while (capacity < rows * 2) capacity *= 2;
  return capacity;
}

/**
 * Removes the first `unused` segments (no row held has its line there) and renumbers the lines of the
 * `rows` rows held; returns the removed segments.
 */
export function dropSegments(
  segments: Uint8Array[],
  lineSegment: Uint32Array,
  rows: number,
  unused: number,
): Uint8Array[] {
  if (unused === 0) return [];
  for (let p = 0; p < rows; p++) lineSegment[p] = (lineSegment[p] as number) - unused;
  return segments.splice(0, unused);
}

/** The segments worth keeping for later lines: the largest first, up to `bytes` in all. */
export function keptSpares(spares: Uint8Array[], bytes: number): Uint8Array[] {
  const kept: Uint8Array[] = [];
  let total = 0;
  for (const s of [...spares].sort((a, b) => b.length - a.length)) {
    if (total + s.length > bytes) continue;
    kept.push(s);
    total += s.length;
  }
  return kept;
}

/**
 * Bytes of the next segment: twice the last one (the first is {@link FIRST_SEGMENT_BYTES}), but no more
 * than the power of two at or above the line bytes held, nor {@link MAX_SEGMENT_BYTES}.
 */
export function nextSegmentBytes(last: number | undefined, lineBytes: number): number {
  if (last === undefined) return FIRST_SEGMENT_BYTES;
  const held = 2 ** Math.ceil(Math.log2(Math.max(FIRST_SEGMENT_BYTES, lineBytes)));
  return Math.min(MAX_SEGMENT_BYTES, last * 2, held);
}

/**
 * The lines of the `rows` rows held, copied into new segments (in order, positions rewritten) when the
 * segments they are in are mostly unused: more than four times the line bytes, as after `maxEvents` was
 * lowered. Returns the new segments and the bytes used of the last, or undefined when they are dense
 * enough (the usual case: only the oldest segment is partly evicted).
 */
export function repacked(
  segments: readonly Uint8Array[],
  line: { segment: Uint32Array; start: Uint32Array; end: Uint32Array },
  rows: number,
  lineBytes: number,
): [Uint8Array[], number] | undefined {
  let held = 0;
  for (const s of segments) held += s.length;
  if (held <= 4 * lineBytes + FIRST_SEGMENT_BYTES) return undefined;
  const size = Math.min(
    MAX_SEGMENT_BYTES,
    2 ** Math.ceil(Math.log2(Math.max(FIRST_SEGMENT_BYTES, lineBytes))),
  );
  const out: Uint8Array[] = [];
  let target = new Uint8Array(0);
  let used = 0;
  for (let p = 0; p < rows; p++) {
    const start = line.start[p] as number;
    const end = line.end[p] as number;
    if (used + end - start > target.length) {
      target = new Uint8Array(Math.max(size, end - start));
      out.push(target);
      used = 0;
    }
    target.set((segments[line.segment[p] as number] as Uint8Array).subarray(start, end), used);
    line.segment[p] = out.length - 1;
    line.start[p] = used;
    used += end - start;
    line.end[p] = used;
  }
  return [out, used];
}
