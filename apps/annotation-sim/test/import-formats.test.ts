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
    expect(IMPORTERS.map((i) => i.format)).toEqual(IMPORTERS.map((i) => i.format));
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
