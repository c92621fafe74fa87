/** One part of a `multipart/form-data` body: a field's value, or a file's name and size. */
export interface FormPart {
  name: string;
  /** The file name a file part declares (`filename="…"`); undefined for a plain field. */
  filename?: string;
  /** The text of a plain field. */
  value: string;
  /** The part's content size in bytes. */
  size: number;
  /**
   * A file part's content: a view into the body, read while the part is visited (an image's header
   * gives its frame size) and never kept.
   */
  content?: Uint8Array;
}

/**
 * Parts one multipart body may hold (files, fields and parts without a name alike). Chosen: CVAT turns
 * off Django's own bounds (`DATA_UPLOAD_MAX_NUMBER_FILES = None`, `DATA_UPLOAD_MAX_NUMBER_FIELDS = None`),
 * and 100 MiB of 52-byte parts is 1.8 million parts, whose objects took a 256 MB heap past its limit.
 * 100,000 tiny files (the SDK batches files by bytes, not by count) still pass.
 */
export const MAX_MULTIPART_PARTS = 100_000;

/** Django 4.2's multipart parser reads a part's headers from its first 1,024 bytes (`parse_boundary_stream`). */
const MAX_PART_HEAD_BYTES = 1024;

/** Django's `UploadedFile` cuts a file's name to 255 characters, keeping its extension. */
const MAX_FILE_NAME_CHARS = 255;

/** How reading a multipart body ended: its parts were visited, or why none was. */
export type MultipartRead =
  | { ok: true; parts: number }
  | { ok: false; reason: 'no-boundary' }
  | { ok: false; reason: 'too-many-parts'; limit: number };

/**
 * Visits the parts of a multipart body (RFC 7578) as Django 4.2 reads them, from its bytes as the kernel
 * kept them (never decoded whole: files may be anything, up to the 100 MiB body limit). The parts are
 * counted first, without reading any: a body of more than `maxParts` visits none. File contents are only
 * measured, in bytes (the simulator keeps no media); headers and plain fields are read as UTF-8. A part
 * whose headers do not end within its first 1,024 bytes is skipped, as Django does.
 *
 * @example readMultipart(body, 'multipart/form-data; boundary=X', (p) => parts.push(p)) // { ok: true, parts: 2 }
 */
export function readMultipart(
  body: Uint8Array,
  contentType: string,
  visit: (part: FormPart) => void,
  maxParts = MAX_MULTIPART_PARTS,
): MultipartRead {
  const boundary = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const mark = boundary?.[1] ?? boundary?.[2];
  if (mark === undefined) return { ok: false, reason: 'no-boundary' };
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const delimiter = Buffer.from(`--${mark}`);
  if (countParts(bytes, delimiter, maxParts) > maxParts)
    return { ok: false, reason: 'too-many-parts', limit: maxParts };
  let parts = 0;
  for (let at = bytes.indexOf(delimiter); at !== -1; ) {
    const start = at + delimiter.length;
    const next = bytes.indexOf(delimiter, start);
    // What lies between one delimiter and the next (or the end).
    const chunk = bytes.subarray(start, next === -1 ? bytes.length : next);
    at = next;
    if (isCloseDelimiter(chunk)) break;
    parts++;
    const part = readPart(chunk);
    if (part !== undefined) visit(part);
  }
  return { ok: true, parts };
}

/**
 * The parts between `delimiter`s, up to the closing one, counting no further than one past `max`: one
 * search a part and nothing built, so a body of millions of tiny parts is refused in a few milliseconds.
 */
function countParts(bytes: Buffer, delimiter: Buffer, max: number): number {
  let count = 0;
  for (let at = bytes.indexOf(delimiter); at !== -1 && count <= max; ) {
    const start = at + delimiter.length;
    if (bytes[start] === DASH && bytes[start + 1] === DASH) break;
    count++;
    at = bytes.indexOf(delimiter, start);
  }
  return count;
}

const isCloseDelimiter = (chunk: Buffer) => chunk[0] === DASH && chunk[1] === DASH;

/** One part from the bytes after its delimiter; undefined for a part Django ignores. */
function readPart(chunk: Buffer): FormPart | undefined {
  const headEnd = chunk.subarray(0, MAX_PART_HEAD_BYTES).indexOf(HEAD_END);
  if (headEnd === -1) return undefined;
  const head = chunk.toString('utf8', 0, headEnd);
  // The content ends before the CRLF that precedes the next boundary.
  const crlfEnd = chunk.length >= 2 && chunk[chunk.length - 2] === CR && chunk[chunk.length - 1] === LF;
  const content = chunk.subarray(headEnd + 4, crlfEnd ? Math.max(headEnd + 4, chunk.length - 2) : undefined);
  const disposition = /content-disposition:([^\r\n]*)/i.exec(head)?.[1] ?? '';
  const name = /\bname="([^"]*)"/i.exec(disposition)?.[1];
  if (name === undefined) return undefined;
  const filename = /\bfilename="([^"]*)"/i.exec(disposition)?.[1];
  return {
    name: own(name),
    ...(filename !== undefined ? { filename: own(filename) } : {}),
    value: filename !== undefined ? '' : content.toString('utf8'),
    size: content.byteLength,
    ...(filename !== undefined ? { content } : {}),
  };
}

/**
 * A copy of a text taken out of a part's headers: V8 makes a substring a slice that keeps its whole
 * parent alive, and a name kept in an upload directory must not keep a kilobyte of headers.
 */
const own = (text: string): string => (text.length < 13 ? text : Buffer.from(text).toString());

/**
 * The name Django gives an uploaded file (`UploadedFile.name`): its base name, cut to 255 characters
 * (code points) with its extension kept; a copy that keeps nothing else of the body alive.
 *
 * @example uploadedFileName('dir/a.jpg') // 'a.jpg'
 */
export function uploadedFileName(declared: string): string {
  const base = declared.slice(Math.max(declared.lastIndexOf('/'), declared.lastIndexOf('\\')) + 1);
  // Python counts code points: only a name with a surrogate pair needs them split out.
  const chars: string | string[] = /[\uD800-\uDFFF]/.test(base) ? Array.from(base) : base;
  if (chars.length <= MAX_FILE_NAME_CHARS) return base === declared ? base : own(base);
  // os.path.splitext: the last dot with something other than dots before it starts the extension.
  let first = 0;
  while (first < chars.length && chars[first] === '.') first++;
  const dot = chars.lastIndexOf('.');
  const extAt = first < chars.length && dot > first ? dot : chars.length;
  const ext = chars.slice(extAt, extAt + MAX_FILE_NAME_CHARS);
  const stem = chars.slice(0, Math.min(extAt, MAX_FILE_NAME_CHARS - ext.length));
  return typeof stem === 'string' ? own(stem + ext) : [...stem, ...ext].join('');
}

const DASH = 0x2d;
const CR = 0x0d;
const LF = 0x0a;
const HEAD_END = Buffer.from('\r\n\r\n');
