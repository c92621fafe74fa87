/**
 * The annotation importers (issue 37) on hand-made files: what each gives back (labels and attribute
 * specs resolved, frames matched, `source` "file") and CVAT 2.73's refusals, as `formats/*.py` and
 * `bindings.py` (`import_dm_annotations`, `match_dm_item`) read and raise them.
 */
import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { IMPORTERS, importerFor } from '../src/domain/imports/formats/index';
import { ImportError, type ImportTarget } from '../src/domain/imports/formats/types';
import type { AttributeSpecRec, LabelRec } from '../src/domain/model';

const spec = (
  id: number,
  name: string,
  input_type: string,
  mutable: boolean,
  values = '',
): AttributeSpecRec => ({
  id,
  name,
  mutable,
  input_type,
  default_value: values.split('\n')[0] ?? '',
  values,
});

const label = (id: number, name: string, extra: Partial<LabelRec> = {}): LabelRec => ({
  id,
  name,
  color: '#000000',
  type: 'any',
  project_id: null,
  task_id: 1,
  parent_id: null,
  svg: null,
  attributes: [],
  ...extra,
});

/** Labels car (model: select, immutable; parked: checkbox), person, and skeleton s1 of points 1 and 2. */
const LABELS: LabelRec[] = [
  label(1, 'car', {
    attributes: [
      spec(11, 'model', 'select', false, 'mazda\nvolvo'),
      spec(12, 'parked', 'checkbox', true, 'false'),
    ],
  }),
  label(2, 'person'),
  label(3, 's1', { type: 'skeleton' }),
  label(4, '1', { parent_id: 3, type: 'points' }),
  label(5, '2', { parent_id: 3, type: 'points' }),
];

/** Frames 0-3 named img0.jpg … img3.jpg, 100×50. */
const target = (labels = LABELS, count = 4): ImportTarget => ({
  labels,
  frames: Array.from({ length: count }, (_, i) => ({
    index: i,
    frame: { name: `img${i}.jpg`, width: 100, height: 50 },
  })),
});

const file = (name: string, text: string) => ({ name, bytes: strToU8(text) });
const zip = (name: string, files: Record<string, string>) => ({
  name,
  bytes: zipSync(Object.fromEntries(Object.entries(files).map(([k, v]) => [k, strToU8(v)]))),
});

/** The importer's refusal as the request shows it: `<class>: <message>`. */
function refusal(run: () => unknown): string {
  try {
    run();
  } catch (err) {
    if (err instanceof ImportError) return `${err.exceptionClass}: ${err.message}`;
    throw err;
  }
  throw new Error('no refusal');
}

const read = (format: string, f: { name: string; bytes: Uint8Array }, t = target()) => {
  const imp = importerFor(format);
  if (!imp) throw new Error(`no importer ${format}`);
  return imp.read(f, t);
};

describe('the importers registry', () => {
  it("lists CVAT's importers in its formats list's order, and finds each by display name", () => {
    expect(IMPORTERS.map((i) => `${i.format} (${i.ext})`)).toEqual([
      'COCO 1.0 (JSON, ZIP)',
      'COCO Keypoints 1.0 (JSON, ZIP)',
      'CVAT 1.1 (XML, ZIP)',
      'Datumaro 1.0 (JSON, ZIP)',
      'PASCAL VOC 1.1 (ZIP)',
      'YOLO 1.1 (ZIP)',
      'Ultralytics YOLO Detection 1.0 (ZIP)',
    ]);
    expect(importerFor('CVAT 1.1')?.ext).toBe('XML, ZIP');
    expect(importerFor('CVAT for images 1.1')).toBeUndefined();
  });
});

