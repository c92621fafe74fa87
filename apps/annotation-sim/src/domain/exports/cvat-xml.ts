/**
 * "CVAT for images 1.1": `annotations.xml` as CVAT 2.73's XML writer lays it out (`xml.sax` generator,
 * two spaces a level, a newline before every element; `formats/cvat.py`, `dump_as_cvat_annotation`):
 * `<version>`, `<meta>` with the task (job, project) and `<dumped>`, then one `<image>` per frame,
 * frames without annotations included, holding its shapes (track shapes on the frame included, outside
 * ones left out) sorted by `z_order`, then its tags. The text is made a frame at a time, so a job of
 * 100,000 shapes is never one string (zip.ts deflates the pieces).
 */
import { formatDrfDate } from '../dates';
import { attributeSpec } from '../label-read';
import type { LabelRec } from '../model';
import { type FrameShape, objectsByFrame } from './frame-shapes';
import {
  datasetTasks,
  type ExportSource,
  type ExportTask,
  exportFrame,
  pythonDate,
  subsetOf,
  userOf,
} from './source';

/** CVAT's ordered meta: text (written inline) or children (a block, even when empty). */
type Meta = [string, string | Meta][];

const escapeText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
/**
 * `xml.sax.saxutils.quoteattr`: escaped, new lines and tabs as character references, quoted with `"`
 * unless the value holds one (then `'`, or `"` with `&quot;` when it holds both).
 */
function quoteAttr(value: string): string {
  const s = escapeText(value).replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;');
  if (!s.includes('"')) return `"${s}"`;
  return s.includes("'") ? `"${s.replace(/"/g, '&quot;')}"` : `'${s}'`;
}

function writeMeta(lines: string[], meta: Meta, level: number): void {
  const pad = '  '.repeat(level);
  for (const [key, value] of meta) {
    if (typeof value === 'string') {
      lines.push(`${pad}<${key}>${escapeText(value)}</${key}>`);
      continue;
    }
    lines.push(`${pad}<${key}>`);
    writeMeta(lines, value, level + 1);
    lines.push(`${pad}</${key}>`);
  }
}

const userMeta = (src: ExportSource, id: number | null): string | Meta => {
  const u = userOf(src.data, id);
  return u
    ? [
        ['username', u.username],
        ['email', u.email],
      ]
    : '';
};

/**
 * `_convert_db_labels`: every label, sublabels included, in id order: name, color, type, attributes
 * (`mutable` as Python's `str(bool)`, `values` as stored), a sublabel's `parent`, a skeleton's `svg`
 * with its points named (`data-label-id` → `data-label-name`).
 */
function labelsMeta(labels: readonly LabelRec[]): Meta {
  const byId = new Map(labels.map((l) => [l.id, l]));
  return labels.map((l): [string, Meta] => {
    const label: Meta = [
      ['name', l.name],
      ['color', l.color],
      ['type', l.type],
      [
        'attributes',
        l.attributes.map((a): [string, Meta] => [
          'attribute',
          [
            ['name', a.name],
            ['mutable', a.mutable ? 'True' : 'False'],
            ['input_type', a.input_type],
            ['default_value', a.default_value],
            ['values', a.values],
          ],
        ]),
      ],
    ];
    const parent = l.parent_id === null ? undefined : byId.get(l.parent_id);
    if (parent) label.push(['parent', parent.name]);
    if (l.type === 'skeleton') {
      let svg = l.svg ?? '';
      for (const sub of labels.filter((s) => s.parent_id === l.id)) {
        svg = svg.split(`data-label-id="${sub.id}"`).join(`data-label-name="${sub.name}"`);
      }
      label.push(['svg', svg]);
    }
    return ['label', label];
  });
}

