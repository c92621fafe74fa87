/**
 * "CVAT for images 1.1": `annotations.xml` as CVAT's XML writer lays it out (`xml.sax` generator, two
 * spaces a level, a newline before every element): `<version>`, `<meta>` with the task (job, project)
 * and `<dumped>`, then one `<image>` per frame, frames without annotations included.
 */
import { formatDrfDate } from '../dates';
import { FRAME_HEIGHT, FRAME_WIDTH, frameName } from './frames';
import { type ExportSource, type ExportTask, type LabelRec, pythonDate, subsetOf, userOf } from './source';

/** CVAT's ordered meta: text (written inline) or children (a block, even when empty). */
type Meta = [string, string | Meta][];

const escapeText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const escapeAttr = (s: string) => escapeText(s).replace(/"/g, '&quot;');

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

const labelsMeta = (labels: LabelRec[]): Meta =>
  labels.map((l) => [
    'label',
    [
      ['name', l.name],
      ['color', l.color],
      ['type', l.type],
      ['attributes', []],
    ],
  ]);

/** `<task>` (or `<job>`) meta: CVAT's key order, the jobs as segments linking to `<base>/?id=<job>`. */
function taskMeta(src: ExportSource, et: ExportTask, baseUrl: string, withLabels: boolean): Meta {
  const t = et.task;
  const first = et.frames[0] ?? 0;
  const last = et.frames[et.frames.length - 1] ?? -1;
  const meta: Meta = [
    ['id', String(src.job?.id ?? t.id)],
    ['name', t.name],
    ['size', String(et.frames.length)],
    ['mode', t.mode],
    ['overlap', String(t.overlap ?? 0)],
    ['bugtracker', t.bug_tracker],
    ['created', pythonDate(src.job?.created_date ?? t.created_date)],
    ['updated', pythonDate(src.job?.updated_date ?? t.updated_date)],
    ['subset', subsetOf(t)],
    ['start_frame', String(first)],
    ['stop_frame', String(last)],
    ['frame_filter', ''],
    [
      'segments',
      et.jobs.map((j) => [
        'segment',
        [
          ['id', String(j.id)],
          ['start', String(j.start_frame)],
          ['stop', String(j.stop_frame)],
          ['url', `${baseUrl}/?id=${j.id}`],
        ],
      ]),
    ],
    ['owner', userMeta(src, t.owner_id)],
    ['assignee', userMeta(src, src.job ? src.job.assignee_id : t.assignee_id)],
  ];
  if (withLabels) meta.push(['labels', labelsMeta(src.labels)]);
  return meta;
}

/** `<project>` meta: the project's fields and labels, then its tasks. */
function projectMeta(src: ExportSource, baseUrl: string): Meta {
  const p = src.project;
  if (!p) return [];
  return [
    ['id', String(p.id)],
    ['name', p.name],
    ['bugtracker', p.bug_tracker],
    ['created', pythonDate(p.created_date)],
    ['updated', pythonDate(p.updated_date)],
    ['labels', labelsMeta(src.labels)],
    ['owner', userMeta(src, p.owner_id)],
    ['assignee', userMeta(src, p.assignee_id)],
    ['tasks', src.tasks.map((et) => ['task', taskMeta(src, et, baseUrl, false)])],
  ];
}

/**
 * The `annotations.xml` of an export made at `dumpedAt` (`baseUrl` for the segments' links).
 *
 * @example cvatForImagesXml(exportSource(state, 'task', 5)!, Date.now(), 'http://localhost')
 */
export function cvatForImagesXml(src: ExportSource, dumpedAt: number, baseUrl: string): string {
  const lines = ['<?xml version="1.0" encoding="utf-8"?>', '<annotations>', '  <version>1.1</version>'];
  const head =
    src.target === 'project'
      ? projectMeta(src, baseUrl)
      : taskMeta(src, src.tasks[0] as ExportTask, baseUrl, true);
  const dumped = pythonDate(formatDrfDate(dumpedAt));
  writeMeta(
    lines,
    [
      [
        'meta',
        [
          [src.target, head],
          ['dumped', dumped],
        ],
      ],
    ],
    1,
  );
  let index = 0;
  for (const et of src.tasks) {
    for (const frame of et.frames) {
      const attrs: [string, string][] =
        src.target === 'project'
          ? [
              ['id', String(index)],
              ['name', frameName(frame)],
              ['subset', subsetOf(et.task)],
              ['task_id', String(et.task.id)],
            ]
          : [
              ['id', String(frame)],
              ['name', frameName(frame)],
            ];
      attrs.push(['width', String(FRAME_WIDTH)], ['height', String(FRAME_HEIGHT)]);
      lines.push(`  <image ${attrs.map(([k, v]) => `${k}="${escapeAttr(v)}"`).join(' ')}>`, '  </image>');
      index++;
    }
  }
  lines.push('</annotations>');
  return lines.join('\n');
}