const CVAT_XML = `<?xml version="1.0" encoding="utf-8"?>
<annotations>
  <version>1.1</version>
  <meta><task><name>T</name></task></meta>
  <image id="0" name="img0.jpg" width="100" height="50">
    <box label="car" source="manual" occluded="1" xtl="1.50" ytl="2.00" xbr="10.00" ybr="20.25" rotation="15.00" z_order="2" group_id="3">
      <attribute name="model">volvo</attribute>
      <attribute name="parked">True</attribute>
      <attribute name="color">red</attribute>
    </box>
    <polygon label="person" source="auto" occluded="0" points="1.00,2.00;3.00,4.00;5.00,6.00" z_order="0">
    </polygon>
    <ellipse label="person" source="manual" occluded="0" cx="50.00" cy="25.00" rx="10.50" ry="5.25" z_order="1">
    </ellipse>
    <mask label="car" source="manual" occluded="0" rle="2, 3, 1" left="4" top="5" width="3" height="2" z_order="0">
    </mask>
    <skeleton label="s1" source="manual" z_order="0">
      <points label="1" source="manual" outside="0" occluded="1" points="1.00,1.00">
      </points>
      <points label="2" source="manual" outside="1" occluded="0" points="2.00,2.00">
      </points>
    </skeleton>
    <tag label="person" source="manual" group_id="1">
    </tag>
  </image>
  <image id="2" name="other/x.png" width="100" height="50">
    <points label="person" source="manual" occluded="0" points="7.00,8.00" z_order="0">
    </points>
  </image>
  <image id="9" name="img3.png" width="100" height="50">
    <tag label="car" source="manual">
      <attribute name="model">mazda</attribute>
    </tag>
  </image>
</annotations>
`;

describe('CVAT 1.1', () => {
  it('reads CVAT for images: shapes of every type, skeletons, tags, attributes of the label, groups, z_order', () => {
    const out = read('CVAT 1.1', file('annotations.xml', CVAT_XML));
    expect(out.tags[0]).toEqual({
      id: null,
      label_id: 2,
      group: 1,
      source: 'file',
      frame: 0,
      attributes: [],
    });
    const base = {
      id: null,
      source: 'file',
      outside: false,
      score: 1,
      group: 0,
      rotation: 0,
      occluded: false,
      z_order: 0,
    };
    expect(out.shapes).toEqual([
      {
        ...base,
        label_id: 1,
        frame: 0,
        type: 'rectangle',
        occluded: true,
        group: 3,
        z_order: 2,
        rotation: 15,
        points: [1.5, 2, 10, 20.25],
        attributes: [
          { spec_id: 11, value: 'volvo' },
          { spec_id: 12, value: 'true' },
        ],
      },
      { ...base, label_id: 2, frame: 0, type: 'polygon', points: [1, 2, 3, 4, 5, 6], attributes: [] },
      {
        ...base,
        label_id: 2,
        frame: 0,
        type: 'ellipse',
        z_order: 1,
        points: [50, 25, 60.5, 19.75],
        attributes: [],
      },
      { ...base, label_id: 1, frame: 0, type: 'mask', points: [2, 3, 1, 4, 5, 6, 6], attributes: [] },
      {
        ...base,
        label_id: 3,
        frame: 0,
        type: 'skeleton',
        points: [],
        attributes: [],
        elements: [
          { ...base, label_id: 4, frame: 0, type: 'points', occluded: true, points: [1, 1], attributes: [] },
          { ...base, label_id: 5, frame: 0, type: 'points', outside: true, points: [2, 2], attributes: [] },
        ],
      },
      // `other/x.png` is no frame's name: its id, 2, is the frame.
      { ...base, label_id: 2, frame: 2, type: 'points', points: [7, 8], attributes: [] },
    ]);
    // `img3.png` is frame 3's name (extensions aside), whatever its id.
    expect(out.tags[1]).toEqual({
      id: null,
      label_id: 1,
      group: 0,
      source: 'file',
      frame: 3,
      attributes: [{ spec_id: 11, value: 'mazda' }],
    });
    expect(out.tracks).toEqual([]);
  });
});

