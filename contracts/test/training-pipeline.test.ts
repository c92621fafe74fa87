import { readFileSync } from 'node:fs';
import { crc32, deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createCvatHttp } from '../consumers/cvat-http/src';
import {
  COCO_INSTANCES,
  createTrainingPipeline,
  readCocoInstances,
  readZipEntry,
} from '../consumers/training-pipeline/src';

const RQ_ID = 'action=export&target=task&target_id=42&user_id=2&format=COCO_1~0&subresource=annotations';
const RESULT_URL = `http://cvat.test/api/tasks/42/dataset/download?rq_id=${encodeURIComponent(RQ_ID)}`;
const COCO = {
  categories: [
    { id: 1, name: 'sign', supercategory: '' },
    { id: 2, name: 'pole', supercategory: '' },
  ],
  images: [{ id: 1, width: 640, height: 480, file_name: 'a.jpg' }],
  annotations: [{ id: 1, image_id: 1, category_id: 2, bbox: [1.5, 2, 3, 4.25], area: 12.75 }],
};

/** A zip of `files` as APPNOTE 6.3 lays it out: each deflated (method 8) or stored (0). */
function zip(files: Record<string, string>, method: 0 | 8 = 8): Uint8Array {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const [name, text] of Object.entries(files)) {
    const raw = Buffer.from(text, 'utf8');
    const data = method === 8 ? deflateRawSync(raw) : raw;
    const nameBytes = Buffer.from(name, 'utf8');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc32(raw), 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(raw.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt16LE(method, 10);
    entry.writeUInt32LE(crc32(raw), 16);
    entry.writeUInt32LE(data.length, 20);
    entry.writeUInt32LE(raw.length, 24);
    entry.writeUInt16LE(nameBytes.length, 28);
    entry.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, data);
    central.push(entry, nameBytes);
    offset += local.length + nameBytes.length + data.length;
  }
  const dir = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(files).length, 8);
  end.writeUInt16LE(Object.keys(files).length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return new Uint8Array(Buffer.concat([...locals, dir, end]));
}

type Canned = { status: number; json?: unknown; bytes?: Uint8Array };

/** A fetch that answers from canned responses and records the URLs it was given. */
function pipeline(responses: Canned[], maxPolls = 5) {
  const urls: string[] = [];
  const sleeps: number[] = [];
  const fake: typeof fetch = async (input) => {
    urls.push(String(input));
    const next = responses.shift();
    if (!next) throw new Error(`unexpected request ${String(input)}`);
    return next.bytes
      ? new Response(next.bytes, { status: next.status, headers: { 'Content-Type': 'application/zip' } })
      : new Response(JSON.stringify(next.json), {
          status: next.status,
          headers: { 'Content-Type': 'application/vnd.cvat+json' },
        });
  };
  const p = createTrainingPipeline({
    http: createCvatHttp({ baseUrl: 'http://cvat.test', token: 't', fetch: fake }),
    sleep: async (ms) => void sleeps.push(ms),
    pollIntervalMs: 100,
    maxPolls,
  });
  return { p, urls, sleeps };
}

const request = (status: string, extra: Record<string, unknown> = {}): Canned => ({
  status: 200,
  json: {
    status,
    message: '',
    id: RQ_ID,
    operation: { type: 'export:annotations', target: 'task', task_id: 42 },
    result_url: null,
    ...extra,
  },
});

