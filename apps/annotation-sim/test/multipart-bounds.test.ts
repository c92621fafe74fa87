import { afterEach, describe, expect, it } from 'vitest';
import { requestsOf } from '../src/domain/requests/state';
import { type FormPart, MAX_MULTIPART_PARTS, readMultipart } from '../src/http/multipart';
import { DJANGO_400_PAGE } from '../src/http/respond';
import { MAX_UPLOAD_FILES } from '../src/http/routes/task-data';
import { createHarness, type Harness, TEAM } from './support/harness';

/**
 * Multipart bodies and upload directories are bounded (chosen; FIDELITY.md, Limits): CVAT turns off
 * Django's DATA_UPLOAD_MAX_NUMBER_FILES and _FIELDS, and 100 MiB of tiny parts took a 256 MB heap past its
 * limit (issue 33 review). Past a bound the answer is Django's 400 page, and nothing is kept.
 */
let h: Harness;
afterEach(() => h?.close());

function world() {
  h = createHarness();
  h.seed({
    ...TEAM,
    projects: [{ name: 'acme-p', owner: 'alice', org: 'acme' }],
    tasks: [{ name: 't', owner: 'alice', project: 'acme-p' }],
  });
}

const BOUNDARY = 'B';
const TYPE = `multipart/form-data; boundary=${BOUNDARY}`;
const DATA = '/api/tasks/1/data/?org=acme';

/** `count` parts named `field`, empty files unless `file` is null (the review's 52-byte part). */
const parts = (count: number, field = 'client_files[0]', file: string | null = 'b') =>
  `--${BOUNDARY}\r\ncontent-disposition:name="${field}"${file === null ? '' : `;filename="${file}"`}\r\n\r\n\r\n`.repeat(
    count,
  );
const CLOSE = `--${BOUNDARY}--\r\n`;
/** `count` tiny file parts: an Upload-Multiple batch. */
const tinyFiles = (count: number) => parts(count) + CLOSE;
/** A one-request data upload: `image_quality`, `files` tiny `client_files[i]` parts, then `notes` plain fields. */
const dataRequest = (files: number, notes = 0) =>
  `--${BOUNDARY}\r\ncontent-disposition: form-data; name="image_quality"\r\n\r\n70\r\n` +
  parts(files) +
  parts(notes, 'note', null) +
  CLOSE;

const send = (headers: Record<string, string>, raw?: string) =>
  h.request('POST', DATA, { as: 'alice', headers, ...(raw !== undefined ? { raw } : {}) });
const uploadMultiple = (raw: string) => send({ 'upload-multiple': '', 'content-type': TYPE }, raw);
const uploaded = () => requestsOf(h.state()).uploads.get(1)?.files ?? [];

function expectRefused(res: { status: number; text: string; headers: Headers }, reason: string) {
  expect(res.status).toBe(400);
  expect(res.text).toBe(DJANGO_400_PAGE);
  expect(res.headers.get('x-sim-reason')).toBe(reason);
}

describe('the parts of one multipart body', () => {
  it('are counted before any is read: past the bound none is visited', () => {
    const visited: FormPart[] = [];
    const body = Buffer.from(tinyFiles(11));
    expect(readMultipart(body, TYPE, (p) => visited.push(p), 10)).toEqual({
      ok: false,
      reason: 'too-many-parts',
      limit: 10,
    });
    expect(visited).toEqual([]);
    expect(readMultipart(Buffer.from(tinyFiles(10)), TYPE, (p) => visited.push(p), 10)).toEqual({
      ok: true,
      parts: 10,
    });
    expect(visited).toHaveLength(10);
  });

  it('answers an Upload-Multiple of more parts than the bound with the 400 page and adds no file', async () => {
    world();
    expect((await send({ 'upload-start': '' })).status).toBe(202);
    const res = await uploadMultiple(tinyFiles(MAX_MULTIPART_PARTS + 1));
    expectRefused(res, `multipart body of more than ${MAX_MULTIPART_PARTS} parts`);
    expect(uploaded()).toEqual([]);
  });

  it('answers a one-request upload of more parts than the bound with the 400 page and creates no data', async () => {
    world();
    // One file and plain fields: the bound counts every part.
    const res = await send({ 'content-type': TYPE }, dataRequest(1, MAX_MULTIPART_PARTS - 1));
    expectRefused(res, `multipart body of more than ${MAX_MULTIPART_PARTS} parts`);
    expect((await h.get('/api/tasks/1?org=acme', { as: 'alice' })).body).toMatchObject({ size: 0 });
    expect(requestsOf(h.state()).requests.size).toBe(0);
  });
});

