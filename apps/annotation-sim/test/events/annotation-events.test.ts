import { parse } from 'csv-parse/sync';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type AnnotationChange,
  annotationEventRecords,
  recordAnnotationChange,
} from '../../src/domain/events/annotation-events';
import { createHarness, type Harness, START_MS } from './support/harness';

// What CVAT 2.73's handle_annotations_change logs (cvat/apps/events/handlers.py, read at v2.73.0).

let h: Harness;
afterEach(() => h?.close());

const REQUEST_ID = 'b9d1c0a4-1111-4222-8333-444455556666';
const actor = { id: 2, username: 'alice', email: 'alice@example.com', requestId: REQUEST_ID };
const REQUEST = `"request":{"id":"${REQUEST_ID}","user_agent":"cvat-sdk/2.73.0"}`;

const attrs = [{ spec_id: 1, value: 'red' }];
const tag = (id: number, frame: number) => ({
  id,
  frame,
  label_id: 3,
  group: 0,
  source: 'manual',
  attributes: attrs,
});
const shape = (id: number, type: string, extra: Record<string, unknown> = {}) => ({
  id,
  type,
  frame: 2,
  label_id: 3,
  group: 0,
  source: 'manual',
  occluded: false,
  outside: false,
  z_order: 0,
  rotation: 0,
  points: [1, 2, 3, 4],
  attributes: attrs,
  elements: [],
  ...extra,
});
const keyframe = (id: number, type: string, frame: number, outside: boolean) => ({
  id,
  type,
  frame,
  outside,
  occluded: false,
  z_order: 0,
  rotation: 0,
  points: [1, 2, 3, 4],
  attributes: [],
});

// A box visible at 0, outside at 5, visible again at 8: frames 0-4 and 8-10 of a job ending at 10 (8).
const boxTrack = {
  id: 20,
  frame: 0,
  label_id: 3,
  group: 0,
  source: 'manual',
  attributes: attrs,
  shapes: [
    keyframe(21, 'rectangle', 0, false),
    keyframe(22, 'rectangle', 5, true),
    keyframe(23, 'rectangle', 8, false),
  ],
  elements: [],
};
// A polygon visible from 9 to the end (2).
const polygonTrack = { ...boxTrack, id: 40, frame: 9, shapes: [keyframe(41, 'polygon', 9, false)] };
// A skeleton whose elements are all outside at 0 and 2 and one is visible from 4 (7: 4-10); its own
// keyframe says visible at 0, which CVAT's counter does not read.
const skeletonTrack = {
  ...boxTrack,
  id: 30,
  shapes: [keyframe(31, 'skeleton', 0, false)],
  elements: [
    {
      id: 32,
      frame: 0,
      label_id: 4,
      attributes: [],
      shapes: [keyframe(33, 'points', 0, true), keyframe(34, 'points', 4, false)],
    },
    {
      id: 35,
      frame: 0,
      label_id: 5,
      attributes: [],
      shapes: [keyframe(36, 'points', 0, true), keyframe(37, 'points', 2, true)],
    },
  ],
};

const created = {
  version: 0,
  tags: [tag(1, 0), tag(2, 1)],
  // Given polygon first: rows follow ShapeType's order, not the input's.
  shapes: [
    shape(10, 'polygon'),
    shape(11, 'rectangle'),
    shape(12, 'rectangle'),
    shape(13, 'skeleton', { elements: [shape(14, 'points'), shape(15, 'points')] }),
  ],
  tracks: [boxTrack, skeletonTrack, polygonTrack],
};

const change = (over: Partial<AnnotationChange> = {}): AnnotationChange => ({
  action: 'create',
  annotations: created,
  jobId: 7,
  taskId: 3,
  projectId: 1,
  org: { id: 10, slug: 'acme' },
  actor,
  userAgent: 'cvat-sdk/2.73.0',
  accessTokenId: null,
  time: START_MS,
  stopFrame: 10,
  ...over,
});

const summary = (c: AnnotationChange) =>
  annotationEventRecords(c, 0).map((r) => [r.scope, r.obj_name, r.count, r.payload]);

