import { describe, expect, it } from 'vitest';
import { startAnnotationSim } from '../src/app';
import type { LabeledData } from '../src/domain/annotations/model';
import { labeledDataJson } from '../src/domain/annotations/serialize';

const shape = (id: number) => ({
  type: 'rectangle',
  occluded: false,
  outside: false,
  z_order: 0,
  rotation: 0,
  points: [id + 0.5, 2, 3.25, 4],
  id,
  label_id: 1,
  group: 0,
  source: 'manual',
  frame: id % 7,
  attributes: id % 2 ? [{ spec_id: 3, value: `v"${id}\u00e9` }] : [],
  score: 1,
});

const data = (shapes: number, tags = 0, tracks = 0) =>
  ({
    version: 0,
    tags: Array.from({ length: tags }, (_, i) => ({
      id: i,
      label_id: 1,
      group: null,
      source: 'auto',
      frame: i,
      attributes: [],
    })),
    shapes: Array.from({ length: shapes }, (_, i) => shape(i + 1)),
    tracks: Array.from({ length: tracks }, (_, i) => ({
      id: i,
      label_id: 1,
      group: 0,
      source: 'manual',
      frame: 0,
      attributes: [],
      shapes: [],
      elements: [],
    })),
    intervals: [],
  }) as unknown as LabeledData;

describe('labeledDataJson', () => {
  it.each([
    ['empty lists', data(0)],
    ['one shape', data(1)],
    ['a list of exactly one piece', data(250)],
    ['a list one past a piece', data(251)],
    ['lists of many pieces, non-ASCII and escaped text', data(1_003, 600, 251)],
  ])('gives the bytes of JSON.stringify for %s', (_, d) => {
    const bytes = labeledDataJson(d);
    expect(Buffer.from(bytes).equals(Buffer.from(JSON.stringify(d)))).toBe(true);
    expect(JSON.parse(Buffer.from(bytes).toString('utf8'))).toEqual(JSON.parse(JSON.stringify(d)));
  });
});

describe('annotations served as bytes', () => {
  it('are the JSON a client parses, and the journal shows a large one by its size and start, a small one whole', async () => {
    const sim = await startAnnotationSim({ port: 0, clock: { mode: 'manual' } });
    try {
      const call = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(`${sim.url}${path}`, {
          method,
          headers: { authorization: 'Token t', 'content-type': 'application/json' },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
      };
      const seeded = await call('POST', '/_sim/seed', {
        users: [{ username: 'u', token: 't' }],
        tasks: [{ name: 'T', owner: 'u', size: 10, segment_size: 10, labels: [{ name: 'car' }] }],
      });
      expect(seeded.status).toBe(201);
      const labels = JSON.parse((await call('GET', '/api/labels?task_id=1')).text);
      const labelId = labels.results[0].id as number;
      const empty = await call('GET', '/api/jobs/1/annotations');
      expect(empty).toMatchObject({ status: 200, type: 'application/vnd.cvat+json' });
      expect(JSON.parse(empty.text)).toEqual({ version: 0, tags: [], shapes: [], tracks: [], intervals: [] });
      const shapes = Array.from({ length: 1_000 }, (_, i) => ({
        type: 'rectangle',
        frame: i % 10,
        label_id: labelId,
        points: [i + 0.5, 1, 2, 3],
      }));
      expect((await call('PATCH', '/api/jobs/1/annotations?action=create', { shapes })).status).toBe(200);
      const full = await call('GET', '/api/jobs/1/annotations');
      expect(JSON.parse(full.text).shapes).toHaveLength(1_000);
      const journal = JSON.parse((await call('GET', '/_sim/journal?limit=10')).text) as {
        entries: { method: string; path: string; responseBody: unknown }[];
      };
      const gets = journal.entries.filter((e) => e.method === 'GET' && e.path === '/api/jobs/1/annotations');
      expect(gets.map((e) => e.responseBody)).toEqual([
        { version: 0, tags: [], shapes: [], tracks: [], intervals: [] },
        {
          truncated: true,
          size: Buffer.byteLength(full.text),
          preview: expect.stringMatching(/^{"version":0,"tags":\[\],"shapes":\[{"type":"rectangle"/),
        },
      ]);
    } finally {
      await sim.close();
    }
  });
});
