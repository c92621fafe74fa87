/** One part of a `multipart/form-data` body: a field's value, or a file's name and size. */
export interface FormPart {
  name: string;
  /** The file name a file part declares (`filename="…"`); undefined for a plain field. */
  filename?: string;
  /** The text of a plain field. */
  value: string;
  /** The part's content size in bytes. */
  size: number;
}

/**
 * The parts of a multipart body (RFC 7578), from its bytes as the kernel kept them (a multipart body is
 * never decoded whole: files may be anything, up to the 100 MiB body limit); undefined when the
 * Content-Type names no boundary. File contents are only measured, in bytes: the simulator keeps no
 * media. Part headers and plain fields are read as UTF-8.
 *
 * @example parseMultipart(body, 'multipart/form-data; boundary=X') // [{ name: 'image_quality', value: '70', size: 2 }]
 */
export function parseMultipart(body: Uint8Array, contentType: string): FormPart[] | undefined {
  const boundary = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const mark = boundary?.[1] ?? boundary?.[2];
  if (mark === undefined) return undefined;
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const delimiter = Buffer.from(`--${mark}`);
  const parts: FormPart[] = [];
  // What lies between one delimiter and the next (or the end), as `text.split(delimiter).slice(1)`.
  for (let at = bytes.indexOf(delimiter); at !== -1; ) {
    const start = at + delimiter.length;
    const next = bytes.indexOf(delimiter, start);
    const chunk = bytes.subarray(start, next === -1 ? bytes.length : next);
    at = next;
    if (chunk[0] === DASH && chunk[1] === DASH) break;
    const headEnd = chunk.indexOf(HEAD_END);
    if (headEnd === -1) continue;
    const head = chunk.toString('utf8', 0, headEnd);
    // The content ends before the CRLF that precedes the next boundary.
    const crlfEnd = chunk.length >= 2 && chunk[chunk.length - 2] === CR && chunk[chunk.length - 1] === LF;
    const content = chunk.subarray(
      headEnd + 4,
      crlfEnd ? Math.max(headEnd + 4, chunk.length - 2) : undefined,
    );
    const disposition = /content-disposition:([^\r\n]*)/i.exec(head)?.[1] ?? '';
    const name = /\bname="([^"]*)"/i.exec(disposition)?.[1];
    if (name === undefined) continue;
    const filename = /\bfilename="([^"]*)"/i.exec(disposition)?.[1];
    parts.push({
      name,
      ...(filename !== undefined ? { filename } : {}),
      value: filename !== undefined ? '' : content.toString('utf8'),
      size: content.byteLength,
    });
  }
  return parts;
}

const DASH = 0x2d;
const CR = 0x0d;
const LF = 0x0a;
const HEAD_END = Buffer.from('\r\n\r\n');