describe('annotation server events', () => {
  it('logs one tags row with the ids only, and the job, task, project, user and organization of the change', () => {
    const rows = annotationEventRecords(change({ annotations: { tags: created.tags } }), 0);
    expect(rows).toEqual([
      {
        scope: 'create:tags',
        obj_name: null,
        obj_id: null,
        obj_val: null,
        source: 'server',
        timestamp: START_MS,
        count: 2,
        duration: 0,
        project_id: 1,
        task_id: 3,
        job_id: 7,
        user_id: 2,
        user_name: 'alice',
        user_email: 'alice@example.com',
        org_id: 10,
        org_slug: 'acme',
        payload: `{"tags":[{"id":1},{"id":2}],${REQUEST}}`,
        access_token_id: null,
      },
    ]);
  });

  it('logs tags, then shapes per type in ShapeType order, then tracks per type, a skeleton once without its elements', () => {
    expect(summary(change())).toEqual([
      ['create:tags', null, 2, `{"tags":[{"id":1},{"id":2}],${REQUEST}}`],
      ['create:shapes', 'rectangle', 2, `{"shapes":[{"id":11},{"id":12}],${REQUEST}}`],
      ['create:shapes', 'polygon', 1, `{"shapes":[{"id":10}],${REQUEST}}`],
      ['create:shapes', 'skeleton', 1, `{"shapes":[{"id":13}],${REQUEST}}`],
      [
        'create:tracks',
        'rectangle',
        1,
        `{"tracks":[{"id":20,"visible_shapes_count_diff":8,"shapes":[{"id":21},{"id":22},{"id":23}]}],${REQUEST}}`,
      ],
      [
        'create:tracks',
        'polygon',
        1,
        `{"tracks":[{"id":40,"visible_shapes_count_diff":2,"shapes":[{"id":41}]}],${REQUEST}}`,
      ],
      [
        'create:tracks',
        'skeleton',
        1,
        `{"tracks":[{"id":30,"visible_shapes_count_diff":7,"shapes":[{"id":31}]}],${REQUEST}}`,
      ],
    ]);
  });

  it('logs delete rows with the visible shapes taken away', () => {
    const rows = summary(
      change({ action: 'delete', annotations: { shapes: [shape(11, 'mask')], tracks: [boxTrack] } }),
    );
    expect(rows).toEqual([
      ['delete:shapes', 'mask', 1, `{"shapes":[{"id":11}],${REQUEST}}`],
      [
        'delete:tracks',
        'rectangle',
        1,
        `{"tracks":[{"id":20,"visible_shapes_count_diff":-8,"shapes":[{"id":21},{"id":22},{"id":23}]}],${REQUEST}}`,
      ],
    ]);
  });

  it('logs update rows with the stored visible shapes less the new ones, a track not stored counting none', () => {
    // Stored: visible from 0 to the end (11); the update makes it the 8 of boxTrack.
    const stored = [{ ...boxTrack, shapes: [keyframe(21, 'rectangle', 0, false)] }];
    const fresh = { ...polygonTrack, id: null, shapes: [{ ...keyframe(0, 'polygon', 9, false), id: null }] };
    const rows = summary(
      change({
        action: 'update',
        annotations: { tags: [tag(1, 4)], tracks: [boxTrack, fresh] },
        storedTracks: stored,
      }),
    );
    expect(rows).toEqual([
      ['update:tags', null, 1, `{"tags":[{"id":1}],${REQUEST}}`],
      [
        'update:tracks',
        'rectangle',
        1,
        `{"tracks":[{"id":20,"visible_shapes_count_diff":3,"shapes":[{"id":21},{"id":22},{"id":23}]}],${REQUEST}}`,
      ],
      [
        'update:tracks',
        'polygon',
        1,
        `{"tracks":[{"id":null,"visible_shapes_count_diff":-2,"shapes":[{"id":null}]}],${REQUEST}}`,
      ],
    ]);
  });

  it('counts no interpolated tail without the job stop frame, and one keyframe per frame (the last given)', () => {
    const twice = {
      ...boxTrack,
      shapes: [keyframe(21, 'rectangle', 3, false), keyframe(22, 'rectangle', 3, true)],
    };
    const rows = annotationEventRecords(
      change({ annotations: { tracks: [boxTrack, { ...twice, id: 50 }] }, stopFrame: null }),
      0,
    );
    const data = JSON.parse(rows[0]?.payload ?? '{}').tracks as {
      id: number;
      visible_shapes_count_diff: number;
    }[];
    // boxTrack: 0-4 and 8 (6); the other is outside at its only frame (0).
    expect(data.map((t) => [t.id, t.visible_shapes_count_diff])).toEqual([
      [20, 6],
      [50, 0],
    ]);
  });

  it('counts no tail after a keyframe past the stop frame, and counts tracks of one id (none) as the last of them', () => {
    const late = { ...boxTrack, id: 60, shapes: [keyframe(61, 'rectangle', 12, false)] };
    const a = { ...boxTrack, id: null };
    const b = { ...polygonTrack, id: null, shapes: [keyframe(41, 'rectangle', 9, false)] };
    const rows = annotationEventRecords(
      change({ action: 'update', annotations: { tracks: [late, a, b] } }),
      0,
    );
    const data = JSON.parse(rows[0]?.payload ?? '{}').tracks as {
      id: number;
      visible_shapes_count_diff: number;
    }[];
    // CVAT's counter keys tracks by id: both id-less tracks read b's keyframes (9-10: 2).
    expect(data.map((t) => [t.id, t.visible_shapes_count_diff])).toEqual([
      [60, -1],
      [null, -2],
      [null, -2],
    ]);
  });

  it('counts a skeleton track by its elements only: none without them, whatever its own keyframes say', () => {
    const bare = { ...skeletonTrack, elements: [] };
    expect(summary(change({ annotations: { tracks: [bare] } }))).toEqual([
      [
        'create:tracks',
        'skeleton',
        1,
        `{"tracks":[{"id":30,"visible_shapes_count_diff":0,"shapes":[{"id":31}]}],${REQUEST}}`,
      ],
    ]);
  });

  it('logs nothing for an empty change, and leaves out a track without keyframes', () => {
    expect(annotationEventRecords(change({ annotations: { tags: [], shapes: [], tracks: [] } }), 0)).toEqual(
      [],
    );
    expect(annotationEventRecords(change({ action: 'delete', annotations: {} }), 0)).toEqual([]);
    expect(
      annotationEventRecords(change({ annotations: { tracks: [{ ...boxTrack, shapes: [] }] } }), 0),
    ).toEqual([]);
  });

  it('writes a missing request id and user agent as null, an empty e-mail as NULL, and the token id as a column', () => {
    const [r] = annotationEventRecords(
      {
        action: 'create',
        annotations: { tags: [tag(1, 0)] },
        jobId: 7,
        taskId: 3,
        projectId: null,
        actor: { id: 3, username: 'bob', email: '' },
        accessTokenId: 12,
      },
      START_MS + 5,
    );
    expect(r).toMatchObject({
      timestamp: START_MS + 5,
      project_id: null,
      org_id: null,
      org_slug: null,
      user_email: null,
      access_token_id: 12,
      payload: '{"tags":[{"id":1}],"request":{"id":null,"user_agent":null}}',
    });
  });
});