describe('CVAT 1.1 tracks and refusals', () => {
  const VIDEO = `<?xml version="1.0" encoding="utf-8"?>
<annotations>
  <version>1.1</version>
  <track id="0" label="car" source="manual" group_id="2">
    <box frame="0" keyframe="1" outside="0" occluded="0" xtl="1.00" ytl="2.00" xbr="3.00" ybr="4.00" z_order="1">
      <attribute name="model">volvo</attribute>
      <attribute name="parked">false</attribute>
    </box>
    <box frame="1" keyframe="0" outside="0" occluded="0" xtl="2.00" ytl="2.00" xbr="3.00" ybr="4.00" z_order="1">
      <attribute name="model">volvo</attribute>
      <attribute name="parked">false</attribute>
    </box>
    <box frame="2" keyframe="1" outside="1" occluded="1" xtl="3.00" ytl="2.00" xbr="3.00" ybr="4.00" z_order="1">
      <attribute name="model">volvo</attribute>
      <attribute name="parked">true</attribute>
    </box>
  </track>
  <track id="1" label="s1" source="manual">
    <skeleton frame="1" keyframe="1" z_order="0">
      <points label="1" outside="0" occluded="0" keyframe="1" points="1.00,2.00"></points>
      <points label="2" outside="1" occluded="0" keyframe="0" points="3.00,4.00"></points>
    </skeleton>
    <skeleton frame="2" keyframe="1" z_order="0">
      <points label="1" outside="0" occluded="0" keyframe="0" points="1.00,2.00"></points>
      <points label="2" outside="1" occluded="0" keyframe="1" points="3.00,4.00"></points>
    </skeleton>
  </track>
  <track id="2" label="car" source="manual">
    <mask frame="3" keyframe="1" outside="0" occluded="0" rle="1, 1" left="0" top="0" width="2" height="1" z_order="0"></mask>
  </track>
</annotations>`;

  it('reads CVAT for video: keyframes only, immutable attributes on the track, a mask track as its first mask', () => {
    const out = read('CVAT 1.1', zip('a.zip', { 'annotations.xml': VIDEO }));
    const box = { type: 'rectangle', id: null, rotation: 0, z_order: 1 };
    expect(out.tracks).toEqual([
      {
        id: null,
        label_id: 1,
        group: 2,
        source: 'file',
        frame: 0,
        attributes: [{ spec_id: 11, value: 'volvo' }],
        shapes: [
          {
            ...box,
            frame: 0,
            occluded: false,
            outside: false,
            points: [1, 2, 3, 4],
            attributes: [{ spec_id: 12, value: 'false' }],
          },
          {
            ...box,
            frame: 2,
            occluded: true,
            outside: true,
            points: [3, 2, 3, 4],
            attributes: [{ spec_id: 12, value: 'true' }],
          },
        ],
      },
      {
        id: null,
        label_id: 3,
        group: 0,
        source: 'file',
        frame: 1,
        attributes: [],
        shapes: [
          {
            type: 'skeleton',
            id: null,
            rotation: 0,
            z_order: 0,
            frame: 1,
            occluded: false,
            outside: false,
            points: [],
            attributes: [],
          },
          {
            type: 'skeleton',
            id: null,
            rotation: 0,
            z_order: 0,
            frame: 2,
            occluded: false,
            outside: false,
            points: [],
            attributes: [],
          },
        ],
        elements: [
          {
            id: null,
            label_id: 4,
            group: 0,
            source: 'file',
            frame: 1,
            attributes: [],
            shapes: [
              {
                type: 'points',
                id: null,
                rotation: 0,
                z_order: 0,
                frame: 1,
                occluded: false,
                outside: false,
                points: [1, 2],
                attributes: [],
              },
            ],
          },
          // Point 2's keyframe is on frame 2 only (frame 1's is not one): its track starts there.
          {
            id: null,
            label_id: 5,
            group: 0,
            source: 'file',
            frame: 2,
            attributes: [],
            shapes: [
              {
                type: 'points',
                id: null,
                rotation: 0,
                z_order: 0,
                frame: 2,
                occluded: false,
                outside: true,
                points: [3, 4],
                attributes: [],
              },
            ],
          },
        ],
      },
    ]);
    expect(out.shapes).toEqual([
      {
        id: null,
        label_id: 1,
        group: 0,
        source: 'file',
        frame: 3,
        attributes: [],
        type: 'mask',
        occluded: false,
        outside: false,
        z_order: 0,
        rotation: 0,
        points: [1, 1, 0, 0, 1, 0],
        score: 1,
      },
    ]);
  });

  it("refuses what CVAT's importer refuses, with its exception and text", () => {
    const doc = (body: string) => file('a.xml', `<annotations>${body}</annotations>`);
    expect(
      refusal(() =>
        read(
          'CVAT 1.1',
          doc(
            '<image id="0" name="img0.jpg"><box label="bus" occluded="0" xtl="1" ytl="1" xbr="2" ybr="2"></box></image>',
          ),
        ),
      ),
    ).toBe("ValueError: Label 'bus' is not registered for this task");
    expect(refusal(() => read('CVAT 1.1', doc('<image id="12" name="x/none.jpg"></image>')))).toBe(
      "cvat.apps.dataset_manager.bindings.CvatImportError: Could not match item id: 'x/none' with any task frame",
    );
    expect(
      refusal(() =>
        read(
          'CVAT 1.1',
          doc(
            '<track label="car"><box frame="9" keyframe="1" outside="0" occluded="0" xtl="1" ytl="1" xbr="2" ybr="2"></box></track>',
          ),
        ),
      ),
    ).toBe('ValueError: Unknown frame 9');
    expect(
      refusal(() =>
        read(
          'CVAT 1.1',
          doc(
            '<image id="0" name="img0.jpg"><tag label="car"><attribute name="parked">maybe</attribute></tag></image>',
          ),
        ),
      ),
    ).toBe("Exception: Failed to convert attribute 'car'='maybe': ");
    expect(refusal(() => read('CVAT 1.1', file('a.xml', 'not xml')))).toBe(
      'xml.etree.ElementTree.ParseError: syntax error: line 1, column 0',
    );
    expect(refusal(() => read('CVAT 1.1', zip('a.zip', { 'readme.txt': 'hello' })))).toBe(
      'cvat.apps.dataset_manager.bindings.CvatDatasetNotFoundError: Check [format docs](https://docs.cvat.ai/docs//manual/advanced/formats/format-cvat). Dataset must contain a file: "*.xml"',
    );
  });
});

