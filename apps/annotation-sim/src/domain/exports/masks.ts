/**
 * Binary masks as COCO keeps them: a `w`×`h` bitmap in column-major order (pycocotools' Fortran order),
 * its run lengths (`counts`, zeros first), and what CVAT's COCO export rasterizes into one: a polygon
 * (pycocotools' `rleFrPoly`: the boundary upsampled five times, its y-crossings down-sampled to pixel
 * columns), a CVAT mask (`MaskConverter.cvat_rle_to_dm_rle`: its row-major run lengths inside its box)
 * and an ellipse (`EllipsesToMasks`, which draws with OpenCV's `cv2.ellipse`; here the pixels whose
 * centres lie inside the rotated ellipse of rounded centre and axes: FIDELITY.md, Exports).
 */

/**
 * A bitmap of `w`×`h`, column-major (`bits[x * h + y]`), and the box (inclusive) outside which no bit
 * is set: a mask's reads scan its box, not the image (a job of many small masks stays cheap).
 */
export interface Bitmap {
  w: number;
  h: number;
  bits: Uint8Array;
  box: { x0: number; y0: number; x1: number; y1: number };
}

export const emptyBitmap = (w: number, h: number): Bitmap => ({
  w,
  h,
  bits: new Uint8Array(w * h),
  box: { x0: 0, y0: 0, x1: -1, y1: -1 },
});

/** A bitmap whose bits may be set in `[x0, x1]`×`[y0, y1]` (clipped to the image). */
function boxedBitmap(w: number, h: number, x0: number, y0: number, x1: number, y1: number): Bitmap {
  return {
    w,
    h,
    bits: new Uint8Array(w * h),
    box: { x0: Math.max(0, x0), y0: Math.max(0, y0), x1: Math.min(w - 1, x1), y1: Math.min(h - 1, y1) },
  };
}

/** COCO's uncompressed run lengths of a bitmap: zeros first (`mask_tools.mask_to_rle`). */
export function runLengths(m: Bitmap): number[] {
  const counts: number[] = [];
  let current = 0;
  let run = 0;
  const add = (value: number, n: number) => {
    if (n <= 0) return;
    if (value !== current) {
      counts.push(run);
      run = 0;
      current = value;
    }
    run += n;
  };
  const { x0, y0, x1, y1 } = m.box;
  if (x1 < x0 || y1 < y0) return [m.w * m.h];
  add(0, x0 * m.h);
  for (let x = x0; x <= x1; x++) {
    add(0, y0);
    for (let y = y0; y <= y1; y++) add(m.bits[x * m.h + y] as number, 1);
    add(0, m.h - 1 - y1);
  }
  add(0, (m.w - 1 - x1) * m.h);
  counts.push(run);
  return counts;
}

/** The pixels set, and their bounding box `[x, y, w, h]` (`Mask.get_bbox`). */
export function maskArea(m: Bitmap): { area: number; bbox: [number, number, number, number] } {
  let area = 0;
  let x0 = m.w;
  let y0 = m.h;
  let x1 = -1;
  let y1 = -1;
  for (let x = m.box.x0; x <= m.box.x1; x++) {
    for (let y = m.box.y0; y <= m.box.y1; y++) {
      if (m.bits[x * m.h + y] === 0) continue;
      area++;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
    }
  }
  return area === 0 ? { area, bbox: [0, 0, 0, 0] } : { area, bbox: [x0, y0, x1 - x0 + 1, y1 - y0 + 1] };
}

/** `into |= m` (the box grows to hold `m`'s). */
export function orInto(into: Bitmap, m: Bitmap): void {
  const { x0, y0, x1, y1 } = m.box;
  for (let x = x0; x <= x1; x++) {
    for (let y = y0; y <= y1; y++) if (m.bits[x * m.h + y]) into.bits[x * into.h + y] = 1;
  }
  if (x1 < x0 || y1 < y0) return;
  const b = into.box;
  const empty = b.x1 < b.x0 || b.y1 < b.y0;
  into.box = empty
    ? { ...m.box }
    : { x0: Math.min(b.x0, x0), y0: Math.min(b.y0, y0), x1: Math.max(b.x1, x1), y1: Math.max(b.y1, y1) };
}

/** Sets the runs of `counts` (zeros first) over `h`×`w` column-major cells. */
export function fillRuns(m: Bitmap, counts: readonly number[]): void {
  let at = 0;
  counts.forEach((n, i) => {
    if (i % 2 === 1) m.bits.fill(1, Math.min(at, m.bits.length), Math.min(at + n, m.bits.length));
    at += n;
  });
}