describe('annotation server events in the event log', () => {
  const csvRows = (text: string) => parse(text, { columns: true }) as Record<string, string>[];

  async function exportCsv(query: string): Promise<string> {
    const start = await h.request(`/api/events/export?from=2026-08-12T00:00:00Z&${query}`, {
      method: 'POST',
    });
    expect(start.status).toBe(202);
    const { rq_id } = (await start.json()) as { rq_id: string };
    await h.advance('2s');
    const res = await h.request(`/api/events/download?rq_id=${encodeURIComponent(rq_id)}`);
    expect(res.status).toBe(200);
    return res.text();
  }

  it('exports the rows as CVAT writes them in the CSV, found by the job filter', async () => {
    h = createHarness();
    recordAnnotationChange(h.events(), change({ annotations: { shapes: [shape(11, 'rectangle')] } }), 0);
    recordAnnotationChange(h.events(), change({ jobId: 8, annotations: { tags: [tag(1, 0)] } }), 0);
    const text = await exportCsv('job_id=7');
    expect(text.split('\r\n')[1]).toBe(
      'create:shapes,rectangle,,,server,2026-08-12 10:00:00+00:00,1,0,1,3,7,2,alice,alice@example.com,10,acme,' +
        `"{""shapes"":[{""id"":11}],""request"":{""id"":""${REQUEST_ID}"",""user_agent"":""cvat-sdk/2.73.0""}}",`,
    );
    expect(csvRows(text).map((r) => [r.scope, r.job_id])).toEqual([['create:shapes', '7']]);
    expect(csvRows(await exportCsv('task_id=3&org_id=10&user_id=2')).map((r) => [r.scope, r.job_id])).toEqual(
      [
        ['create:shapes', '7'],
        ['create:tags', '8'],
      ],
    );
    expect(csvRows(await exportCsv('project_id=2'))).toEqual([]);
  });

  it('keeps the rows within the log bounds and drops them while the store is disconnected', () => {
    h = createHarness();
    h.events().settings.maxEvents = 4;
    // Seven rows into a log of four: the oldest quarter goes before each row past the cap.
    recordAnnotationChange(h.events(), change(), 0);
    expect(h.events().store.length).toBe(4);
    expect(h.events().store.evicted).toBe(3);
    expect([...h.events().store.rows()].map((r) => r.obj_name)).toEqual([
      'skeleton',
      'rectangle',
      'polygon',
      'skeleton',
    ]);
    h.events().settings.storeConnected = false;
    recordAnnotationChange(h.events(), change(), 0);
    expect(h.events().dropped).toBe(7);
  });
});
