/**
 * Exports carry the annotations (issue 37): a seeded task with a tag, a shape of every type, a
 * skeleton, a group, attributes and a track, exported in CVAT for images 1.1 and COCO 1.0, unzipped
 * (fflate, independently of the simulator's writer) and checked against what CVAT 2.73's exporters write
 * (`formats/cvat.py` `dump_as_cvat_annotation`; Datumaro's `coco_instances` after `EllipsesToMasks`).
 */
import { inflateSync } from 'node:zlib';
import { strFromU8, unzipSync } from 'fflate';
import { afterEach, describe, expect, it } from 'vitest';
import { zipArchive } from '../src/domain/exports/zip';
import { FORMAT_LABELS } from './support/format-labels';
import { createHarness, type Harness, TEAM } from './support/harness';

let h: Harness;
afterEach(() => h?.close());

const CVAT = 'CVAT for images 1.1';
const COCO = 'COCO 1.0';
const VIDEO = 'CVAT for video 1.1';
const YOLO = 'YOLO 1.1';
const ULTRALYTICS = 'Ultralytics YOLO Detection 1.0';
const VOC = 'PASCAL VOC 1.1';
const DATUMARO = 'Datumaro 1.0';
const KEYPOINTS = 'COCO Keypoints 1.0';

interface Label {
  id: number;
  name: string;
  attributes: { id: number; name: string }[];
  sublabels: { id: number; name: string }[];
}

/**
 * Task "T" (10 frames, jobs of frames 0-4 and 5-9, subset "") with labels car (model: select,
 * immutable; parked: checkbox; speed: number), person and a skeleton s1 of points 1 and 2.
 */
async function world(size = 10) {
  h = createHarness();
  const seeded = h.seed({
    ...TEAM,
    tasks: [
      {
        name: 'T',
        owner: 'alice',
        org: 'acme',
        size,
        segment_size: 5,
        labels: FORMAT_LABELS,
      },
    ],
  });
  const task = seeded.tasks.T as { id: number; jobs: number[] };
  const listed = await h.get(`/api/labels?task_id=${task.id}&org=acme`, { as: 'alice' });
  const labels = new Map<string, Label>(listed.body.results.map((l: Label) => [l.name, l]));
  const label = (n: string) => labels.get(n) as Label;
  return { task, label };
}

/** The annotations the tests export: every object kind on frames 0-4, a car track on frames 5-9. */
function annotations(label: (n: string) => Label) {
  const car = label('car');
  const person = label('person');
  const s1 = label('s1');
  const [model, , speed] = car.attributes.map((a) => a.id);
  return {
    version: 0,
    tags: [{ frame: 0, label_id: person.id, group: 0, source: 'manual', attributes: [] }],
    shapes: [
      {
        type: 'rectangle',
        frame: 0,
        label_id: car.id,
        points: [10, 20, 110.5, 220.25],
        z_order: 1,
        group: 3,
        occluded: true,
        source: 'auto',
        attributes: [{ spec_id: model, value: 'volvo' }],
      },
      {
        type: 'polygon',
        frame: 0,
        label_id: person.id,
        points: [0, 0, 10, 0, 10, 10, 0, 10],
        z_order: 0,
        group: 3,
        attributes: [],
      },
      { type: 'polyline', frame: 1, label_id: person.id, points: [1, 2, 3.125, 4], attributes: [] },
      { type: 'points', frame: 1, label_id: person.id, points: [5, 6], attributes: [] },
      {
        type: 'ellipse',
        frame: 2,
        label_id: car.id,
        points: [50, 50, 60, 45],
        rotation: 30,
        attributes: [{ spec_id: speed, value: '7.5' }],
      },
      {
        type: 'cuboid',
        frame: 2,
        label_id: car.id,
        points: Array.from({ length: 16 }, (_, i) => i + 0.5),
        attributes: [],
      },
      // A 3×2 mask at (10, 10): one pixel off, four on, one off (row-major in its box).
      { type: 'mask', frame: 3, label_id: person.id, points: [1, 4, 1, 10, 10, 12, 11], attributes: [] },
      {
        type: 'skeleton',
        frame: 4,
        label_id: s1.id,
        points: [],
        attributes: [],
        elements: [
          { type: 'points', frame: 4, label_id: s1.sublabels[0]?.id, points: [1, 1], attributes: [] },
          {
            type: 'points',
            frame: 4,
            label_id: s1.sublabels[1]?.id,
            points: [2, 2],
            outside: true,
            attributes: [],
          },
        ],
      },
    ],
    tracks: [
      {
        frame: 5,
        label_id: car.id,
        group: 0,
        source: 'manual',
        attributes: [{ spec_id: model, value: 'volvo' }],
        shapes: [
          { type: 'rectangle', frame: 5, points: [0, 0, 10, 10], attributes: [] },
          { type: 'rectangle', frame: 7, points: [20, 20, 30, 30], attributes: [] },
          { type: 'rectangle', frame: 9, points: [20, 20, 30, 30], outside: true, attributes: [] },
        ],
      },
    ],
  };
}

const auth = (user: string) => `Basic ${Buffer.from(`${user}:password`).toString('base64')}`;

/** Exports `resource` in `format` as alice, lets the worker finish and answers the archive's bytes. */
async function archive(resource: string, format: string, saveImages = false) {
  const q = new URLSearchParams({ org: 'acme', format, save_images: String(saveImages) });
  const started = await h.post(`/api/${resource}/dataset/export?${q}`, undefined, { as: 'alice' });
  expect(started.status, started.text).toBe(202);
  h.advance('2s');
  const request = await h.get(`/api/requests/${encodeURIComponent(started.body.rq_id)}`, { as: 'alice' });
  expect(request.body.status).toBe('finished');
  const u = new URL(request.body.result_url);
  u.searchParams.set('org', 'acme');
  const res = await h.sim.app.request(u.toString(), { headers: { authorization: auth('alice') } });
  expect(res.status).toBe(200);
  return new Uint8Array(await res.arrayBuffer());
}

