/**
 * The round trip (issue 37): random annotations, restricted to what each format represents, written by
 * the simulator's exporter (`datasetArchive` over a seeded task's export source) and read back by the
 * format's importer give the same annotations, compared in a normalized form: ids and `source` dropped
 * (imports are "file"), order canonical, numbers as the format rounds them, masks as their pixels.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { datasetArchive } from '../src/domain/exports/dataset';
import { exportFrame, exportSource } from '../src/domain/exports/source';
import { importerFor } from '../src/domain/imports/formats/index';
import type { ImportedAnnotations, ImportTarget } from '../src/domain/imports/formats/types';
import { labelsOfOwner } from '../src/domain/label-read';
import { FORMAT_LABELS } from './support/format-labels';
import { createHarness, type Harness, TEAM } from './support/harness';

const RUNS = 15;
const SEED = 3737;
const SIZE = 6;

let h: Harness;
let taskId = 0;
/** Label and attribute ids by name. */
let ids: {
  car: number;
  person: number;
  s1: number;
  p1: number;
  p2: number;
  model: number;
  parked: number;
  speed: number;
};

beforeAll(async () => {
  h = createHarness();
  const seeded = h.seed({
    ...TEAM,
    tasks: [
      {
        name: 'T',
        owner: 'alice',
        org: 'acme',
        size: SIZE,
        segment_size: SIZE,
        labels: FORMAT_LABELS,
      },
    ],
  });
  taskId = (seeded.tasks.T as { id: number }).id;
  const labels = labelsOfOwner(h.state(), { project_id: null, task_id: taskId });
  const by = (n: string, parent: number | null = null) =>
    labels.find((l) => l.name === n && l.parent_id === parent);
  const car = by('car');
  const s1 = by('s1');
  const spec = (n: string) => car?.attributes.find((a) => a.name === n)?.id ?? 0;
  ids = {
    car: car?.id ?? 0,
    person: by('person')?.id ?? 0,
    s1: s1?.id ?? 0,
    p1: by('1', s1?.id ?? 0)?.id ?? 0,
    p2: by('2', s1?.id ?? 0)?.id ?? 0,
    model: spec('model'),
    parked: spec('parked'),
    speed: spec('speed'),
  };
});
afterAll(() => h?.close());

type Obj = Record<string, unknown>;

// ---- generators -------------------------------------------------------------------------------------

/** A coordinate in hundredths (what CVAT's XML keeps), or whole pixels for the formats that scale. */
const coord = (whole: boolean) =>
  whole ? fc.integer({ min: 0, max: 300 }) : fc.integer({ min: 0, max: 30000 }).map((v) => v / 100);
const frame = fc.integer({ min: 0, max: SIZE - 1 });

function box(whole: boolean) {
  return fc
    .tuple(coord(whole), coord(whole), fc.integer({ min: 1, max: 100 }), fc.integer({ min: 1, max: 100 }))
    .map(([x, y, w, hh]) => [x, y, x + w, y + hh]);
}
const poly = (whole: boolean, min: number, max: number) =>
  fc.array(fc.tuple(coord(whole), coord(whole)), { minLength: min, maxLength: max }).map((ps) => ps.flat());

/** A mask's points: row-major runs (zeros first) in a box of up to 6×4 at (left, top), then the box. */
const mask = fc
  .tuple(
    fc.integer({ min: 0, max: 50 }),
    fc.integer({ min: 0, max: 50 }),
    fc.integer({ min: 1, max: 6 }),
    fc.integer({ min: 1, max: 4 }),
  )
  .chain(([left, top, w, hh]) =>
    fc.array(fc.boolean(), { minLength: w * hh, maxLength: w * hh }).map((bits) => {
      if (!bits.some(Boolean)) bits[0] = true;
      const runs: number[] = [];
      let current = false;
      let run = 0;
      for (const b of bits) {
        if (b !== current) {
          runs.push(run);
          run = 0;
          current = b;
        }
        run++;
      }
      runs.push(run);
      return [...runs, left, top, left + w - 1, top + hh - 1];
    }),
  );

/** Attribute values of car's specs (some of them), or none for person. */
const carAttributes = (which: 'all' | 'mutable' | 'immutable') =>
  fc
    .record(
      {
        model: fc.constantFrom('mazda', 'volvo'),
        parked: fc.constantFrom('true', 'false'),
        speed: fc.integer({ min: 0, max: 100 }).map(String),
      },
      { requiredKeys: [] },
    )
    .map((r) =>
      Object.entries(r)
        .filter(([k]) => which === 'all' || (k === 'model') === (which === 'immutable'))
        .map(([k, v]) => ({ spec_id: ids[k as 'model'], value: v })),
    );

