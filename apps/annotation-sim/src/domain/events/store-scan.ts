/**
 * Readers of the event store that span appends and evictions: the rows an export matches, one at a
 * time, and the cursor that copies their stored CSV lines into chunks. Both hold absolute row numbers
 * and take the store's arrays again whenever its `version` changes (columns grown or moved, rows
 * evicted): rows evicted meanwhile are skipped, rows appended after `limit` are never reached.
 */

import type { EventQuery } from './record';

/** What a reader needs of the store for one query (valid while the store's `version` is `epoch`). */
export interface StoreView {
  epoch: number;
  /** The absolute number of the row at position 0. */
  first: number;
  size: number;
  /** Rows were appended in timestamp order (then no index is built). */
  ordered: boolean;
  timestamp: Float64Array;
  segments: readonly Uint8Array[];
  lineSegment: Uint32Array;
  lineStart: Uint32Array;
  lineEnd: Uint32Array;
  /** The query's filter, by position. */
  matches(p: number): boolean;
}

interface Viewable {
  readonly version: number;
  view(query: EventQuery): StoreView;
}

/** The stored CSV lines of the rows an export matches, in order, copied out a chunk at a time. */
export interface LineCursor {
  /** Copies the lines of the next rows into `buf` from `pos` while whole lines fit; returns the new position. */
  fill(buf: Uint8Array, pos: number): number;
  /** Bytes of the next line; 0 when no row is left. */
  nextLineBytes(): number;
}

/** The store's view for `query`, taken again when the store's version moved on. */
function tracker(store: Viewable, query: EventQuery): () => StoreView {
  let view = store.view(query);
  return () => {
    if (view.epoch !== store.version) view = store.view(query);
    return view;
  };
}

function isOrdered(v: StoreView, end: number): boolean {
  if (v.ordered || end <= 1) return true;
  const ts = v.timestamp;
  for (let p = 1; p < end; p++) if ((ts[p] as number) < (ts[p - 1] as number)) return false;
  return true;
}

/**
 * The absolute numbers of the rows matching `query` numbered below `limit`, in timestamp order (ties in
 * insertion order): `next()` gives -1 when done. Rows appended in order are read in place (a binary
 * search for `from`); otherwise the matching positions are sorted once (a `Uint32Array`, 4 bytes a row)
 * and mapped to the positions of later versions.
 */
export function rowNumbers(store: Viewable, query: EventQuery, limit: number): { next(): number } {
  const current = tracker(store, query);
  const v0 = current();
  const end = Math.min(limit, v0.first + v0.size);
  if (isOrdered(v0, end - v0.first)) {
    const ts0 = v0.timestamp;
    let lo = 0;
    let hi = end - v0.first;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((ts0[mid] as number) < query.from) lo = mid + 1;
      else hi = mid;
    }
    let i = v0.first + lo;
    const to = query.to;
    return {
      next() {
        const v = current();
        const { first, timestamp: ts, matches } = v;
        if (i < first) i = first;
        while (i < end) {
          const k = i++;
          if ((ts[k - first] as number) > to) {
            i = end;
            return -1;
          }
          if (matches(k - first)) return k;
        }
        return -1;
      },
    };
  }
  const n = end - v0.first;
  let count = 0;
  for (let p = 0; p < n; p++) if (v0.matches(p)) count++;
  const index = new Uint32Array(count);
  let k = 0;
  for (let p = 0; p < n && k < count; p++) if (v0.matches(p)) index[k++] = p;
  const ts = v0.timestamp;
  index.sort((a, b) => (ts[a] as number) - (ts[b] as number) || a - b);
  const base = v0.first;
  let at = 0;
  return {
    next() {
      const first = current().first;
      while (at < count) {
        const i = base + (index[at++] as number);
        if (i >= first) return i;
      }
      return -1;
    },
  };
}

/** The CSV lines of `rowNumbers(store, query, limit)`; lines of adjacent rows are copied as one run. */
export function lineCursor(store: Viewable, query: EventQuery, limit: number): LineCursor {
  const rows = rowNumbers(store, query, limit);
  const current = tracker(store, query);
  let next = rows.next();
  /** The view, with `next` moved past rows evicted since it was taken. */
  const settle = (): StoreView => {
    const v = current();
    if (next >= 0 && next < v.first) next = rows.next();
    return v;
  };
  return {
    nextLineBytes() {
      const v = settle();
      if (next < 0) return 0;
      const p = next - v.first;
      return (v.lineEnd[p] as number) - (v.lineStart[p] as number);
    },
    fill(buf, pos) {
      const { first, segments, lineSegment: segmentOf, lineStart: startOf, lineEnd: endOf } = settle();
      let p = pos;
      while (next >= 0) {
        // The run of lines contiguous in one segment starting at `next`, as long as it fits.
        let at = next - first;
        const segment = segmentOf[at] as number;
        const start = startOf[at] as number;
        let end = endOf[at] as number;
        if (p + end - start > buf.length) break;
        for (;;) {
          next = rows.next();
          if (next < 0) break;
          at = next - first;
          if (segmentOf[at] !== segment || startOf[at] !== end) break;
          const e = endOf[at] as number;
          if (p + e - start > buf.length) break;
          end = e;
        }
        buf.set((segments[segment] as Uint8Array).subarray(start, end), p);
        p += end - start;
      }
      return p;
    },
  };
}