/** pycocotools' `rleFrPoly`: the run lengths of a polygon (`xy` flat) over an `h`×`w` image. */
export function polygonRuns(xy: readonly number[], h: number, w: number): number[] {
  const k = Math.floor(xy.length / 2);
  if (k === 0) return [h * w];
  const scale = 5;
  const x: number[] = [];
  const y: number[] = [];
  for (let j = 0; j < k; j++) {
    x.push(Math.trunc(scale * (xy[2 * j] as number) + 0.5));
    y.push(Math.trunc(scale * (xy[2 * j + 1] as number) + 0.5));
  }
  x.push(x[0] as number);
  y.push(y[0] as number);
  const u: number[] = [];
  const v: number[] = [];
  for (let j = 0; j < k; j++) {
    let xs = x[j] as number;
    let xe = x[j + 1] as number;
    let ys = y[j] as number;
    let ye = y[j + 1] as number;
    const dx = Math.abs(xe - xs);
    const dy = Math.abs(ys - ye);
    const flip = (dx >= dy && xs > xe) || (dx < dy && ys > ye);
    if (flip) {
      [xs, xe] = [xe, xs];
      [ys, ye] = [ye, ys];
    }
    const s = dx >= dy ? (ye - ys) / dx : (xe - xs) / dy;
    if (dx >= dy) {
      for (let d = 0; d <= dx; d++) {
        const t = flip ? dx - d : d;
        u.push(t + xs);
        v.push(Math.trunc(ys + s * t + 0.5));
      }
    } else {
      for (let d = 0; d <= dy; d++) {
        const t = flip ? dy - d : d;
        v.push(t + ys);
        u.push(Math.trunc(xs + s * t + 0.5));
      }
    }
  }
  const a: number[] = [];
  for (let j = 1; j < u.length; j++) {
    const uj = u[j] as number;
    const up = u[j - 1] as number;
    if (uj === up) continue;
    let xd = uj < up ? uj : uj - 1;
    xd = (xd + 0.5) / scale - 0.5;
    if (Math.floor(xd) !== xd || xd < 0 || xd > w - 1) continue;
    const vj = v[j] as number;
    const vp = v[j - 1] as number;
    const yd = Math.ceil(Math.min(Math.max((Math.min(vj, vp) + 0.5) / scale - 0.5, 0), h));
    a.push(xd * h + yd);
  }
  a.push(h * w);
  a.sort((p, q) => p - q);
  let prev = 0;
  for (let j = 0; j < a.length; j++) {
    const t = a[j] as number;
    a[j] = t - prev;
    prev = t;
  }
  const b: number[] = [];
  let j = 0;
  b.push(a[j++] as number);
  while (j < a.length) {
    if ((a[j] as number) > 0) b.push(a[j++] as number);
    else {
      // A run of zero length: the next run joins the previous one.
      j++;
      if (j < a.length) b[b.length - 1] = (b[b.length - 1] as number) + (a[j++] as number);
    }
  }
  return b;
}

/** A polygon's bitmap over a `w`×`h` image. */
export function polygonBitmap(xy: readonly number[], w: number, h: number): Bitmap {
  const m = boxedBitmap(w, h, 0, 0, w - 1, h - 1);
  fillRuns(m, polygonRuns(xy, h, w));
  return m;
}

/** A CVAT mask's points (row-major runs in its box, then left, top, right, bottom) on a `w`×`h` image. */
export function cvatMaskBitmap(points: readonly number[], w: number, h: number): Bitmap {
  const n = points.length;
  const [left, top, right] = points.slice(n - 4, n - 1).map(Math.trunc) as [number, number, number];
  const boxW = right - left + 1;
  const bottom = Math.trunc(points[n - 1] ?? 0);
  const m = boxedBitmap(w, h, left, top, right, bottom);
  let at = 0;
  for (let i = 0; i < n - 4; i++) {
    const run = points[i] as number;
    if (i % 2 === 1) {
      for (let p = at; p < at + run; p++) {
        const x = left + (p % boxW);
        const y = top + Math.floor(p / boxW);
        const { x0, y0, x1, y1 } = m.box;
        if (x >= x0 && x <= x1 && y >= y0 && y <= y1) m.bits[x * h + y] = 1;
      }
    }
    at += run;
  }
  return m;
}

/** Python's `round` (half to even) of a coordinate. */
const pyRound = (v: number) => {
  const r = Math.round(v);
  return Math.abs(v % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
};

/** An ellipse (CVAT's points: centre, right, top; `rotation` in degrees) on a `w`×`h` image. */
export function ellipseBitmap(points: readonly number[], rotation: number, w: number, h: number): Bitmap {
  const [cx0 = 0, cy0 = 0, right = 0, top = 0] = points;
  const cx = pyRound(cx0);
  const cy = pyRound(cy0);
  const rx = Math.max(pyRound(right - cx0), 0);
  const ry = Math.max(pyRound(cy0 - top), 0);
  const reach = Math.max(rx, ry);
  const m = boxedBitmap(w, h, cx - reach, cy - reach, cx + reach, cy + reach);
  const angle = (rotation * Math.PI) / 180;
  const cos = Math.cos(angle);
  const sin = Math.sin(angle);
  for (let x = m.box.x0; x <= m.box.x1; x++) {
    for (let y = m.box.y0; y <= m.box.y1; y++) {
      const dx = x - cx;
      const dy = y - cy;
      const u = dx * cos + dy * sin;
      const t = -dx * sin + dy * cos;
      const inside =
        rx === 0 || ry === 0
          ? Math.abs(u) <= rx && Math.abs(t) <= ry
          : (u * u) / (rx * rx) + (t * t) / (ry * ry) <= 1;
      if (inside) m.bits[x * h + y] = 1;
    }
  }
  return m;
}

/**
 * pycocotools' `rleToString`: run lengths as COCO's compressed text (each count, less the one two
 * before it from the third on, in 5-bit groups with a continuation bit, offset by 48).
 */
export function rleString(counts: readonly number[]): string {
  let s = '';
  counts.forEach((count, i) => {
    let x = i > 2 ? count - (counts[i - 2] as number) : count;
    let more = true;
    while (more) {
      let c = x & 0x1f;
      x >>= 5;
      more = c & 0x10 ? x !== -1 : x !== 0;
      if (more) c |= 0x20;
      s += String.fromCharCode(c + 48);
    }
  });
  return s;
}
