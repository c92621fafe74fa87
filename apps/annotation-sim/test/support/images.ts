import { crc32, deflateSync, inflateSync } from 'node:zlib';
import * as jpeg from 'jpeg-js';
import type { Harness } from './harness';

/** Encoded JPEGs by size: jpeg-js builds its tables for each encoder, a third of a second each. */
const encoded = new Map<string, Uint8Array>();

/** A real JPEG of `width`×`height` (jpeg-js's encoder: JFIF APP0 before the frame header). */
export function jpegFile(width: number, height: number): Uint8Array {
  const key = `${width}x${height}`;
  let bytes = encoded.get(key);
  if (bytes === undefined) {
    const data = Buffer.alloc(width * height * 4, 0x80);
    bytes = new Uint8Array(jpeg.encode({ data, width, height }, 80).data);
    encoded.set(key, bytes);
  }
  return bytes;
}

/** The same JPEG with an EXIF APP1 segment of `exifBytes` bytes before the frame header, as cameras write. */
export function jpegWithExif(width: number, height: number, exifBytes: number): Uint8Array {
  const plain = jpegFile(width, height);
  const payload = Buffer.concat([Buffer.from('Exif\0\0'), Buffer.alloc(exifBytes - 6, 0x2a)]);
  const length = payload.length + 2;
  const app1 = Buffer.concat([Buffer.from([0xff, 0xe1, length >> 8, length & 0xff]), payload]);
  return new Uint8Array(Buffer.concat([plain.subarray(0, 2), app1, plain.subarray(2)]));
}

function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

/** A real greyscale PNG of `width`×`height` (signature, IHDR, one IDAT, IEND). */
export function pngFile(width: number, height: number): Uint8Array {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // greyscale
  const rows = Buffer.alloc((width + 1) * height, 0x40);
  for (let y = 0; y < height; y++) rows[y * (width + 1)] = 0; // filter: none
  return new Uint8Array(
    Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      pngChunk('IHDR', ihdr),
      pngChunk('IDAT', deflateSync(rows)),
      pngChunk('IEND', Buffer.alloc(0)),
    ]),
  );
}

/** A multipart body of `client_files[i]` parts and plain fields, as CVAT's SDK sends a data request. */
export function multipartFiles(
  files: { name: string; bytes: Uint8Array }[],
  fields: Record<string, string | string[]> = {},
): { body: Uint8Array; type: string } {
  const boundary = 'sim-boundary-7d1';
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    for (const v of Array.isArray(value) ? value : [value]) {
      parts.push(
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${v}\r\n`),
      );
    }
  }
  files.forEach((f, i) => {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="client_files[${i}]"; filename="${f.name}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
      ),
      Buffer.from(f.bytes),
      Buffer.from('\r\n'),
    );
  });
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: new Uint8Array(Buffer.concat(parts)), type: `multipart/form-data; boundary=${boundary}` };
}

/** A multipart body of one file part `field` (`dataset_file`, `project_file`, …), as the SDK sends an import. */
export function fileForm(
  field: string,
  filename: string,
  bytes: Uint8Array,
): { body: Uint8Array; headers: Record<string, string> } {
  const boundary = 'sim-file-boundary-3c2';
  const body = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${filename}"\r\n` +
        'Content-Type: application/zip\r\n\r\n',
    ),
    Buffer.from(bytes),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return {
    body: new Uint8Array(body),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}

/** Sends raw bytes as `user` (the harness's `request` sends text). */
export function sendBytes(
  h: Harness,
  method: string,
  path: string,
  user: string,
  headers: Record<string, string>,
  body?: Uint8Array,
): Promise<Response> {
  return Promise.resolve(
    h.sim.app.request(`http://localhost${path}`, {
      method,
      headers: { authorization: `Basic ${Buffer.from(`${user}:password`).toString('base64')}`, ...headers },
      body,
    }),
  );
}

/** The width and height a JPEG decodes to (jpeg-js's decoder: the bytes are a JPEG any client reads). */
export function decodedJpegSize(bytes: Uint8Array): { width: number; height: number } {
  const image = jpeg.decode(bytes, { useTArray: true });
  return { width: image.width, height: image.height };
}

/**
 * The width and height of an 8-bit greyscale PNG, decoded: every chunk's CRC checked, the image data
 * inflated to one filter byte and `width` pixels a row.
 */
export function decodedPngSize(bytes: Uint8Array): { width: number; height: number } {
  const b = Buffer.from(bytes);
  if (b.subarray(0, 8).toString('latin1') !== '\x89PNG\r\n\x1a\n') throw new Error('not a PNG');
  let width = 0;
  let height = 0;
  const idat: Buffer[] = [];
  for (let at = 8; at < b.length; ) {
    const length = b.readUInt32BE(at);
    const type = b.subarray(at + 4, at + 8).toString('latin1');
    const data = b.subarray(at + 8, at + 8 + length);
    if (crc32(b.subarray(at + 4, at + 8 + length)) >>> 0 !== b.readUInt32BE(at + 8 + length)) {
      throw new Error(`bad CRC in ${type}`);
    }
    if (type === 'IHDR') [width, height] = [data.readUInt32BE(0), data.readUInt32BE(4)];
    if (type === 'IDAT') idat.push(data);
    at += 12 + length;
  }
  const rows = inflateSync(Buffer.concat(idat));
  if (rows.length !== (width + 1) * height) throw new Error('image data of the wrong size');
  return { width, height };
}