/** The files of the archive {@link archive} answers. */
const exported = async (resource: string, format: string, saveImages = false) =>
  unzipSync(await archive(resource, format, saveImages));

async function annotatedTask() {
  const w = await world();
  const put = await h.put(`/api/tasks/${w.task.id}/annotations?org=acme`, annotations(w.label), {
    as: 'alice',
  });
  expect(put.status, put.text).toBe(200);
  return w;
}

/** The `<image>` block of frame `id` in an annotations.xml. */
const imageBlock = (xml: string, id: number) => {
  const start = xml.indexOf(`<image id="${id}" `);
  return xml.slice(start, xml.indexOf('</image>', start) + '</image>'.length);
};

describe('CVAT for images 1.1 with annotations', () => {
  it('writes every shape type, tags, attributes, groups and z_order as dump_as_cvat_annotation does', async () => {
    const { task } = await annotatedTask();
    const files = await exported(`tasks/${task.id}`, CVAT);
    expect(Object.keys(files)).toEqual(['annotations.xml']);
    const xml = strFromU8(files['annotations.xml'] as Uint8Array);
    // Frame 0: shapes by z_order (the polygon, then the box), then the tag; the box's attributes with
    // the defaults CVAT completes them with, in spec order after the given one.
    expect(imageBlock(xml, 0)).toBe(
      [
        '<image id="0" name="frame_000000.jpg" width="640" height="480">',
        '    <polygon label="person" source="manual" occluded="0" points="0.00,0.00;10.00,0.00;10.00,10.00;0.00,10.00" z_order="0" group_id="3">',
        '    </polygon>',
        '    <box label="car" source="auto" occluded="1" xtl="10.00" ytl="20.00" xbr="110.50" ybr="220.25" z_order="1" group_id="3">',
        '      <attribute name="model">volvo</attribute>',
        '      <attribute name="parked">false</attribute>',
        '      <attribute name="speed">5</attribute>',
        '    </box>',
        '    <tag label="person" source="manual">',
        '    </tag>',
        '  </image>',
      ].join('\n'),
    );
    // Python's "{:.2f}" rounds an exact tie to even: 3.125 -> 3.12.
    expect(imageBlock(xml, 1)).toContain(
      '<polyline label="person" source="manual" occluded="0" points="1.00,2.00;3.12,4.00" z_order="0">',
    );
    expect(imageBlock(xml, 1)).toContain(
      '<points label="person" source="manual" occluded="0" points="5.00,6.00" z_order="0">',
    );
    const frame2 = imageBlock(xml, 2);
    expect(frame2).toContain(
      '<ellipse label="car" source="manual" occluded="0" cx="50.00" cy="50.00" rx="10.00" ry="5.00" rotation="30.00" z_order="0">\n      <attribute name="speed">7.5</attribute>\n      <attribute name="model">mazda</attribute>\n      <attribute name="parked">false</attribute>\n    </ellipse>',
    );
    expect(frame2).toContain(
      '<cuboid label="car" source="manual" occluded="0" xtl1="0.50" ytl1="1.50" xbl1="2.50" ybl1="3.50" xtr1="4.50" ytr1="5.50" xbr1="6.50" ybr1="7.50" xtl2="8.50" ytl2="9.50" xbl2="10.50" ybl2="11.50" xtr2="12.50" ytr2="13.50" xbr2="14.50" ybr2="15.50" z_order="0">',
    );
    expect(imageBlock(xml, 3)).toContain(
      '<mask label="person" source="manual" occluded="0" rle="1, 4, 1" left="10" top="10" width="3" height="2" z_order="0">',
    );
    // A skeleton: no occluded or points of its own; its elements carry outside, no z_order.
    expect(imageBlock(xml, 4)).toBe(
      [
        '<image id="4" name="frame_000004.jpg" width="640" height="480">',
        '    <skeleton label="s1" source="manual" z_order="0">',
        '      <points label="1" source="manual" outside="0" occluded="0" points="1.00,1.00">',
        '      </points>',
        '      <points label="2" source="manual" outside="1" occluded="0" points="2.00,2.00">',
        '      </points>',
        '    </skeleton>',
        '  </image>',
      ].join('\n'),
    );
  });

  it('writes a track as its shape on each frame: keyframes, interpolated frames, none once outside', async () => {
    const { task } = await annotatedTask();
    const xml = strFromU8((await exported(`tasks/${task.id}`, CVAT))['annotations.xml'] as Uint8Array);
    const boxOn = (frame: number) => {
      const m = imageBlock(xml, frame).match(/<box [^>]*>/);
      return m?.[0];
    };
    expect(boxOn(5)).toBe(
      '<box label="car" source="manual" occluded="0" xtl="0.00" ytl="0.00" xbr="10.00" ybr="10.00" z_order="0">',
    );
    expect(boxOn(6)).toBe(
      '<box label="car" source="manual" occluded="0" xtl="10.00" ytl="10.00" xbr="20.00" ybr="20.00" z_order="0">',
    );
    expect(boxOn(7)).toContain('xtl="20.00" ytl="20.00" xbr="30.00" ybr="30.00"');
    expect(boxOn(8)).toContain('xtl="20.00" ytl="20.00" xbr="30.00" ybr="30.00"');
    expect(boxOn(9)).toBeUndefined();
    // A track shape's attributes: its own (mutable, defaults) then the track's.
    expect(imageBlock(xml, 6)).toContain(
      '<attribute name="parked">false</attribute>\n      <attribute name="speed">5</attribute>\n      <attribute name="model">volvo</attribute>',
    );
  });

  it('writes the meta block with labels, attributes, sublabels and the skeleton, and a job export its own frames', async () => {
    const { task } = await annotatedTask();
    const xml = strFromU8((await exported(`tasks/${task.id}`, CVAT))['annotations.xml'] as Uint8Array);
    expect(xml).toContain(
      [
        '        <label>',
        '          <name>car</name>',
        '          <color>#ff0000</color>',
        '          <type>any</type>',
        '          <attributes>',
        '            <attribute>',
        '              <name>model</name>',
        '              <mutable>False</mutable>',
        '              <input_type>select</input_type>',
        '              <default_value>mazda</default_value>',
        '              <values>mazda\nvolvo</values>',
        '            </attribute>',
      ].join('\n'),
    );
    expect(xml).toContain('          <name>1</name>\n          <color>');
    expect(xml).toMatch(
      /<type>points<\/type>\n {10}<attributes>\n {10}<\/attributes>\n {10}<parent>s1<\/parent>/,
    );
    expect(xml).toContain(
      '<segments>\n        <segment>\n          <id>1</id>\n          <start>0</start>\n          <stop>4</stop>\n          <url>http://localhost/api/jobs/1</url>',
    );

    const job = strFromU8((await exported(`jobs/${task.jobs[1]}`, CVAT))['annotations.xml'] as Uint8Array);
    expect(job).toContain(`    <job>\n      <id>${task.jobs[1]}</id>\n      <size>5</size>`);
    expect([...job.matchAll(/<image id="(\d+)"/g)].map((m) => m[1])).toEqual(['5', '6', '7', '8', '9']);
    expect(job.match(/<box /g)).toHaveLength(4);
    expect(job).not.toContain('<tag ');
  });
});

