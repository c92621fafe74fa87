/** One part of a `multipart/form-data` body: a field's value, or a file's name and size. */
export interface FormPart {
  name: string;
  /** The file name a file part declares (`filename="…"`); undefined for a plain field. */
  filename?: string;
  /** The text of a plain field. */
  value: string;
  /** The part's content size in bytes, as the body text holds it. */
  size: number;
}

/**
 * The parts of a multipart body (RFC 7578), from its text as the kernel read it; undefined when the
 * Content-Type names no boundary. File contents are only measured: the simulator keeps no media.
 *
 * @example parseMultipart(body, 'multipart/form-data; boundary=X') // [{ name: 'image_quality', value: '70', size: 2 }]
 */
export function parseMultipart(body: string, contentType: string): FormPart[] | undefined {
  const boundary = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const mark = boundary?.[1] ?? boundary?.[2];
  if (mark === undefined) return undefined;
  const parts: FormPart[] = [];
  for (const chunk of body.split(`--${mark}`).slice(1)) {
    if (chunk.startsWith('--')) break;
    const headEnd = chunk.indexOf('\r\n\r\n');
    if (headEnd === -1) continue;
    const head = chunk.slice(0, headEnd);
    // The content ends before the CRLF that precedes the next boundary.
    const content = chunk.slice(headEnd + 4, chunk.endsWith('\r\n') ? -2 : undefined);
    const disposition = /content-disposition:([^\r\n]*)/i.exec(head)?.[1] ?? '';
    const name = /\bname="([^"]*)"/i.exec(disposition)?.[1];
    if (name === undefined) continue;
    const filename = /\bfilename="([^"]*)"/i.exec(disposition)?.[1];
    parts.push({
      name,
      ...(filename !== undefined ? { filename } : {}),
      value: filename !== undefined ? '' : content,
      size: Buffer.byteLength(content, 'utf8'),
    });
  }
  return parts;
}