interface Profile {
  /** The shape types the format writes and reads (the first ones the more common). */
  types: string[];
  tags: boolean;
  whole: boolean;
  groups: boolean;
  zOrder: boolean;
  rotation: boolean;
  attributes: boolean;
  tracks: boolean;
}

function shapeArb(p: Profile) {
  return fc.constantFrom(...p.types).chain((type) => {
    const label = type === 'skeleton' ? fc.constant(ids.s1) : fc.constantFrom(ids.car, ids.person);
    return fc
      .record({
        label_id: label,
        frame,
        occluded: fc.boolean(),
        z_order: p.zOrder ? fc.integer({ min: -2, max: 2 }) : fc.constant(0),
        group: p.groups ? fc.integer({ min: 0, max: 2 }) : fc.constant(0),
        rotation:
          p.rotation && (type === 'rectangle' || type === 'ellipse')
            ? fc.integer({ min: 0, max: 359 })
            : fc.constant(0),
        points: pointsOf(type, p.whole),
        attrs: p.attributes ? carAttributes('all') : fc.constant([]),
        elements: type === 'skeleton' ? skeletonPoints(p.whole) : fc.constant(undefined),
      })
      .map(({ attrs, elements, ...s }) => ({
        type,
        ...s,
        occluded: type === 'skeleton' ? false : s.occluded,
        attributes: s.label_id === ids.car ? attrs : [],
        ...(elements ? { elements: elements.map((e) => ({ ...e, frame: s.frame })) } : {}),
      }));
  });
}

function pointsOf(type: string, whole: boolean) {
  switch (type) {
    case 'rectangle':
      return box(whole);
    case 'polygon':
      return poly(whole, 3, 5);
    case 'polyline':
      return poly(whole, 2, 4);
    case 'points':
      return poly(whole, 1, 3);
    case 'ellipse':
      return fc
        .tuple(
          coord(false),
          coord(false),
          fc.integer({ min: 100, max: 3000 }),
          fc.integer({ min: 100, max: 3000 }),
        )
        .map(([cx, cy, rx, ry]) =>
          [cx + 50, cy + 50, cx + 50 + rx / 100, cy + 50 - ry / 100].map((v) => Math.round(v * 100) / 100),
        );
    case 'cuboid':
      return fc.array(coord(false), { minLength: 16, maxLength: 16 });
    case 'mask':
      return mask;
    default:
      return fc.constant([]);
  }
}

const skeletonPoints = (whole: boolean) =>
  fc
    .tuple(poly(whole, 1, 1), poly(whole, 1, 1), fc.constantFrom(0, 1, 2), fc.constantFrom(0, 1, 2))
    .map(([a, b, va, vb]) =>
      [
        [ids.p1, a, va],
        [ids.p2, b, vb],
      ].map(([label_id, points, v]) => ({
        type: 'points',
        label_id,
        points,
        occluded: v === 1,
        outside: v === 0,
        attributes: [],
      })),
    );

/** A track of one shape type: keyframes on ascending frames, the first visible. */
function trackArb(p: Profile) {
  return fc
    .record({
      type: fc.constantFrom('rectangle', 'polygon', 'polyline', 'points', 'ellipse', 'cuboid'),
      label_id: fc.constantFrom(ids.car, ids.person),
      frames: fc.uniqueArray(frame, { minLength: 1, maxLength: 4 }).map((f) => f.sort((a, b) => a - b)),
      group: fc.integer({ min: 0, max: 2 }),
      attrs: carAttributes('immutable'),
    })
    .chain(({ type, label_id, frames, group, attrs }) =>
      fc
        .tuple(
          ...frames.map((f, i) =>
            fc.record({
              type: fc.constant(type),
              frame: fc.constant(f),
              points: pointsOf(type, p.whole),
              occluded: fc.boolean(),
              outside: i === 0 ? fc.constant(false) : fc.boolean(),
              z_order: fc.integer({ min: -2, max: 2 }),
              rotation:
                type === 'rectangle' || type === 'ellipse'
                  ? fc.integer({ min: 0, max: 359 })
                  : fc.constant(0),
              attributes: label_id === ids.car ? carAttributes('mutable') : fc.constant([]),
            }),
          ),
        )
        .map((shapes) => ({
          label_id,
          frame: frames[0],
          group,
          source: 'manual',
          attributes: label_id === ids.car ? attrs : [],
          shapes,
        })),
    );
}