const S = {
  id: null,
  source: 'file',
  outside: false,
  score: 1,
  group: 0,
  rotation: 0,
  occluded: false,
  z_order: 0,
};

describe('COCO 1.0 and COCO Keypoints 1.0', () => {
  const instances = {
    info: {},
    categories: [
      { id: 1, name: 'car', supercategory: '' },
      { id: 2, name: 'person', supercategory: '' },
    ],
    images: [
      { id: 5, file_name: 'img1.jpg', width: 100, height: 50 },
      { id: 6, file_name: 'img2.png', width: 100, height: 50 },
    ],
    annotations: [
      {
        id: 1,
        image_id: 5,
        category_id: 1,
        segmentation: [],
        area: 12.0,
        bbox: [1.0, 2.0, 3.0, 4.0],
        iscrowd: 0,
        attributes: { model: 'volvo', parked: true, occluded: true, rotation: 30.0 },
      },
      {
        id: 2,
        image_id: 5,
        category_id: 2,
        segmentation: [
          [0, 0, 4, 0, 4, 4],
          [10, 10, 12, 10, 12, 12],
        ],
        area: 10.0,
        bbox: [0, 0, 12, 12],
        iscrowd: 0,
        attributes: { occluded: false },
      },
      // Pixels (2, 3) and (2, 4) of the 100×50 image, column-major run lengths.
      {
        id: 3,
        image_id: 6,
        category_id: 2,
        segmentation: { counts: [2 * 50 + 3, 2, 5000 - 105], size: [50, 100] },
        area: 2.0,
        bbox: [2, 3, 1, 2],
        iscrowd: 1,
      },
    ],
  };

  it('reads a bare instances JSON: boxes without segmentation, polygons a part each, masks; attributes by spec name', () => {
    const out = read('COCO 1.0', file('instances_default.json', JSON.stringify(instances)));
    expect(out.tags).toEqual([]);
    expect(out.tracks).toEqual([]);
    expect(out.shapes).toEqual([
      {
        ...S,
        label_id: 1,
        frame: 1,
        type: 'rectangle',
        occluded: true,
        rotation: 30,
        points: [1, 2, 4, 6],
        attributes: [
          { spec_id: 11, value: 'volvo' },
          { spec_id: 12, value: 'true' },
        ],
      },
      // One annotation's two parts are a group of two: kept, numbered 1 in the image.
      { ...S, label_id: 2, frame: 1, type: 'polygon', group: 1, points: [0, 0, 4, 0, 4, 4], attributes: [] },
      {
        ...S,
        label_id: 2,
        frame: 1,
        type: 'polygon',
        group: 1,
        points: [10, 10, 12, 10, 12, 12],
        attributes: [],
      },
      { ...S, label_id: 2, frame: 2, type: 'mask', points: [0, 2, 2, 3, 2, 4], attributes: [] },
    ]);
  });

  it('reads the zip of annotations/instances_<subset>.json; refuses an archive without one and unknown labels', () => {
    const out = read(
      'COCO 1.0',
      zip('a.zip', { 'annotations/instances_default.json': JSON.stringify(instances) }),
    );
    expect(out.shapes).toHaveLength(4);
    expect(refusal(() => read('COCO 1.0', zip('a.zip', { 'x.txt': '' })))).toBe(
      "cvat.apps.dataset_manager.bindings.CvatImportError: Failed to find dataset at '/home/django/data/tmp/import'",
    );
    const bus = {
      ...instances,
      categories: [
        { id: 1, name: 'bus', supercategory: '' },
        { id: 2, name: 'person', supercategory: '' },
      ],
    };
    expect(refusal(() => read('COCO 1.0', file('a.json', JSON.stringify(bus))))).toBe(
      "cvat.apps.dataset_manager.bindings.CvatImportError: Image img1: can't import annotation #0 (bbox): Label 'bus' is not registered for this task",
    );
    const lost = {
      ...instances,
      images: [{ id: 5, file_name: 'elsewhere/none.jpg', width: 100, height: 50 }],
    };
    expect(refusal(() => read('COCO 1.0', file('a.json', JSON.stringify(lost))))).toBe(
      "cvat.apps.dataset_manager.bindings.CvatImportError: Could not match item id: 'elsewhere/none' with any task frame",
    );
  });

  it('COCO Keypoints: a skeleton of its category keypoints (v 0 outside, 1 occluded, 2 visible), the box dropped', () => {
    const kp = {
      categories: [{ id: 1, name: 's1', supercategory: '', keypoints: ['1', '2'], skeleton: [[1, 2]] }],
      images: [{ id: 1, file_name: 'img3.jpg', width: 100, height: 50 }],
      annotations: [
        {
          id: 1,
          image_id: 1,
          category_id: 1,
          segmentation: [],
          area: 4.0,
          bbox: [1, 2, 2, 2],
          iscrowd: 0,
          keypoints: [1.5, 2.0, 1, 3.0, 4.0, 0],
          num_keypoints: 1,
        },
      ],
    };
    const out = read(
      'COCO Keypoints 1.0',
      zip('k.zip', { 'annotations/person_keypoints_default.json': JSON.stringify(kp) }),
    );
    expect(out.shapes).toEqual([
      {
        ...S,
        label_id: 3,
        frame: 3,
        type: 'skeleton',
        points: [],
        attributes: [],
        elements: [
          { ...S, label_id: 4, frame: 3, type: 'points', occluded: true, points: [1.5, 2], attributes: [] },
          { ...S, label_id: 5, frame: 3, type: 'points', outside: true, points: [3, 4], attributes: [] },
        ],
      },
    ]);
  });
});