describe('CVAT for video 1.1 with annotations', () => {
  it('writes tracks first with every frame they have a shape on, then each shape as a track of its own', async () => {
    const { task } = await annotatedTask();
    const xml = strFromU8((await exported(`tasks/${task.id}`, VIDEO))['annotations.xml'] as Uint8Array);
    expect(xml).toContain('    <task>\n      <id>1</id>');
    expect(xml).not.toContain('<image ');
    expect(xml).not.toContain('<tag ');
    const tracks = [...xml.matchAll(/<track [^>]*>/g)].map((m) => m[0]);
    // The car track, then the eight shapes in frame order (ids from 0).
    expect(tracks).toEqual([
      '<track id="0" label="car" source="manual">',
      '<track id="1" label="car" source="auto" group_id="3">',
      '<track id="2" label="person" source="manual" group_id="3">',
      '<track id="3" label="person" source="manual">',
      '<track id="4" label="person" source="manual">',
      '<track id="5" label="car" source="manual">',
      '<track id="6" label="car" source="manual">',
      '<track id="7" label="person" source="manual">',
      '<track id="8" label="s1" source="manual">',
    ]);
    const track = (id: number) => {
      const start = xml.indexOf(`<track id="${id}" `);
      return xml.slice(start, xml.indexOf('</track>', start) + '</track>'.length);
    };
    // Keyframes 5, 7 and 9 (outside), frame 6 interpolated, frame 8 carried; attributes then the track's.
    expect(track(0)).toBe(
      [
        '<track id="0" label="car" source="manual">',
        '    <box frame="5" keyframe="1" outside="0" occluded="0" xtl="0.00" ytl="0.00" xbr="10.00" ybr="10.00" z_order="0">',
        '      <attribute name="parked">false</attribute>',
        '      <attribute name="speed">5</attribute>',
        '      <attribute name="model">volvo</attribute>',
        '    </box>',
        '    <box frame="6" keyframe="0" outside="0" occluded="0" xtl="10.00" ytl="10.00" xbr="20.00" ybr="20.00" z_order="0">',
        '      <attribute name="parked">false</attribute>',
        '      <attribute name="speed">5</attribute>',
        '      <attribute name="model">volvo</attribute>',
        '    </box>',
        '    <box frame="7" keyframe="1" outside="0" occluded="0" xtl="20.00" ytl="20.00" xbr="30.00" ybr="30.00" z_order="0">',
        '      <attribute name="parked">false</attribute>',
        '      <attribute name="speed">5</attribute>',
        '      <attribute name="model">volvo</attribute>',
        '    </box>',
        '    <box frame="8" keyframe="0" outside="0" occluded="0" xtl="20.00" ytl="20.00" xbr="30.00" ybr="30.00" z_order="0">',
        '      <attribute name="parked">false</attribute>',
        '      <attribute name="speed">5</attribute>',
        '      <attribute name="model">volvo</attribute>',
        '    </box>',
        '    <box frame="9" keyframe="1" outside="1" occluded="0" xtl="20.00" ytl="20.00" xbr="30.00" ybr="30.00" z_order="0">',
        '      <attribute name="parked">false</attribute>',
        '      <attribute name="speed">5</attribute>',
        '      <attribute name="model">volvo</attribute>',
        '    </box>',
        '  </track>',
      ].join('\n'),
    );
    // A shape: its keyframe, then an outside keyframe on the next frame.
    expect(track(3)).toBe(
      [
        '<track id="3" label="person" source="manual">',
        '    <polyline frame="1" keyframe="1" outside="0" occluded="0" points="1.00,2.00;3.12,4.00" z_order="0">',
        '    </polyline>',
        '    <polyline frame="2" keyframe="1" outside="1" occluded="0" points="1.00,2.00;3.12,4.00" z_order="0">',
        '    </polyline>',
        '  </track>',
      ].join('\n'),
    );
    // A skeleton: its points inside each of its shapes, with their label and no frame or z_order.
    expect(track(8)).toBe(
      [
        '<track id="8" label="s1" source="manual">',
        '    <skeleton frame="4" keyframe="1" z_order="0">',
        '      <points label="1" keyframe="1" outside="0" occluded="0" points="1.00,1.00">',
        '      </points>',
        '      <points label="2" keyframe="1" outside="1" occluded="0" points="2.00,2.00">',
        '      </points>',
        '    </skeleton>',
        '    <skeleton frame="5" keyframe="1" z_order="0">',
        '      <points label="1" keyframe="1" outside="1" occluded="0" points="1.00,1.00">',
        '      </points>',
        '      <points label="2" keyframe="1" outside="1" occluded="0" points="2.00,2.00">',
        '      </points>',
        '    </skeleton>',
        '  </track>',
      ].join('\n'),
    );
    expect(xml.endsWith('  </track>\n</annotations>\n')).toBe(true);
  });
});

