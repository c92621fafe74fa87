import { expect } from 'vitest';
import type { CliHarness } from './cli-harness';

/**
 * The CVAT SDK's `Uploader.upload_file` against the built CLI: `Upload-Start`, a TUS upload in three
 * chunks (`Upload-Length`, then `PATCH`es at each `Upload-Offset`), `Upload-Finish` with `filename` the
 * upload's `Upload-Filename`. `path` is the view (`/api/tasks/5/annotations/`), `query` what every step
 * carries (`org=acme&format=CVAT%201.1`). Returns the finishing request's answer.
 */
export async function tusUpload(
  h: CliHarness,
  path: string,
  query: string,
  bytes: Uint8Array,
  as: string,
): Promise<Response> {
  expect((await h.send('POST', `${path}?${query}`, as, { 'Upload-Start': 'true' })).status).toBe(202);
  const created = await h.send('POST', `${path}?${query}`, as, {
    'Tus-Resumable': '1.0.0',
    'Upload-Length': String(bytes.length),
    'Upload-Metadata': `filename ${Buffer.from('upload.zip').toString('base64')}`,
  });
  expect(created.status).toBe(201);
  const fileId = created.headers.get('upload-filename') as string;
  const location = new URL(created.headers.get('location') as string);
  expect(location.pathname).toBe(`${path.endsWith('/') ? path : `${path}/`}${fileId}`);
  const step = Math.ceil(bytes.length / 3);
  for (let at = 0; at < bytes.length; at += step) {
    const chunk = bytes.subarray(at, Math.min(at + step, bytes.length));
    const res = await h.send(
      'PATCH',
      `${location.pathname}?${query}`,
      as,
      {
        'Tus-Resumable': '1.0.0',
        'Upload-Offset': String(at),
        'Content-Type': 'application/offset+octet-stream',
      },
      chunk,
    );
    expect(res.status).toBe(204);
    expect(res.headers.get('upload-offset')).toBe(String(at + chunk.length));
  }
  return h.send('POST', `${path}?${query}&filename=${fileId}`, as, { 'Upload-Finish': 'true' });
}
