/**
 * How CVAT's XML formats write a shape: its geometry attributes (`dump_labeled_shapes`, `dump_shape`:
 * coordinates as Python's `"{:.2f}"`), the element each type is, and its `<attribute>` children.
 */
import { attributeSpec } from '../label-read';
import type { LabelRec } from '../model';
import { escapeText, quoteAttr } from './cvat-meta';
import type { FrameShape } from './frame-shapes';
import { pyFixed } from './py-format';

const fixed2 = (v: number) => pyFixed(v, 2);

const pairs = (points: readonly number[]) => {
  const out: string[] = [];
  for (let i = 0; i + 1 < points.length; i += 2) {
    out.push(`${fixed2(points[i] as number)},${fixed2(points[i + 1] as number)}`);
  }
  return out.join(';');
};

const NAMES = ['xtl1', 'ytl1', 'xbl1', 'ybl1', 'xtr1', 'ytr1', 'xbr1', 'ybr1'];
const CUBOID = [...NAMES, ...NAMES.map((n) => n.replace('1', '2'))];

/** The geometry attributes of a shape (`dump_labeled_shapes`), after `label`, `source`, `occluded`. */
export function geometry(s: FrameShape): [string, string][] {
  const p = s.points;
  const at = (i: number) => p[i] ?? 0;
  const rotation: [string, string][] = s.rotation ? [['rotation', fixed2(s.rotation)]] : [];
  switch (s.type) {
    case 'rectangle':
      return [
        ['xtl', fixed2(at(0))],
        ['ytl', fixed2(at(1))],
        ['xbr', fixed2(at(2))],
        ['ybr', fixed2(at(3))],
        ...rotation,
      ];
    case 'ellipse':
      return [
        ['cx', fixed2(at(0))],
        ['cy', fixed2(at(1))],
        ['rx', fixed2(at(2) - at(0))],
        ['ry', fixed2(at(1) - at(3))],
        ...rotation,
      ];
    case 'cuboid':
      return CUBOID.map((n, i) => [n, fixed2(at(i))]);
    case 'mask': {
      const n = p.length;
      return [
        [
          'rle',
          p
            .slice(0, n - 4)
            .map((v) => String(Math.trunc(v)))
            .join(', '),
        ],
        ['left', String(Math.trunc(at(n - 4)))],
        ['top', String(Math.trunc(at(n - 3)))],
        ['width', String(Math.trunc(at(n - 2) - at(n - 4)) + 1)],
        ['height', String(Math.trunc(at(n - 1) - at(n - 3)) + 1)],
      ];
    }
    case 'skeleton':
      return [];
    default:
      return [['points', pairs(p)]];
  }
}

/** The element each shape type is written as. */
export const ELEMENT: Record<string, string> = {
  rectangle: 'box',
  ellipse: 'ellipse',
  polygon: 'polygon',
  polyline: 'polyline',
  points: 'points',
  mask: 'mask',
  cuboid: 'cuboid',
  skeleton: 'skeleton',
};

/** Names attribute values by their spec (`_export_attributes`); a spec no longer there is skipped. */
type SpecNames = (labelId: number, specId: number) => string | undefined;

export function specNames(labels: readonly LabelRec[]): SpecNames {
  const byId = new Map(labels.map((l) => [l.id, l]));
  return (labelId, specId) => {
    const l = byId.get(labelId);
    return l && attributeSpec(l, specId)?.name;
  };
}

export interface Writer {
  out: string[];
  label: (id: number) => string;
  spec: SpecNames;
}

export function writeAttributes(
  w: Writer,
  labelId: number,
  list: FrameShape['attributes'],
  pad: string,
): void {
  for (const a of list) {
    const name = w.spec(labelId, a.spec_id);
    if (name !== undefined)
      w.out.push(`\n${pad}<attribute name=${quoteAttr(name)}>${escapeText(a.value)}</attribute>`);
  }
}