describe('YOLO 1.1 and Ultralytics YOLO Detection 1.0', () => {
  it('YOLO 1.1: obj.names labels, a box a line over the frame size, the item matched by name', () => {
    const out = read(
      'YOLO 1.1',
      zip('y.zip', {
        'obj.data': 'classes = 2\ntrain = data/train.txt\nnames = data/obj.names\nbackup = backup/\n',
        'obj.names': 'car\nperson\n',
        'train.txt': 'data/obj_train_data/img1.jpg\ndata/obj_train_data/img2.jpg\n',
        'obj_train_data/img1.txt': '1 0.500000 0.500000 0.250000 0.500000\n',
        'obj_train_data/img2.txt': '',
      }),
    );
    expect(out.shapes).toEqual([
      { ...S, label_id: 2, frame: 1, type: 'rectangle', points: [37.5, 12.5, 62.5, 37.5], attributes: [] },
    ]);
  });

  it('Ultralytics: data.yaml names, labels/<subset>/<item>.txt; refusals: no zip, no data.yaml', () => {
    const out = read(
      'Ultralytics YOLO Detection 1.0',
      zip('u.zip', {
        'data.yaml': 'names:\n  0: car\n  1: person\npath: .\ntrain: train.txt\n',
        'train.txt': 'data/images/train/img0.jpg\n',
        'labels/train/img0.txt': '0 0.5 0.5 0.25 0.5\n',
      }),
    );
    expect(out.shapes).toEqual([
      { ...S, label_id: 1, frame: 0, type: 'rectangle', points: [37.5, 12.5, 62.5, 37.5], attributes: [] },
    ]);
    expect(refusal(() => read('YOLO 1.1', file('a.txt', 'x')))).toBe(
      'shutil.ReadError: a.txt is not a zip file',
    );
    expect(refusal(() => read('Ultralytics YOLO Detection 1.0', zip('u.zip', { 'train.txt': '' })))).toBe(
      'cvat.apps.dataset_manager.bindings.CvatDatasetNotFoundError: Check [format docs](https://docs.cvat.ai/docs//manual/advanced/formats/format-yolo-ultralytics-detection). Dataset must contain a file: "data.yaml"',
    );
  });
});

