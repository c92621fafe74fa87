/**
 * The parts of CVAT's XML formats ("CVAT for images 1.1", "CVAT for video 1.1") they share: the
 * `xml.sax` generator's escaping, the `<meta>` block (`meta_for_task`, `JobData._init_meta`,
 * `ProjectData._init_meta`, `_convert_db_labels`) and the head of the document.
 */
import { formatDrfDate } from '../dates';
import type { LabelRec } from '../model';
import { datasetTasks, type ExportSource, type ExportTask, pythonDate, subsetOf, userOf } from './source';

/** CVAT's ordered meta: text (written inline) or children (a block, even when empty). */
type Meta = [string, string | Meta][];

export const escapeText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
/** What `quoteAttr` changes or quotes around: the escaped characters, new lines, tabs and quotes. */
const NEEDS_QUOTING = /[&<>\n\r\t"']/;

/**
 * `xml.sax.saxutils.quoteattr`: escaped, new lines and tabs as character references, quoted with `"`
 * unless the value holds one (then `'`, or `"` with `&quot;` when it holds both).
 */
export function quoteAttr(value: string): string {
  // Most values (numbers, labels, sources) need nothing escaped.
  if (!NEEDS_QUOTING.test(value)) return `"${value}"`;
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

/** An element's attributes, in order: ` k="v"` each. */
export const attrs = (list: [string, string][]) => list.map(([k, v]) => ` ${k}=${quoteAttr(v)}`).join('');

/**
 * The document up to `</meta>`: the declaration, `<annotations>`, `<version>1.1</version>` and the meta
 * of the export (its `<task>`, `<job>` or `<project>`, then `<dumped>` at `dumpedAt`).
 */
export function xmlHead(src: ExportSource, dumpedAt: number, baseUrl: string): string {
  const lines = ['<?xml version="1.0" encoding="utf-8"?>', '<annotations>', '  <version>1.1</version>'];
  const head =
    src.target === 'project'
      ? projectMeta(src, baseUrl)
      : taskMeta(src, src.tasks[0] as ExportTask, baseUrl, true);
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
  return lines.join('\n');
}