describe('YOLO 1.1 and Ultralytics YOLO Detection 1.0 with annotations', () => {
  const text = (files: Record<string, Uint8Array>, name: string) => strFromU8(files[name] as Uint8Array);

  it('YOLO 1.1: obj.data, obj.names, the subset list and a label file per frame (the default subset is train)', async () => {
    const { task } = await annotatedTask();
    const files = await exported(`tasks/${task.id}`, YOLO, true);
    const names = Object.keys(files).sort();
    expect(names.filter((n) => !n.startsWith('obj_train_data/'))).toEqual([
      'obj.data',
      'obj.names',
      'train.txt',
    ]);
    const frames = Array.from({ length: 10 }, (_, i) => `frame_00000${i}`);
    expect(names.filter((n) => n.startsWith('obj_train_data/'))).toEqual(
      frames.flatMap((f) => [`obj_train_data/${f}.jpg`, `obj_train_data/${f}.txt`]),
    );
    expect(text(files, 'obj.names')).toBe('car\nperson\ns1\n1\n2\n');
    expect(text(files, 'obj.data')).toBe(
      'classes = 5\ntrain = data/train.txt\nnames = data/obj.names\nbackup = backup/\n',
    );
    expect(text(files, 'train.txt')).toBe(frames.map((f) => `data/obj_train_data/${f}.jpg\n`).join(''));
    // Boxes only (the polygon, ellipse, mask… are not YOLO objects); values as Python's "%.6f".
    expect(text(files, 'obj_train_data/frame_000000.txt')).toBe('0 0.094141 0.250260 0.157031 0.417187\n');
    expect(text(files, 'obj_train_data/frame_000002.txt')).toBe('');
    // The track's boxes: frame 5 (an exact tie, 0.0078125, rounds to even), 6 interpolated, none at 9.
    expect(text(files, 'obj_train_data/frame_000005.txt')).toBe('0 0.007812 0.010417 0.015625 0.020833\n');
    expect(text(files, 'obj_train_data/frame_000006.txt')).toBe('0 0.023438 0.031250 0.015625 0.020833\n');
    expect(text(files, 'obj_train_data/frame_000009.txt')).toBe('');
  });

  it('Ultralytics YOLO Detection 1.0: data.yaml, the subset list, labels/<subset>/ for frames with boxes, images/<subset>/', async () => {
    const { task } = await annotatedTask();
    const files = await exported(`tasks/${task.id}`, ULTRALYTICS, true);
    expect(
      Object.keys(files)
        .filter((n) => !n.startsWith('images/'))
        .sort(),
    ).toEqual([
      'data.yaml',
      'labels/train/frame_000000.txt',
      'labels/train/frame_000005.txt',
      'labels/train/frame_000006.txt',
      'labels/train/frame_000007.txt',
      'labels/train/frame_000008.txt',
      'train.txt',
    ]);
    expect(Object.keys(files)).toContain('images/train/frame_000009.jpg');
    // yaml.dump: keys sorted, the top-level labels by index.
    expect(text(files, 'data.yaml')).toBe(
      'names:\n  0: car\n  1: person\n  2: s1\npath: .\ntrain: train.txt\n',
    );
    expect(text(files, 'train.txt').split('\n')[0]).toBe('data/images/train/frame_000000.jpg');
    expect(text(files, 'labels/train/frame_000000.txt')).toBe('0 0.094141 0.250260 0.157031 0.417187\n');
  });
});