describe('readZipEntry', () => {
  it('reads a deflated and a stored entry by name, and null for a name the archive lacks', () => {
    const files = { 'a.txt': 'first', [COCO_INSTANCES]: JSON.stringify(COCO) };
    for (const method of [8, 0] as const) {
      const archive = zip(files, method);
      expect(Buffer.from(readZipEntry(archive, COCO_INSTANCES) ?? []).toString()).toBe(files[COCO_INSTANCES]);
      expect(Buffer.from(readZipEntry(archive, 'a.txt') ?? []).toString()).toBe('first');
      expect(readZipEntry(archive, 'annotations/instances_train.json')).toBeNull();
    }
  });

  it("reads the instances of the consumer pact's example archive, and refuses bytes that are not a zip", () => {
    const example = readFileSync(new URL('./contract/fixtures/task-42-coco-1.0.zip', import.meta.url));
    const json = JSON.parse(Buffer.from(readZipEntry(example, COCO_INSTANCES) ?? []).toString());
    expect(readCocoInstances(json).categories).toEqual(['sign', 'pole']);
    expect(() => readZipEntry(Buffer.from('{"detail": "not a zip"}'), COCO_INSTANCES)).toThrow(/not a zip/);
  });
});

describe('readCocoInstances', () => {
  it('names each box by its image file and category, and refuses an annotation of an unlisted category', () => {
    expect(readCocoInstances(COCO)).toEqual({
      images: [{ file: 'a.jpg', width: 640, height: 480 }],
      categories: ['sign', 'pole'],
      boxes: [{ image: 'a.jpg', category: 'pole', bbox: [1.5, 2, 3, 4.25] }],
    });
    const stray = { ...COCO, annotations: [{ id: 9, image_id: 1, category_id: 3, bbox: [0, 0, 1, 1] }] };
    expect(() => readCocoInstances(stray)).toThrow(/annotation 9 names no listed image or category/);
  });
});

describe('createTrainingPipeline', () => {
  it('asks for COCO 1.0 without images, polls until finished, and downloads result_url as given', async () => {
    const { p, urls, sleeps } = pipeline([
      { status: 202, json: { rq_id: RQ_ID } },
      request('queued'),
      request('started'),
      request('finished', { result_url: RESULT_URL }),
      { status: 200, bytes: zip({ [COCO_INSTANCES]: JSON.stringify(COCO) }) },
    ]);
    const report = await p.fetchTrainingSet(42);
    expect(report).toMatchObject({ outcome: 'exported', rqId: RQ_ID, polls: 3 });
    expect(urls[0]).toBe('http://cvat.test/api/tasks/42/dataset/export?format=COCO+1.0&save_images=false');
    expect(urls[1]).toBe(`http://cvat.test/api/requests/${encodeURIComponent(RQ_ID)}`);
    expect(urls[4]).toBe(RESULT_URL);
    expect(sleeps).toEqual([100, 100]);
  });

  it("reports a failed export with the worker's message, and stops polling after maxPolls", async () => {
    const failed = pipeline([
      { status: 202, json: { rq_id: RQ_ID } },
      request('failed', { message: 'OSError: disk full\n' }),
    ]);
    expect(await failed.p.fetchTrainingSet(42)).toEqual({
      outcome: 'failed',
      rqId: RQ_ID,
      message: 'OSError: disk full\n',
    });
    const stuck = pipeline(
      [{ status: 202, json: { rq_id: RQ_ID } }, request('queued'), request('queued')],
      2,
    );
    expect(await stuck.p.fetchTrainingSet(42)).toEqual({ outcome: 'timed-out', rqId: RQ_ID, polls: 2 });
    expect(stuck.sleeps).toEqual([100]);
  });

  it("turns a refused export and a download that is gone into CVAT's errors", async () => {
    const refused = pipeline([{ status: 400, json: ['Unknown format specified for the request'] }]);
    expect(await refused.p.fetchTrainingSet(42)).toEqual({
      outcome: 'rejected',
      error: expect.objectContaining({ status: 400 }),
    });
    const gone = pipeline([
      { status: 202, json: { rq_id: RQ_ID } },
      request('finished', { result_url: RESULT_URL }),
      { status: 404, json: { detail: 'Unknown export request id' } },
    ]);
    expect(await gone.p.fetchTrainingSet(42)).toEqual({
      outcome: 'rejected',
      error: expect.objectContaining({ status: 404 }),
    });
  });
});
