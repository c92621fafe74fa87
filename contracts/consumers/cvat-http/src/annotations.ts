import { type CvatHttp, type CvatResult, expectStatus, type Query } from './cvat-http';
import { asArray, asObject, type Json, num, str } from './read';

/**
 * Readers of CVAT's annotation bodies (`LabeledData`: `{version, tags, shapes, tracks}`) and label
 * pages (`GET /api/labels`), as far as the consumers use them: ids, frames, labels, types, points.
 */

/** A shape as a consumer reads it back (`LabeledShape`). */
export interface Shape {
  readonly id: number;
  readonly frame: number;
  readonly labelId: number;
  readonly type: string;
  readonly points: readonly number[];
  readonly source: string;
}

export interface Annotations {
  readonly tags: number;
  readonly shapes: readonly Shape[];
  readonly tracks: number;
}

export interface Label {
  readonly id: number;
  readonly name: string;
  readonly type: string;
}

function readShape(value: unknown): Shape {
  const o = asObject(value, 'shape');
  const points = asArray(o.points, 'points').map((p) => {
    if (typeof p === 'number') return p;
    throw new Error(`expected "points" to hold numbers, got ${JSON.stringify(p)}`);
  });
  return {
    id: num(o, 'id'),
    frame: num(o, 'frame'),
    labelId: num(o, 'label_id'),
    type: str(o, 'type'),
    points,
    source: str(o, 'source'),
  };
}

/** A job's or task's annotations (`GET|PUT /api/jobs|tasks/{id}/annotations`). */
export function readAnnotations(body: unknown): Annotations {
  const o = asObject(body, 'annotations');
  return {
    tags: asArray(o.tags, 'tags').length,
    shapes: asArray(o.shapes, 'shapes').map(readShape),
    tracks: asArray(o.tracks, 'tracks').length,
  };
}

/** One page of `GET /api/labels`: its labels and the URL of the next page, if any. */
export function readLabelPage(body: unknown): { labels: Label[]; next: string | null } {
  const o: Json = asObject(body, 'label page');
  const next = o.next;
  return {
    labels: asArray(o.results, 'results').map((value) => {
      const l = asObject(value, 'label');
      return { id: num(l, 'id'), name: str(l, 'name'), type: str(l, 'type') };
    }),
    next: typeof next === 'string' ? next : null,
  };
}

/** Every label `GET /api/labels` lists for `query` (`task_id`, `job_id`, …), following `next` pages. */
export async function listLabels(http: CvatHttp, query: Query): Promise<CvatResult<Label[]>> {
  const labels: Label[] = [];
  let response = await http.request('GET', '/api/labels', { query });
  for (;;) {
    const page = expectStatus(response, 200, (r) => readLabelPage(r.body));
    if (!page.ok) return page;
    labels.push(...page.value.labels);
    if (page.value.next === null) return { ok: true, value: labels };
    response = await http.follow(page.value.next);
  }
}