/** The RGB of pixel (x, y) of an 8-bit RGB PNG whose rows are unfiltered (the simulator's masks). */
function pngPixel(png: Uint8Array, x: number, y: number): number[] {
  const b = Buffer.from(png);
  const width = b.readUInt32BE(16);
  const idat: Buffer[] = [];
  for (let at = 8; at < b.length; ) {
    const length = b.readUInt32BE(at);
    if (b.toString('latin1', at + 4, at + 8) === 'IDAT') idat.push(b.subarray(at + 8, at + 8 + length));
    at += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const row = y * (width * 3 + 1);
  expect(raw[row]).toBe(0);
  return [...raw.subarray(row + 1 + x * 3, row + 4 + x * 3)];
}

describe('PASCAL VOC 1.1 with annotations', () => {
  it('writes an annotation file a frame, the ImageSets lists, the label map and the masks as PNG', async () => {
    const { task } = await annotatedTask();
    const files = await exported(`tasks/${task.id}`, VOC, true);
    const text = (name: string) => strFromU8(files[name] as Uint8Array);
    const names = Object.keys(files).sort();
    expect(names.filter((n) => n.startsWith('Annotations/'))).toHaveLength(10);
    expect(names.filter((n) => n.startsWith('JPEGImages/'))).toHaveLength(10);
    expect(names.filter((n) => !/^(Annotations|JPEGImages)\//.test(n))).toEqual([
      'ImageSets/Action/default.txt',
      'ImageSets/Layout/default.txt',
      'ImageSets/Main/1_default.txt',
      'ImageSets/Main/2_default.txt',
      'ImageSets/Main/background_default.txt',
      'ImageSets/Main/car_default.txt',
      'ImageSets/Main/default.txt',
      'ImageSets/Main/person_default.txt',
      'ImageSets/Main/s1_default.txt',
      'ImageSets/Segmentation/default.txt',
      'SegmentationClass/frame_000002.png',
      'SegmentationClass/frame_000003.png',
      'SegmentationObject/frame_000002.png',
      'SegmentationObject/frame_000003.png',
      'labelmap.txt',
    ]);
    expect(text('labelmap.txt')).toBe(
      '# label:color_rgb:parts:actions\nbackground:0,0,0::\ncar:128,0,0::\nperson:0,128,0::\ns1:128,128,0::\n1:0,0,128::\n2:128,0,128::\n',
    );
    expect(text('ImageSets/Main/default.txt')).toBe(
      Array.from({ length: 10 }, (_, i) => `frame_00000${i}\n`).join(''),
    );
    // The tag on frame 0: "% d" of 1 and -1.
    expect(text('ImageSets/Main/person_default.txt')).toBe('frame_000000  1\n');
    expect(text('ImageSets/Main/car_default.txt')).toBe('frame_000000 -1\n');
    // Frame 9 holds nothing (the track is outside there).
    expect(text('ImageSets/Layout/default.txt')).toBe('frame_000009\n');
    expect(text('ImageSets/Segmentation/default.txt')).toBe('frame_000002\nframe_000003\nframe_000009\n');
    expect(text('Annotations/frame_000000.xml')).toBe(
      [
        '<annotation>',
        '  <folder>frame</folder>',
        '  <filename>frame_000000.jpg</filename>',
        '  <source>',
        '    <database>Unknown</database>',
        '    <annotation>Unknown</annotation>',
        '    <image>Unknown</image>',
        '  </source>',
        '  <size>',
        '    <width>640</width>',
        '    <height>480</height>',
        '    <depth></depth>',
        '  </size>',
        '  <segmented>0</segmented>',
        '  <object>',
        '    <name>car</name>',
        '    <truncated>0</truncated>',
        '    <occluded>1</occluded>',
        '    <difficult>0</difficult>',
        '    <bndbox>',
        '      <xmin>10.0</xmin>',
        '      <ymin>20.0</ymin>',
        '      <xmax>110.5</xmax>',
        '      <ymax>220.25</ymax>',
        '    </bndbox>',
        '    <attributes>',
        ...[
          ['model', 'volvo'],
          ['parked', 'False'],
          ['speed', '5.0'],
          ['rotation', '0.0'],
        ].flatMap(([n, v]) => [
          '      <attribute>',
          `        <name>${n}</name>`,
          `        <value>${v}</value>`,
          '      </attribute>',
        ]),
        '    </attributes>',
        '  </object>',
        '</annotation>',
        '',
      ].join('\n'),
    );
    expect(text('Annotations/frame_000003.xml')).toContain('<segmented>1</segmented>');
    // Frame 3's mask: person's class colour where it is set, background elsewhere; instance 1.
    const cls = files['SegmentationClass/frame_000003.png'] as Uint8Array;
    expect(pngPixel(cls, 11, 10)).toEqual([0, 128, 0]);
    expect(pngPixel(cls, 10, 10)).toEqual([0, 0, 0]);
    expect(pngPixel(files['SegmentationObject/frame_000003.png'] as Uint8Array, 10, 11)).toEqual([128, 0, 0]);
  });
});

describe('COCO Keypoints 1.0 with annotations', () => {
  it('writes skeletons alone, and the instances of groups that have one, with their keypoints', async () => {
    const { task, label } = await annotatedTask();
    const s1 = label('s1');
    const [p1, p2] = s1.sublabels.map((l) => l.id);
    // Frame 1 gains a box and a skeleton of one group: one instance with the skeleton's points.
    const patch = await h.patch(
      `/api/tasks/${task.id}/annotations?action=create&org=acme`,
      {
        version: 0,
        tags: [],
        tracks: [],
        shapes: [
          {
            type: 'rectangle',
            frame: 1,
            label_id: label('person').id,
            points: [0, 0, 40, 20],
            group: 7,
            attributes: [],
          },
          {
            type: 'skeleton',
            frame: 1,
            label_id: s1.id,
            group: 7,
            points: [],
            attributes: [],
            elements: [
              { type: 'points', frame: 1, label_id: p1, points: [5, 5], occluded: true, attributes: [] },
              { type: 'points', frame: 1, label_id: p2, points: [30, 15], attributes: [] },
            ],
          },
        ],
      },
      { as: 'alice' },
    );
    expect(patch.status, patch.text).toBe(200);
    const files = await exported(`tasks/${task.id}`, KEYPOINTS);
    expect(Object.keys(files)).toEqual(['annotations/person_keypoints_default.json']);
    const coco = JSON.parse(strFromU8(files['annotations/person_keypoints_default.json'] as Uint8Array));
    expect(coco.categories).toEqual([
      { id: 1, name: 'car', supercategory: '', keypoints: [], skeleton: [] },
      { id: 2, name: 'person', supercategory: '', keypoints: [], skeleton: [] },
      { id: 3, name: 's1', supercategory: '', keypoints: ['1', '2'], skeleton: [] },
    ]);
    expect(coco.images).toHaveLength(10);
    expect(coco.annotations).toEqual([
      {
        id: 1,
        image_id: 2,
        category_id: 2,
        segmentation: [],
        area: 800,
        bbox: [0, 0, 40, 20],
        iscrowd: 0,
        attributes: { occluded: false, rotation: 0 },
        keypoints: [5, 5, 1, 30, 15, 2],
        num_keypoints: 2,
      },
      {
        id: 2,
        image_id: 5,
        category_id: 3,
        segmentation: [],
        area: 0,
        bbox: [1, 1, 0, 0],
        iscrowd: 0,
        attributes: { occluded: false, keyframe: false },
        keypoints: [1, 1, 2, 2, 2, 0],
        num_keypoints: 1,
      },
    ]);
  });
});

describe('Datumaro 1.0 with annotations', () => {
  it('writes the categories and an item a frame with every annotation Datumaro holds of it', async () => {
    const { task } = await annotatedTask();
    const files = await exported(`tasks/${task.id}`, DATUMARO, true);
    expect(Object.keys(files).filter((n) => !n.startsWith('images/'))).toEqual(['annotations/default.json']);
    expect(Object.keys(files)).toContain('images/default/frame_000009.jpg');
    const text = strFromU8(files['annotations/default.json'] as Uint8Array);
    const dm = JSON.parse(text);
    expect(Object.keys(dm)).toEqual(['info', 'categories', 'items']);
    expect(dm.categories.label).toEqual({
      labels: [
        { name: 'car', parent: '', attributes: [] },
        { name: 'person', parent: '', attributes: [] },
        { name: 's1', parent: '', attributes: [] },
        { name: '1', parent: 's1', attributes: [] },
        { name: '2', parent: 's1', attributes: [] },
      ],
      attributes: ['model', 'occluded', 'parked', 'speed'],
    });
    expect(dm.categories.points).toEqual({ items: [{ label_id: 2, labels: ['1', '2'], joints: [] }] });
    expect(dm.items).toHaveLength(10);
    const [frame0, frame1, frame2, frame3, frame4] = dm.items;
    expect(Object.keys(frame0)).toEqual(['id', 'annotations', 'attr', 'image']);
    expect(frame0.id).toBe('frame_000000');
    expect(frame0.attr).toEqual({ frame: 0 });
    expect(frame0.image).toEqual({ path: 'frame_000000.jpg', size: [480, 640] });
    // The tag first, then the shapes by z_order.
    expect(frame0.annotations).toEqual([
      { id: 0, type: 'label', attributes: {}, group: 0, label_id: 1 },
      {
        id: 0,
        type: 'polygon',
        attributes: { occluded: false },
        group: 3,
        label_id: 1,
        points: [0, 0, 10, 0, 10, 10, 0, 10],
        z_order: 0,
      },
      {
        id: 0,
        type: 'bbox',
        attributes: { model: 'volvo', parked: false, speed: 5, occluded: true, rotation: 0 },
        group: 3,
        label_id: 0,
        z_order: 1,
        bbox: [10, 20, 100.5, 200.25],
      },
    ]);
    expect(text).toContain('"bbox":[10.0,20.0,100.5,200.25]');
    expect(frame1.annotations.map((a: { type: string }) => a.type)).toEqual(['polyline', 'points']);
    expect(frame1.annotations[1].visibility).toEqual([2]);
    // The ellipse as its box's corners; the cuboid is not written.
    expect(frame2.annotations).toEqual([
      {
        id: 0,
        type: 'ellipse',
        attributes: { model: 'mazda', parked: false, speed: 7.5, occluded: false, rotation: 30 },
        group: 0,
        label_id: 0,
        points: [40, 45, 60, 55],
        z_order: 0,
      },
    ]);
    // The mask as COCO's compressed run lengths over the image.
    expect(frame3.annotations[0]).toMatchObject({ type: 'mask', label_id: 1, rle: { size: [480, 640] } });
    // pycocotools' rleToString of the runs [4811, 1, 478, 2, 478, 1, 301429].
    expect(frame3.annotations[0].rle.counts).toBe('[f41n>10OglU9');
    // The skeleton: each point x, y, visibility (2 visible, 0 absent) in the category's order.
    expect(frame4.annotations).toEqual([
      {
        id: 0,
        type: 'skeleton',
        attributes: { occluded: false, keyframe: false },
        group: 0,
        label_id: 2,
        points: [1, 1, 2, 2, 2, 0],
        points_attributes: [{}, {}],
      },
    ]);
  });
});

describe('COCO 1.0 with annotations', () => {
  it('writes instances as Datumaro does: groups joined, masks and ellipses as crowd run lengths, attributes typed', async () => {
    const { task } = await annotatedTask();
    const files = await exported(`tasks/${task.id}`, COCO, true);
    expect(Object.keys(files)[0]).toBe('annotations/instances_default.json');
    expect(Object.keys(files)).toContain('images/default/frame_000009.jpg');
    const text = strFromU8(files['annotations/instances_default.json'] as Uint8Array);
    const coco = JSON.parse(text);
    expect(coco.categories).toEqual([
      { id: 1, name: 'car', supercategory: '' },
      { id: 2, name: 'person', supercategory: '' },
      { id: 3, name: 's1', supercategory: '' },
      { id: 4, name: '1', supercategory: 's1' },
      { id: 5, name: '2', supercategory: 's1' },
    ]);
    expect(coco.images.map((i: { id: number }) => i.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    // Frame 0: the box and the polygon of group 3 are one instance; its leader is the box (larger).
    const byImage = (id: number) => coco.annotations.filter((a: { image_id: number }) => a.image_id === id);
    expect(byImage(1)).toEqual([
      {
        id: 1,
        image_id: 1,
        category_id: 1,
        segmentation: [[0, 0, 10, 0, 10, 10, 0, 10]],
        area: 100,
        bbox: [10, 20, 100.5, 200.25],
        iscrowd: 0,
        attributes: { model: 'volvo', parked: false, speed: 5, occluded: true, rotation: 0 },
      },
    ]);
    // Floats are written as Python writes them.
    expect(text).toContain(
      '"segmentation":[[0.0,0.0,10.0,0.0,10.0,10.0,0.0,10.0]],"area":100.0,"bbox":[10.0,20.0,100.5,200.25]',
    );
    expect(text).toContain(
      '"attributes":{"model":"volvo","parked":false,"speed":5.0,"occluded":true,"rotation":0.0}',
    );
    // Polylines and points are not instances.
    expect(byImage(2)).toEqual([]);
    // Frame 2: the ellipse as a mask (crowd); the cuboid is not an instance.
    const [ellipse, ...rest] = byImage(3);
    expect(rest).toEqual([]);
    expect(ellipse).toMatchObject({ category_id: 1, iscrowd: 1, attributes: { speed: 7.5, rotation: 30 } });
    expect(ellipse.segmentation.size).toEqual([480, 640]);
    const ones = ellipse.segmentation.counts.filter((_: number, i: number) => i % 2 === 1);
    expect(ones.reduce((a: number, b: number) => a + b, 0)).toBe(ellipse.area);
    // Frame 3: the mask's four pixels at x 11-12, y 10 and x 10-11, y 11, column-major from (0, 0).
    const mask = byImage(4)[0];
    expect(mask).toMatchObject({ category_id: 2, iscrowd: 1, area: 4, bbox: [10, 10, 3, 2] });
    expect(mask.segmentation.counts.slice(0, 7)).toEqual([
      10 * 480 + 11,
      1,
      478,
      2,
      478,
      1,
      640 * 480 - (12 * 480 + 11),
    ]);
    // Frame 4: a skeleton is not an instance.
    expect(byImage(5)).toEqual([]);
    // The track's boxes on frames 5-8 carry their track id and keyframe flag, attributes in spec order.
    const track = { model: 'volvo', parked: false, speed: 5, occluded: false, rotation: 0, track_id: 0 };
    expect([6, 7, 8, 9, 10].map((i) => byImage(i).map((a: { attributes: unknown }) => a.attributes))).toEqual(
      [
        [{ ...track, keyframe: true }],
        [{ ...track, keyframe: false }],
        [{ ...track, keyframe: true }],
        [{ ...track, keyframe: false }],
        [],
      ],
    );
    expect(text).toContain(
      '"attributes":{"model":"volvo","parked":false,"speed":5.0,"occluded":false,"rotation":0.0,"track_id":0,"keyframe":true}',
    );
    expect(byImage(7)[0].bbox).toEqual([10, 10, 10, 10]);
    expect(coco.annotations.map((a: { id: number }) => a.id)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });
});

describe('archive size', () => {
  it('exports a job of 10,000 boxes in both formats: every box written, the archive far smaller than its text', async () => {
    const { task, label } = await world(100);
    const car = label('car').id;
    const shapes = Array.from({ length: 10_000 }, (_, i) => ({
      type: 'rectangle',
      frame: i % 5,
      label_id: car,
      points: [i % 600, i % 400, (i % 600) + 20, (i % 400) + 30],
      attributes: [],
    }));
    const put = await h.put(
      `/api/jobs/${task.jobs[0]}/annotations?org=acme`,
      { version: 0, tags: [], shapes, tracks: [] },
      { as: 'alice' },
    );
    expect(put.status).toBe(200);
    const bytes = await archive(`jobs/${task.jobs[0]}`, CVAT);
    const xml = unzipSync(bytes)['annotations.xml'] as Uint8Array;
    expect(strFromU8(xml).match(/<box /g)).toHaveLength(10_000);
    // Deflated in batches: still a fraction of the text.
    expect(bytes.length).toBeLessThan(xml.length / 5);
    const coco = JSON.parse(
      strFromU8(
        (await exported(`jobs/${task.jobs[0]}`, COCO))['annotations/instances_default.json'] as Uint8Array,
      ),
    );
    expect(coco.annotations).toHaveLength(10_000);
    expect(coco.annotations[9_999]).toMatchObject({
      id: 10_000,
      bbox: [9_999 % 600, 9_999 % 400, 20, 30],
      area: 600,
    });
  });
});

describe('zip writer', () => {
  const AT = Date.UTC(2026, 0, 1);

  /** `count` pieces of 64 KiB of XML-like text, made one at a time. */
  function* pieces(count: number, seen?: () => void) {
    for (let i = 0; i < count; i++) {
      seen?.();
      yield `<box label="car" xtl="${i}.00" ytl="${i % 97}.00">\n`.repeat(1024).padEnd(65_536, ' ');
    }
  }

  it('joins the batches of a file given in pieces into one deflate stream that reads back whole', () => {
    const text = [...pieces(40)].join('');
    const files = unzipSync(zipArchive([{ name: 'a.xml', data: pieces(40) }, { name: 'images/' }], AT));
    expect(Object.keys(files)).toEqual(['a.xml', 'images/']);
    expect(strFromU8(files['a.xml'] as Uint8Array)).toBe(text);
  });

  it('holds a bounded amount while deflating 160 MiB given in pieces, never the whole text', () => {
    const base = process.memoryUsage().arrayBuffers;
    let peak = 0;
    let n = 0;
    const sample = () => {
      if (n++ % 32 === 0) peak = Math.max(peak, process.memoryUsage().arrayBuffers - base);
    };
    const zip = Buffer.from(zipArchive([{ name: 'big.xml', data: pieces(2560, sample) }], AT));
    // The central directory's record: the uncompressed size of the whole text.
    const central = zip.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    expect(zip.readUInt32LE(central + 24)).toBe(2560 * 65_536);
    expect(zip.length).toBeLessThan(16 * 2 ** 20);
    // Holding the text whole is 160 MiB of buffers at least. Below that, the figure counts pieces already
    // given up but not yet collected: V8 collects external memory in its own time (up to ~72 MiB seen on
    // Node 24's V8, ~50 MiB on Node 20's), so the bound sits between the two.
    expect(peak).toBeLessThan(120 * 2 ** 20);
  });
});

describe('project exports with annotations', () => {
  /** Project P: tasks A (train, 3 frames), B (train, 2), C (no subset, 2) with boxes, D without data. */
  function project() {
    h = createHarness();
    const box = (frame: number, x: number) => ({ label: 'car', frame, points: [x, 10, x + 10, 30] });
    const seeded = h.seed({
      ...TEAM,
      projects: [{ name: 'P', owner: 'alice', org: 'acme', labels: [{ name: 'car' }, { name: 'person' }] }],
      tasks: [
        {
          name: 'A',
          owner: 'alice',
          project: 'P',
          size: 3,
          subset: 'train',
          annotations: { shapes: [box(0, 1)] },
        },
        {
          name: 'B',
          owner: 'alice',
          project: 'P',
          size: 2,
          subset: 'train',
          annotations: { shapes: [box(1, 2)] },
        },
        { name: 'C', owner: 'alice', project: 'P', size: 2, annotations: { shapes: [box(0, 3)] } },
        { name: 'D', owner: 'alice', project: 'P' },
      ],
    });
    return { project: seeded.projects.P as number, tasks: seeded.tasks };
  }

  it('CVAT for images: tasks with data by subset then id, image ids from 0 in each subset, duplicate names renamed', async () => {
    const { project: id, tasks } = project();
    const xml = strFromU8((await exported(`projects/${id}`, CVAT))['annotations.xml'] as Uint8Array);
    const [a, b, c] = [tasks.A?.id, tasks.B?.id, tasks.C?.id];
    expect([...xml.matchAll(/<tasks>[\s\S]*?<\/tasks>/g)][0]?.[0].match(/<task>\n {10}<id>\d+/g)).toEqual(
      [c, a, b].map((t) => `<task>\n          <id>${t}`),
    );
    expect(xml).toContain('      <subsets>default\ntrain</subsets>');
    const images = [...xml.matchAll(/<image id="(\d+)" name="([^"]+)" subset="(\w+)" task_id="(\d+)"/g)].map(
      (m) => m.slice(1).join(' '),
    );
    expect(images).toEqual([
      `0 frame_000000.jpg default ${c}`,
      `1 frame_000001.jpg default ${c}`,
      `0 frame_000000.jpg train ${a}`,
      `1 frame_000001.jpg train ${a}`,
      `2 frame_000002.jpg train ${a}`,
      `3 frame_000000_1.jpg train ${b}`,
      `4 frame_000001_1.jpg train ${b}`,
    ]);
    expect(imageBlock(xml, 4)).toContain('<box label="car" source="manual" occluded="0" xtl="2.00"');
  });

  it('COCO, YOLO and Datumaro: a file or folder a subset, image ids by item id across the export, the renamed frames', async () => {
    const { project: id } = project();
    const files = await exported(`projects/${id}`, COCO, true);
    expect(Object.keys(files).filter((n) => n.startsWith('annotations/'))).toEqual([
      'annotations/instances_default.json',
      'annotations/instances_train.json',
    ]);
    expect(Object.keys(files)).toContain('images/train/frame_000001_1.jpg');
    const train = JSON.parse(strFromU8(files['annotations/instances_train.json'] as Uint8Array));
    // Datumaro numbers images by item id (the name without its extension) across the export: the
    // default subset's frame_000000 and train's share id 1.
    expect(train.images.map((i: { id: number; file_name: string }) => `${i.id} ${i.file_name}`)).toEqual([
      '1 frame_000000.jpg',
      '2 frame_000001.jpg',
      '3 frame_000002.jpg',
      '4 frame_000000_1.jpg',
      '5 frame_000001_1.jpg',
    ]);
    expect(
      train.annotations.map((a: { id: number; image_id: number; bbox: number[] }) => [
        a.id,
        a.image_id,
        a.bbox,
      ]),
    ).toEqual([
      [1, 1, [1, 10, 10, 20]],
      [2, 5, [2, 10, 10, 20]],
    ]);

    const yolo = await exported(`projects/${id}`, YOLO);
    // The unnamed subset joins `train` (Datumaro's _resolve_subsets).
    expect(strFromU8(yolo['obj.data'] as Uint8Array)).toBe(
      'classes = 2\ntrain = data/train.txt\nnames = data/obj.names\nbackup = backup/\n',
    );
    expect(
      strFromU8(yolo['train.txt'] as Uint8Array)
        .split('\n')
        .filter(Boolean),
    ).toHaveLength(7);
    expect(strFromU8(yolo['obj_train_data/frame_000001_1.txt'] as Uint8Array)).toMatch(/^0 /);

    // Datumaro numbers a project's frames on through each subset's tasks.
    const dm = JSON.parse(
      strFromU8((await exported(`projects/${id}`, DATUMARO))['annotations/train.json'] as Uint8Array),
    );
    expect(dm.items.map((i: { id: string; attr: { frame: number } }) => `${i.id} ${i.attr.frame}`)).toEqual([
      'frame_000000 0',
      'frame_000001 1',
      'frame_000002 2',
      'frame_000000_1 3',
      'frame_000001_1 4',
    ]);
  });
});

describe("CVAT's test_tasks.py export tests", () => {
  it('test_uses_subset_name: each subset (or the default) names the images folder', async () => {
    h = createHarness();
    const subsets = ['', 'Train', 'Validation'];
    const seeded = h.seed({
      ...TEAM,
      tasks: subsets.map((subset, i) => ({ name: `t${i}`, owner: 'alice', org: 'acme', size: 2, subset })),
    });
    const cases: [string, string, (s: string) => string][] = [
      [DATUMARO, '', (s) => `images/${s}`],
      [YOLO, 'train', (s) => `obj_${s}_data`],
      [ULTRALYTICS, 'train', (s) => `images/${s}`],
    ];
    for (const [format, defaultSubset, template] of cases) {
      for (const [i, subset] of subsets.entries()) {
        const names = Object.keys(await exported(`tasks/${seeded.tasks[`t${i}`]?.id}`, format, true));
        const path = template(subset || defaultSubset);
        expect(
          names.some((n) => n.includes(path)),
          `${format}: no ${path} in ${names}`,
        ).toBe(true);
      }
    }
  });

  it('test_datumaro_export_without_annotations_includes_image_info', async () => {
    const { task } = await world();
    const dm = JSON.parse(
      strFromU8((await exported(`tasks/${task.id}`, DATUMARO))['annotations/default.json'] as Uint8Array),
    );
    expect(dm.items.length).toBeGreaterThan(0);
    for (const item of dm.items) {
      expect(item).not.toHaveProperty('media');
      expect(item.image.path.replace(/\.[^.]*$/, '')).toBe(item.id);
      expect(item.image.path.startsWith('/')).toBe(false);
      expect(item.image.size[0] > 0 && item.image.size[1] > 0).toBe(true);
    }
  });
});