/** `meta_for_task` (a task) or `JobData._init_meta` (a job): CVAT 2.73's keys and order. */
function taskMeta(src: ExportSource, et: ExportTask, baseUrl: string, withLabels: boolean): Meta {
  const t = et.task;
  const job = src.target === 'job' ? src.job : undefined;
  const first = et.frames[0] ?? 0;
  const last = et.frames[et.frames.length - 1] ?? 0;
  const segments = et.jobs
    .filter((j) => job !== undefined || j.type === 'annotation')
    .map((j): [string, Meta] => [
      'segment',
      [
        ['id', String(j.id)],
        ['start', String(j.start_frame)],
        ['stop', String(j.stop_frame)],
        ['url', `${baseUrl}/api/jobs/${j.id}`],
      ],
    ]);
  const meta: Meta = [
    ['id', String(job?.id ?? t.id)],
    ...(job ? [] : ([['name', t.name]] as Meta)),
    ['size', String(et.frames.length)],
    ['mode', t.mode],
    ['overlap', String(t.overlap ?? 0)],
    ['bugtracker', t.bug_tracker],
    ['created', pythonDate(t.created_date)],
    ['updated', pythonDate(job?.updated_date ?? t.updated_date)],
    ['subset', subsetOf(t)],
    ['start_frame', String(first)],
    ['stop_frame', String(last)],
    ['frame_filter', ''],
    ['segments', segments],
    ['owner', userMeta(src, t.owner_id)],
    ['assignee', userMeta(src, job ? job.assignee_id : t.assignee_id)],
  ];
  if (withLabels) meta.push(['labels', labelsMeta(src.allLabels)]);
  return meta;
}

/** `ProjectData._init_meta`: the project, its tasks with data, the subsets, owner, assignee, labels. */
function projectMeta(src: ExportSource, baseUrl: string): Meta {
  const p = src.project;
  if (!p) return [];
  const tasks = datasetTasks(src);
  const subsets = [...new Set(tasks.map((et) => subsetOf(et.task)))];
  return [
    ['id', String(p.id)],
    ['name', p.name],
    ['bugtracker', p.bug_tracker],
    ['created', pythonDate(p.created_date)],
    ['updated', pythonDate(p.updated_date)],
    ['tasks', tasks.map((et): [string, Meta] => ['task', taskMeta(src, et, baseUrl, false)])],
    ['subsets', subsets.join('\n')],
    ['owner', userMeta(src, p.owner_id)],
    ['assignee', userMeta(src, p.assignee_id)],
    ['labels', labelsMeta(src.allLabels)],
  ];
}

/**
 * Python's `"{:.2f}".format(v)`: `toFixed`, except that an exact tie (a binary fraction such as
 * 0.125) rounds to even as Python does, where `toFixed` rounds away from zero.
 */