describe('PASCAL VOC 1.1', () => {
  const annotation = (name: string) => `<annotation>
  <filename>img1.jpg</filename>
  <size><width>100</width><height>50</height><depth></depth></size>
  <object>
    <name>${name}</name>
    <truncated>1</truncated>
    <occluded>1</occluded>
    <difficult>0</difficult>
    <bndbox><xmin>1.5</xmin><ymin>2.0</ymin><xmax>10.0</xmax><ymax>20.0</ymax></bndbox>
    <attributes><attribute><name>model</name><value>volvo</value></attribute></attributes>
  </object>
</annotation>`;
  const voc = (name: string) =>
    zip('v.zip', {
      'labelmap.txt':
        '# label:color_rgb:parts:actions\nbackground:0,0,0::\ncar:128,0,0::\nperson:0,128,0::\nbus:0,0,128::\n',
      'Annotations/img1.xml': annotation(name),
      'ImageSets/Main/train.txt': 'img1\n',
      'ImageSets/Main/person_train.txt': 'img1  1\n',
      'ImageSets/Main/car_train.txt': 'img1 -1\n',
    });

  it('reads objects as boxes (occluded the shape, the others attributes of specs), classification lists as tags', () => {
    const out = read('PASCAL VOC 1.1', voc('car'));
    expect(out.tags).toEqual([{ id: null, label_id: 2, group: 0, source: 'file', frame: 1, attributes: [] }]);
    expect(out.shapes).toEqual([
      {
        ...S,
        label_id: 1,
        frame: 1,
        type: 'rectangle',
        occluded: true,
        points: [1.5, 2, 10, 20],
        attributes: [{ spec_id: 11, value: 'volvo' }],
      },
    ]);
  });

  it("refuses a label of the label map the task has not (CVAT's message, the annotation named)", () => {
    expect(refusal(() => read('PASCAL VOC 1.1', voc('bus')))).toBe(
      "cvat.apps.dataset_manager.bindings.CvatImportError: Image img1: can't import annotation #1 (bbox): Label 'bus' is not registered for this task",
    );
  });
});