function dataArb(p: Profile) {
  return fc.record({
    version: fc.constant(0),
    tags: p.tags
      ? fc
          .array(
            fc.record({
              label_id: fc.constantFrom(ids.car, ids.person),
              frame,
              group: fc.integer({ min: 0, max: 2 }),
            }),
            { maxLength: 3 },
          )
          .map((ts) => ts.map((t) => ({ ...t, source: 'manual', attributes: [] })))
      : fc.constant([]),
    shapes: p.types.length > 0 ? fc.array(shapeArb(p), { maxLength: 6 }) : fc.constant([]),
    tracks: p.tracks ? fc.array(trackArb(p), { minLength: 1, maxLength: 3 }) : fc.constant([]),
  });
}

// ---- normalizing ------------------------------------------------------------------------------------

/** A CVAT mask's pixels, `x,y` sorted. */
function maskPixels(points: readonly number[]): string {
  const n = points.length;
  const [left, top, right] = points.slice(n - 4, n - 1) as [number, number, number];
  const w = right - left + 1;
  const out: string[] = [];
  let at = 0;
  for (let i = 0; i < n - 4; i++) {
    const run = points[i] as number;
    if (i % 2 === 1)
      for (let p = at; p < at + run; p++) out.push(`${left + (p % w)},${top + Math.floor(p / w)}`);
    at += run;
  }
  return out.sort().join(' ');
}

const roundTo = (digits: number) => (v: number) => Number(v.toFixed(digits));

interface Norm {
  round: (v: number) => number;
  /** Attribute values with each of the label's specs (their defaults) and numbers as numbers. */
  fillDefaults: boolean;
}

function attrs(
  labelId: number,
  list: readonly { spec_id: number; value: string }[],
  n: Norm,
  only?: 'mutable' | 'immutable',
) {
  const out = new Map(list.map((a) => [a.spec_id, a.value]));
  if (n.fillDefaults && labelId === ids.car) {
    const defaults: [number, string, boolean][] = [
      [ids.model, 'mazda', false],
      [ids.parked, 'false', true],
      [ids.speed, '5', true],
    ];
    for (const [id, v, mutable] of defaults) {
      if (only && (only === 'mutable') !== mutable) continue;
      if (!out.has(id)) out.set(id, v);
    }
  }
  return [...out]
    .map(([id, v]) => `${id}=${id === ids.speed ? Number(v) : v}`)
    .sort()
    .join(';');
}

function normShape(s: Obj, n: Norm): Obj {
  const type = s.type as string;
  const points = s.points as number[];
  return {
    label_id: s.label_id,
    frame: s.frame,
    type,
    points: type === 'mask' ? ((s.pixels as string | undefined) ?? maskPixels(points)) : points.map(n.round),
    occluded: s.occluded ?? false,
    outside: s.outside ?? false,
    z_order: s.z_order ?? 0,
    rotation: n.round((s.rotation as number) ?? 0),
    group: s.group ?? 0,
    attributes: attrs(s.label_id as number, (s.attributes as []) ?? [], n),
    elements: ((s.elements as Obj[]) ?? []).map((e) => normShape(e, n)).sort(byJson),
  };
}

const byJson = (a: unknown, b: unknown) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1);

function normalize(d: { tags: Obj[]; shapes: Obj[]; tracks: Obj[] }, n: Norm) {
  return {
    tags: d.tags
      .map((t) => ({
        label_id: t.label_id,
        frame: t.frame,
        group: t.group ?? 0,
        attributes: attrs(t.label_id as number, t.attributes as [], n),
      }))
      .sort(byJson),
    shapes: d.shapes.map((s) => normShape(s, n)).sort(byJson),
    tracks: d.tracks
      .map((t) => ({
        label_id: t.label_id,
        frame: t.frame,
        group: t.group ?? 0,
        attributes: attrs(t.label_id as number, t.attributes as [], n, 'immutable'),
        shapes: (t.shapes as Obj[]).map((s) => {
          const {
            elements: _e,
            group: _g,
            label_id: _l,
            ...rest
          } = normShape({ ...s, label_id: t.label_id }, n);
          return { ...rest, attributes: attrs(t.label_id as number, s.attributes as [], n, 'mutable') };
        }),
      }))
      .sort(byJson),
  };
}

type Data = { tags: Obj[]; shapes: Obj[]; tracks: Obj[] };

/**
 * `import_dm_annotations`' groups: per frame, a group of more than one shape keeps its place among the
 * kept ones (numbered from 1 by group), the others are 0; a tag takes its group's new number.
 */
