/**
 * "CVAT for images 1.1": `annotations.xml` as CVAT 2.73's XML writer lays it out (`xml.sax` generator,
 * two spaces a level, a newline before every element; `formats/cvat.py`, `dump_as_cvat_annotation`):
 * `<version>`, `<meta>` with the task (job, project) and `<dumped>`, then one `<image>` per frame,
 * frames without annotations included, holding its shapes (track shapes on the frame included, outside
 * ones left out) sorted by `z_order`, then its tags. The text is made a frame at a time, so a job of
 * 100,000 shapes is never one string (zip.ts deflates the pieces).
 */
import { attrs, xmlHead } from './cvat-meta';
import { ELEMENT, geometry, specNames, type Writer, writeAttributes } from './cvat-shapes';
import { type FrameShape, objectsByFrame } from './frame-shapes';
import { datasetTasks, type ExportSource, exportFrame, subsetOf } from './source';

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
  const project = src.target === 'project';
  yield xmlHead(src, dumpedAt, baseUrl);
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
