/**
 * CVAT's test helpers for background requests (`tests/python/shared/utils/helpers.py`, `rest_api/utils.py`)
 * over the built CLI: a request polled once the manual clock moved past its work, an export started,
 * finished and downloaded (`export_dataset`, `export_backup`), a file imported in one multipart request
 * (`import_resource`).
 */
import { expect } from 'vitest';
import type { CliHarness } from './cli-harness';
import { fileForm } from './import-files';

/** `GET /api/requests/{rq_id}` as `as` once the clock moved past the request's work (`org` its context). */
export async function endedRequest(h: CliHarness, rqId: string, as: string, org = '') {
  await h.advance('5s');
  const res = await h.get(`/api/requests/${encodeURIComponent(rqId)}${org && `?org=${org}`}`, { as });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/**
 * `POST <path>?<query>` (an export) as `as`, the request polled until finished; with `download`, the file
 * at its `result_url`.
 */
export async function exportedFile(
  h: CliHarness,
  path: string,
  as: string,
  query: Record<string, string> = {},
  download = true,
): Promise<Uint8Array | undefined> {
  const search = new URLSearchParams(query).toString();
  const started = await h.post(
    `${path}${search ? `${path.includes('?') ? '&' : '?'}${search}` : ''}`,
    undefined,
    {
      as,
    },
  );
  expect(started.status, started.text).toBe(202);
  const rq = await endedRequest(h, started.body.rq_id, as, query.org ?? '');
  expect(rq.status, rq.message).toBe('finished');
  if (!download) return undefined;
  const url = new URL(rq.result_url);
  const res = await h.send('GET', `${url.pathname}${url.search}`, as, {});
  expect(res.status).toBe(200);
  return new Uint8Array(await res.arrayBuffer());
}

/** `import_resource`: the file in one multipart request (`field`, `file.zip`); the request once it ended. */
export async function importedFile(
  h: CliHarness,
  path: string,
  field: string,
  bytes: Uint8Array,
  as: string,
) {
  const form = fileForm(bytes, field);
  const res = await h.send('POST', path, as, { 'content-type': form.type }, form.body);
  expect(res.status, await res.clone().text()).toBe(202);
  return endedRequest(h, ((await res.json()) as { rq_id: string }).rq_id, as);
}