function regroup(d: Data): Data {
  const byFrame = new Map<unknown, Map<number, number>>();
  for (const f of new Set([...d.shapes, ...d.tags].map((o) => o.frame))) {
    const count = new Map<number, number>();
    for (const s of d.shapes.filter((x) => x.frame === f)) {
      const g = (s.group as number) ?? 0;
      count.set(g, (count.get(g) ?? 0) + 1);
    }
    const kept = [...count]
      .filter(([g, n]) => g !== 0 && n > 1)
      .map(([g]) => g)
      .sort((a, b) => a - b);
    byFrame.set(f, new Map(kept.map((g, i) => [g, i + 1])));
  }
  const group = (o: Obj) => byFrame.get(o.frame)?.get((o.group as number) ?? 0) ?? 0;
  return {
    tags: d.tags.map((t) => ({ ...t, group: group(t) })),
    shapes: d.shapes.map((s) => {
      const g = group(s);
      const elements = ((s.elements as Obj[]) ?? []).map((e) => ({ ...e, group: g, z_order: s.z_order }));
      return { ...s, group: g, elements };
    }),
    tracks: d.tracks,
  };
}

// ---- the round trip ---------------------------------------------------------------------------------

/** Writes `data` into the task, exports it in `format` and imports the archive back. */
async function roundTrip(format: string, importer: string, data: Obj) {
  const put = await h.put(`/api/tasks/${taskId}/annotations?org=acme`, data, { as: 'alice' });
  expect(put.status, put.text).toBe(200);
  const stored = await h.get(`/api/tasks/${taskId}/annotations?org=acme`, { as: 'alice' });
  const src = exportSource(h.state(), 'task', taskId);
  if (!src) throw new Error('no export source');
  const bytes = datasetArchive(src, format, false, Date.UTC(2026, 0, 1), 'http://localhost');
  const et = src.tasks[0];
  if (!et) throw new Error('no task');
  const target: ImportTarget = {
    labels: src.allLabels,
    frames: et.frames.map((i) => ({ index: i, frame: exportFrame(et, i) })),
  };
  const imp = importerFor(importer);
  if (!imp) throw new Error(`no importer ${importer}`);
  const imported: ImportedAnnotations = imp.read({ name: 'annotations.zip', bytes }, target);
  return { stored: stored.body as { tags: Obj[]; shapes: Obj[]; tracks: Obj[] }, imported };
}

const all = (p: Partial<Profile>): Profile => ({
  types: [],
  tags: false,
  whole: false,
  groups: false,
  zOrder: false,
  rotation: false,
  attributes: false,
  tracks: false,
  ...p,
});

interface Case {
  format: string;
  importer: string;
  profile: Profile;
  norm: Norm;
  /** What the format keeps of the stored annotations, before both sides are normalized. */
  expect?: (d: { tags: Obj[]; shapes: Obj[]; tracks: Obj[] }) => {
    tags: Obj[];
    shapes: Obj[];
    tracks: Obj[];
  };
  imports?: (d: ImportedAnnotations) => { tags: Obj[]; shapes: Obj[]; tracks: Obj[] };
}