function fixed2(v: number): string {
  const scaled = v * 100;
  const floor = Math.floor(scaled);
  if (scaled - floor === 0.5 && floor / 100 + 0.005 === v) {
    const even = floor % 2 === 0 ? floor : floor + 1;
    return (even / 100).toFixed(2);
  }
  return v.toFixed(2);
}

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
function geometry(s: FrameShape): [string, string][] {
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
const ELEMENT: Record<string, string> = {
  rectangle: 'box',
  ellipse: 'ellipse',
  polygon: 'polygon',
  polyline: 'polyline',
  points: 'points',
  mask: 'mask',
  cuboid: 'cuboid',
  skeleton: 'skeleton',
};

const attrs = (list: [string, string][]) => list.map(([k, v]) => ` ${k}=${quoteAttr(v)}`).join('');

/** Names attribute values by their spec (`_export_attributes`); a spec no longer there is skipped. */
type SpecNames = (labelId: number, specId: number) => string | undefined;

function specNames(labels: readonly LabelRec[]): SpecNames {
  const byId = new Map(labels.map((l) => [l.id, l]));
  return (labelId, specId) => {
    const l = byId.get(labelId);
    return l && attributeSpec(l, specId)?.name;
  };
}

interface Writer {
  out: string[];
  label: (id: number) => string;
  spec: SpecNames;
}

function writeAttributes(w: Writer, labelId: number, list: FrameShape['attributes'], pad: string): void {
  for (const a of list) {
    const name = w.spec(labelId, a.spec_id);
    if (name !== undefined)
      w.out.push(`\n${pad}<attribute name=${quoteAttr(name)}>${escapeText(a.value)}</attribute>`);
  }
}

function writeShapes(w: Writer, shapes: readonly FrameShape[], level: number, inSkeleton: boolean): void {
  const pad = '  '.repeat(level);
  for (const s of shapes) {
    const head: [string, string][] = [
      ['label', w.label(s.label_id)],
      ['source', s.source],
    ];
    if (inSkeleton) head.push(['outside', s.outside ? '1' : '0']);
    if (s.type !== 'skeleton') head.push(['occluded', s.occluded ? '1' : '0']);
    head.push(...geometry(s));
    if (!inSkeleton) head.push(['z_order', String(s.z_order)]);
    if (s.group) head.push(['group_id', String(s.group)]);
    const tag = ELEMENT[s.type] ?? 'points';
    w.out.push(`\n${pad}<${tag}${attrs(head)}>`);
    if (s.type === 'skeleton') writeShapes(w, s.elements, level + 1, true);
    writeAttributes(w, s.label_id, s.attributes, `${pad}  `);
    w.out.push(`\n${pad}</${tag}>`);
  }
}

/**
 * The `annotations.xml` of an export made at `dumpedAt` (`baseUrl` for the segments' links), in pieces.
 *
 * @example [...cvatForImagesXml(exportSource(state, 'task', 5)!, Date.now(), 'http://localhost')].join('')
 */
export function* cvatForImagesXml(src: ExportSource, dumpedAt: number, baseUrl: string): Generator<string> {
  const lines = ['<?xml version="1.0" encoding="utf-8"?>', '<annotations>', '  <version>1.1</version>'];
  const project = src.target === 'project';
  const head = project ? projectMeta(src, baseUrl) : taskMeta(src, src.tasks[0] as ExportTask, baseUrl, true);
  writeMeta(
    lines,
    [
      [
        'meta',
        [
          [src.target, head],
          ['dumped', pythonDate(formatDrfDate(dumpedAt))],
        ],
      ],
    ],
    1,
  );
  yield lines.join('\n');
  const names = new Map(src.allLabels.map((l) => [l.id, l.name]));
  const w: Writer = { out: [], label: (id) => names.get(id) ?? '', spec: specNames(src.allLabels) };
  const offsets = new Map<string, number>();
  for (const et of project ? datasetTasks(src) : src.tasks) {
    const subset = subsetOf(et.task);
    const offset = offsets.get(subset) ?? 0;
    offsets.set(subset, offset + et.task.size);
    const last = et.frames[et.frames.length - 1] ?? -1;
    const objects = objectsByFrame(et.annotations, last + 1);
    for (const frame of et.frames) {
      const f = exportFrame(et, frame);
      const image: [string, string][] = [
        ['id', String(project ? offset + frame : frame)],
        ['name', f.name],
      ];
      if (project) image.push(['subset', subset], ['task_id', String(et.task.id)]);
      image.push(['width', String(f.width)], ['height', String(f.height)]);
      w.out.push(`\n  <image${attrs(image)}>`);
      const o = objects.get(frame);
      if (o) {
        writeShapes(w, o.shapes, 2, false);
        for (const t of o.tags) {
          const tag: [string, string][] = [
            ['label', w.label(t.label_id)],
            ['source', t.source],
          ];
          if (t.group) tag.push(['group_id', String(t.group)]);
          w.out.push(`\n    <tag${attrs(tag)}>`);
          writeAttributes(w, t.label_id, t.attributes, '      ');
          w.out.push('\n    </tag>');
        }
      }
      w.out.push('\n  </image>');
      yield w.out.join('');
      w.out = [];
    }
  }
  yield '\n</annotations>\n';
}