describe('Datumaro 1.0', () => {
  const doc = (label = 'car') => ({
    info: {},
    categories: {
      label: {
        labels: [
          { name: label, parent: '', attributes: [] },
          { name: 's1', parent: '', attributes: [] },
          { name: '1', parent: 's1', attributes: [] },
          { name: '2', parent: 's1', attributes: [] },
        ],
        attributes: ['occluded'],
      },
      points: { items: [{ label_id: 1, labels: ['1', '2'], joints: [[1, 2]] }] },
    },
    items: [
      {
        id: 'img0',
        annotations: [
          {
            id: 0,
            type: 'bbox',
            attributes: { occluded: false, model: 'volvo', rotation: 0.0 },
            group: 5,
            label_id: 0,
            z_order: 2,
            bbox: [1.0, 2.0, 3.0, 4.0],
          },
          {
            id: 0,
            type: 'polygon',
            attributes: { occluded: true },
            group: 5,
            label_id: 0,
            z_order: 0,
            points: [0.0, 0.0, 4.0, 0.0, 4.0, 4.0],
          },
          {
            id: 0,
            type: 'skeleton',
            attributes: {},
            group: 0,
            label_id: 1,
            points: [1.0, 1.0, 2, 5.0, 5.0, 1],
          },
        ],
        attr: { frame: 0 },
        image: { path: 'img0.jpg', size: [50, 100] },
      },
      {
        id: 'renamed',
        annotations: [{ id: 0, type: 'label', attributes: { model: 'mazda' }, group: 0, label_id: 0 }],
        attr: { frame: 3 },
        image: { path: 'renamed.jpg', size: [50, 100] },
      },
    ],
  });

  it('reads items by image name, else attr.frame: tags, boxes, polygons, skeletons; a group of two numbered 1', () => {
    const out = read('Datumaro 1.0', file('default.json', JSON.stringify(doc())));
    expect(out.tags).toEqual([
      {
        id: null,
        label_id: 1,
        group: 0,
        source: 'file',
        frame: 3,
        attributes: [{ spec_id: 11, value: 'mazda' }],
      },
    ]);
    expect(out.shapes).toEqual([
      {
        ...S,
        label_id: 1,
        frame: 0,
        type: 'rectangle',
        group: 1,
        z_order: 2,
        points: [1, 2, 4, 6],
        attributes: [{ spec_id: 11, value: 'volvo' }],
      },
      {
        ...S,
        label_id: 1,
        frame: 0,
        type: 'polygon',
        group: 1,
        occluded: true,
        points: [0, 0, 4, 0, 4, 4],
        attributes: [],
      },
      {
        ...S,
        label_id: 3,
        frame: 0,
        type: 'skeleton',
        points: [],
        attributes: [],
        elements: [
          { ...S, label_id: 4, frame: 0, type: 'points', points: [1, 1], attributes: [] },
          { ...S, label_id: 5, frame: 0, type: 'points', occluded: true, points: [5, 5], attributes: [] },
        ],
      },
    ]);
  });

  it('refuses an unknown label and an item no frame matches', () => {
    expect(
      refusal(() =>
        read('Datumaro 1.0', zip('d.zip', { 'annotations/default.json': JSON.stringify(doc('bus')) })),
      ),
    ).toBe(
      "cvat.apps.dataset_manager.bindings.CvatImportError: Image img0: can't import annotation #0 (bbox): Label 'bus' is not registered for this task",
    );
    const lost = doc();
    lost.items[1] = { ...lost.items[1], id: 'nothing', attr: { frame: 9 } } as (typeof lost.items)[1];
    expect(refusal(() => read('Datumaro 1.0', file('default.json', JSON.stringify(lost))))).toBe(
      "cvat.apps.dataset_manager.bindings.CvatImportError: Could not match item id: 'nothing' with any task frame",
    );
    expect(refusal(() => read('Datumaro 1.0', file('default.json', '{"items": [')))).toMatch(
      /^datumaro\.components\.errors\.DatasetImportError: /,
    );
  });
});