const CASES: Case[] = [
  {
    format: 'CVAT for images 1.1',
    importer: 'CVAT 1.1',
    profile: all({
      types: ['rectangle', 'polygon', 'polyline', 'points', 'ellipse', 'cuboid', 'mask', 'skeleton'],
      tags: true,
      groups: true,
      zOrder: true,
      rotation: true,
      attributes: true,
    }),
    norm: { round: roundTo(2), fillDefaults: false },
  },
  {
    format: 'CVAT for video 1.1',
    importer: 'CVAT 1.1',
    profile: all({ tracks: true }),
    norm: { round: roundTo(2), fillDefaults: false },
  },
  {
    format: 'COCO 1.0',
    importer: 'COCO 1.0',
    profile: all({ types: ['rectangle', 'polygon', 'mask'], rotation: true, attributes: true }),
    norm: { round: roundTo(2), fillDefaults: true },
    // COCO keeps no z_order; a rotated box's rotation is an attribute it reads back.
    expect: (d) => ({ tags: [], shapes: d.shapes.map((s) => ({ ...s, z_order: 0 })), tracks: [] }),
  },
  {
    format: 'YOLO 1.1',
    importer: 'YOLO 1.1',
    profile: all({ types: ['rectangle'], whole: true }),
    norm: { round: roundTo(0), fillDefaults: false },
    expect: (d) => ({
      tags: [],
      shapes: d.shapes.map((s) => ({ ...s, occluded: false, attributes: [] })),
      tracks: [],
    }),
  },
  {
    format: 'Ultralytics YOLO Detection 1.0',
    importer: 'Ultralytics YOLO Detection 1.0',
    profile: all({ types: ['rectangle'], whole: true }),
    norm: { round: roundTo(0), fillDefaults: false },
    expect: (d) => ({
      tags: [],
      shapes: d.shapes.map((s) => ({ ...s, occluded: false, attributes: [] })),
      tracks: [],
    }),
  },
  {
    format: 'Datumaro 1.0',
    importer: 'Datumaro 1.0',
    profile: all({
      types: ['rectangle', 'polygon', 'polyline', 'points', 'ellipse', 'mask', 'skeleton'],
      tags: true,
      groups: true,
      zOrder: true,
      rotation: true,
      attributes: true,
    }),
    norm: { round: roundTo(2), fillDefaults: true },
    // Datumaro's skeleton carries no z_order (its points take the skeleton's: 0).
    expect: (d) =>
      regroup({ ...d, shapes: d.shapes.map((s) => (s.type === 'skeleton' ? { ...s, z_order: 0 } : s)) }),
  },
  {
    format: 'PASCAL VOC 1.1',
    importer: 'PASCAL VOC 1.1',
    profile: all({ types: ['rectangle', 'mask'], tags: true, attributes: true }),
    norm: { round: roundTo(2), fillDefaults: true },
    // Tags are the classification lists (no group, no attributes); boxes keep no z_order or group;
    // masks are what the segmentation images show of them (a later mask paints over an earlier one),
    // without attributes or occlusion.
    // A box's group is its object's number in the frame and a mask's its instance's: a box and a mask
    // of the same number are a group, as Datumaro reads them.
    expect: (d) =>
      regroup({
        tags: uniqueTags(d.tags).map((t) => ({ ...t, group: 0, attributes: [] })),
        shapes: vocMasks(d.shapes).map((s) => ({ ...s, z_order: 0 })),
        tracks: [],
      }),
  },
  {
    format: 'COCO Keypoints 1.0',
    importer: 'COCO Keypoints 1.0',
    profile: all({ types: ['skeleton'] }),
    norm: { round: roundTo(2), fillDefaults: false },
    expect: (d) => ({
      tags: [],
      shapes: d.shapes.map((s) => ({
        ...s,
        z_order: 0,
        group: 0,
        elements: (s.elements as Obj[]).map((e) => ({ ...e, z_order: 0, group: 0 })),
      })),
      tracks: [],
    }),
  },
];

/** A frame's masks as VOC's segmentation images keep them: each the pixels no later mask paints over. */
function vocMasks(shapes: Obj[]): Obj[] {
  const out: Obj[] = [];
  const numbers = new Map<string, number>();
  const number = (s: Obj) => {
    const key = `${s.frame}/${s.type}`;
    numbers.set(key, (numbers.get(key) ?? 0) + 1);
    return numbers.get(key) as number;
  };
  shapes.forEach((s, i) => {
    const group = number(s);
    if (s.type !== 'mask') {
      out.push({ ...s, group });
      return;
    }
    const later = new Set(
      shapes
        .slice(i + 1)
        .filter((o) => o.type === 'mask' && o.frame === s.frame)
        .flatMap((o) => maskPixels(o.points as number[]).split(' ')),
    );
    const own = maskPixels(s.points as number[])
      .split(' ')
      .filter((p) => p !== '' && !later.has(p));
    if (own.length > 0)
      out.push({ ...s, group, pixels: own.sort().join(' '), occluded: false, attributes: [] });
  });
  return out;
}

/** A frame's tags of one label once: VOC's classification lists say whether a label is on a frame. */
function uniqueTags(tags: Obj[]): Obj[] {
  const seen = new Set<string>();
  return tags.filter((t) => {
    const key = `${t.frame}/${t.label_id}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

describe('export then import gives the same annotations', () => {
  for (const c of CASES) {
    it(`${c.format} read back by ${c.importer}`, async () => {
      await fc.assert(
        fc.asyncProperty(dataArb(c.profile), async (data) => {
          const { stored, imported } = await roundTrip(c.format, c.importer, data as Obj);
          const expected = c.expect ? c.expect(stored) : stored;
          const got = imported as unknown as { tags: Obj[]; shapes: Obj[]; tracks: Obj[] };
          expect(normalize(got, c.norm)).toEqual(normalize(expected, c.norm));
          for (const o of [...imported.tags, ...imported.shapes, ...imported.tracks])
            expect(o.source).toBe('file');
        }),
        { seed: SEED, numRuns: RUNS, endOnFailure: true },
      );
    });
  }
});