/**
 * Steps of every array iterator while `run` runs (spreads, for…of, Array.from): the work done on a
 * list, counted; past `cap` steps the next one throws, so a quadratic path fails at once, not in minutes.
 */
async function iteratorSteps<T>(cap: number, run: () => Promise<T>): Promise<{ steps: number; result: T }> {
  const proto = Object.getPrototypeOf([][Symbol.iterator]()) as { next: (...a: unknown[]) => unknown };
  const next = proto.next;
  let steps = 0;
  proto.next = function (this: unknown, ...args: unknown[]) {
    // Once: the handler stops, and what answers its error may iterate.
    if (++steps === cap + 1) throw new Error(`more than ${cap} iterator steps`);
    return next.apply(this, args);
  };
  try {
    const result = await run();
    return { steps, result };
  } finally {
    proto.next = next;
  }
}

describe('client_files parts', () => {
  it('are gathered in work linear in their number: 20,000 files in one request', async () => {
    world();
    const files = 20_000;
    const { steps, result } = await iteratorSteps(100 * files, () =>
      send({ 'content-type': TYPE }, dataRequest(files)),
    );
    expect(result.status).toBe(202);
    expect((await h.get('/api/tasks/1?org=acme', { as: 'alice' })).body).toMatchObject({ size: files });
    // A few steps a file at most; a copy of the list per part was files² / 2 (200 million).
    expect(steps).toBeLessThan(3 * files);
  });
});

describe("a task's upload directory", () => {
  it('takes files up to its bound, refuses a batch or a TUS upload past it, and keeps what it had', async () => {
    world();
    expect((await send({ 'upload-start': '' })).status).toBe(202);
    const first = MAX_UPLOAD_FILES - 40_000;
    expect((await uploadMultiple(tinyFiles(first))).status).toBe(200);
    expectRefused(
      await uploadMultiple(tinyFiles(40_001)),
      `upload directory of more than ${MAX_UPLOAD_FILES} files`,
    );
    expect(uploaded()).toHaveLength(first);
    expect((await uploadMultiple(tinyFiles(40_000))).status).toBe(200);
    expect(uploaded()).toHaveLength(MAX_UPLOAD_FILES);
    const tus = await send({
      'upload-length': '5',
      'upload-metadata': `filename ${Buffer.from('late.jpg').toString('base64')}`,
    });
    expectRefused(tus, `upload directory of more than ${MAX_UPLOAD_FILES} files`);
    expect(requestsOf(h.state()).uploads.get(1)?.tus).toEqual([]);
  });

  it("keeps a file's name as Django does: headers past 1,024 bytes skip the part, a name is cut to 255 characters", async () => {
    world();
    expect((await send({ 'upload-start': '' })).status).toBe(202);
    const long = `${'n'.repeat(300)}.jpg`;
    const padded = `x-pad: ${'p'.repeat(1024)}\r\n`;
    const body =
      `--${BOUNDARY}\r\ncontent-disposition: form-data; name="client_files[0]"; filename="dir/${long}"\r\n\r\nab\r\n` +
      `--${BOUNDARY}\r\ncontent-disposition: form-data; name="client_files[1]"; filename="b.jpg"\r\n${padded}\r\nab\r\n` +
      `--${BOUNDARY}--\r\n`;
    expect((await uploadMultiple(body)).status).toBe(200);
    expect(uploaded()).toEqual([{ name: `${'n'.repeat(251)}.jpg`, size: 2 }]);
  });
});