describe('tracks in Datumaro-read formats', () => {
  it('joins the shapes of one track_id with a keyframe attribute, keeps visibility changes, closes the last run', () => {
    const box = (frame: number, keyframe: boolean, x: number) => ({
      id: 0,
      type: 'bbox',
      attributes: { occluded: false, track_id: 7, keyframe, model: 'volvo', parked: keyframe },
      group: 0,
      label_id: 0,
      z_order: 0,
      bbox: [x, 0.0, 2.0, 2.0],
      frame,
    });
    const item = (i: number, annotations: unknown[]) => ({
      id: `img${i}`,
      annotations,
      attr: { frame: i },
      image: { path: `img${i}.jpg`, size: [50, 100] },
    });
    const json = {
      categories: { label: { labels: [{ name: 'car', parent: '', attributes: [] }], attributes: [] } },
      items: [item(0, [box(0, true, 1.0)]), item(1, [box(1, false, 2.0)]), item(2, [])],
    };
    const out = read('Datumaro 1.0', file('default.json', JSON.stringify(json)));
    const shape = { type: 'rectangle', id: null, rotation: 0, z_order: 0, occluded: false };
    expect(out.shapes).toEqual([]);
    expect(out.tracks).toEqual([
      {
        id: null,
        label_id: 1,
        group: 0,
        source: 'file',
        frame: 0,
        attributes: [{ spec_id: 11, value: 'volvo' }],
        shapes: [
          {
            ...shape,
            frame: 0,
            outside: false,
            points: [1, 0, 3, 2],
            attributes: [{ spec_id: 12, value: 'true' }],
          },
          // Frame 1 is no keyframe, but the last visible one: made one, then an outside one after it.
          {
            ...shape,
            frame: 1,
            outside: false,
            points: [2, 0, 4, 2],
            attributes: [{ spec_id: 12, value: 'false' }],
          },
          {
            ...shape,
            frame: 2,
            outside: true,
            points: [2, 0, 4, 2],
            attributes: [{ spec_id: 12, value: 'false' }],
          },
        ],
      },
    ]);
  });
});

describe("Datumaro readers' own refusals", () => {
  it("a label index or category the file does not declare is Datumaro's UndeclaredLabelError", () => {
    const yolo = zip('y.zip', {
      'obj.data': 'classes = 1\ntrain = data/train.txt\nnames = data/obj.names\n',
      'obj.names': 'car\n',
      'train.txt': 'data/obj_train_data/img1.jpg\n',
      'obj_train_data/img1.txt': '3 0.5 0.5 0.25 0.5\n',
    });
    expect(refusal(() => read('YOLO 1.1', yolo))).toBe(
      "datumaro.components.errors.UndeclaredLabelError: Undeclared label '3'",
    );
    const coco = {
      categories: [{ id: 1, name: 'car' }],
      images: [{ id: 1, file_name: 'img1.jpg', width: 100, height: 50 }],
      annotations: [{ id: 1, image_id: 1, category_id: 9, segmentation: [], bbox: [0, 0, 1, 1], iscrowd: 0 }],
    };
    expect(refusal(() => read('COCO 1.0', file('a.json', JSON.stringify(coco))))).toBe(
      "datumaro.components.errors.UndeclaredLabelError: Undeclared label '9'",
    );
  });
});
