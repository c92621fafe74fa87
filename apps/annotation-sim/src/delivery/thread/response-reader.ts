// Reads one HTTP/1.x response the way Python's http.client does, from the bytes a socket delivers.
import zlib from 'node:zlib';
import type { WireOutcome } from './protocol';

const CR = '\r';
const LF = '\n';
const DIGITS = /^[0-9]+$/;

export interface ResponseReader {
  /** Bytes read from the socket. */
  push(buf: Buffer): void;
  /** The peer closed (or the socket ended): what has been read is all there is. */
  end(): void;
  /** Whether a head has been read (the response has begun). */
  started(): boolean;
}

function errorCode(err: unknown): unknown {
  return (err as { code?: unknown } | null)?.code;
}

/**
 * urllib3's decode_content: gzip and deflate (zlib-wrapped or raw); other codings stay as they are. Null
 * when the decoded body would be over `maxResponseBytes`.
 */
function decode(body: Buffer, coding: string, maxResponseBytes: number): Buffer | null {
  const opts = { maxOutputLength: maxResponseBytes + 1 };
  try {
    if (coding === 'gzip' || coding === 'x-gzip') return zlib.gunzipSync(body, opts);
    if (coding === 'deflate') {
      try {
        return zlib.inflateSync(body, opts);
      } catch (err) {
        if (errorCode(err) === 'ERR_BUFFER_TOO_LARGE') throw err;
        return zlib.inflateRawSync(body, opts);
      }
    }
  } catch (err) {
    if (errorCode(err) === 'ERR_BUFFER_TOO_LARGE') return null;
    return body;
  }
  return body;
}

/** The end of the head in buf (the index after its blank line), or -1. */
function headEnd(buf: Buffer): number {
  for (let i = buf.indexOf(10); i !== -1; i = buf.indexOf(10, i + 1)) {
    if (buf[i + 1] === 10) return i + 2;
    if (buf[i + 1] === 13 && buf[i + 2] === 10) return i + 3;
  }
  return -1;
}

/**
 * Reads one HTTP/1.x response from the bytes given to push(), as http.client does; calls finish(outcome)
 * once, when the response is complete or cannot be. `100 Continue` heads are skipped, other 1xx, 204 and
 * 304 have no body, then `Transfer-Encoding: chunked`, `Content-Length`, else up to the peer's close; the
 * body is decoded when `Content-Encoding` is gzip or deflate. A body over `maxResponseBytes` is "".
 */
export function responseReader(
  finish: (outcome: WireOutcome) => void,
  maxResponseBytes: number,
): ResponseReader {
  let head: Buffer | null = null; // bytes of the head not yet complete
  let status = 0;
  let mode: '' | 'length' | 'chunked' | 'close' | 'none' = '';
  let remaining = 0; // length mode: body bytes still due; chunked: bytes of the current chunk
  let chunkState: 'size' | 'data' | 'data-end' | 'trailer' = 'size';
  let line: Buffer | null = null; // chunked: the partial size or trailer line
  let coding = '';
  const chunks: Buffer[] = [];
  let size = 0;
  let tooBig = false;
  let done = false;
  const complete = () => {
    if (done) return;
    done = true;
    if (tooBig) return finish({ kind: 'response', status, body: '' });
    let body: Buffer | null = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
    if (coding !== '' && coding !== 'identity' && body.length > 0)
      body = decode(body, coding, maxResponseBytes);
    if (body === null || body.length > maxResponseBytes)
      return finish({ kind: 'response', status, body: '' });
    finish({ kind: 'response', status, body: body.toString('utf8') });
  };
  const fail = (outcome: WireOutcome) => {
    if (done) return;
    done = true;
    finish(outcome);
  };
  const keep = (bytes: Buffer) => {
    if (tooBig || bytes.length === 0) return;
    size += bytes.length;
    if (size > (coding === '' || coding === 'identity' ? maxResponseBytes : 2 * maxResponseBytes + 64)) {
      tooBig = true;
      chunks.length = 0;
      return complete();
    }
    chunks.push(bytes);
  };
  /** Takes a head (latin1 text as read, its blank line included); false when it failed the response. */
  const takeHead = (text: string): boolean => {
    const nl = text.indexOf(LF);
    // The status line as http.client's readline returns it (line end included), for BadStatusLine.
    const statusLine = nl === -1 ? text : text.slice(0, nl + 1);
    const lines = text.split(LF).map((l) => (l.endsWith(CR) ? l.slice(0, -1) : l));
    const first = lines[0] as string;
    const parts = first
      .trim()
      .split(' ')
      .filter((x) => x !== '');
    const version = parts[0] || '';
    const code = parts[1] || '';
    if (!version.startsWith('HTTP/')) {
      fail({ kind: 'aborted', cause: 'bad-status-line', detail: statusLine });
      return false;
    }
    const n = code.length === 3 && DIGITS.test(code) ? Number(code) : Number.NaN;
    if (!(n >= 100 && n <= 999)) {
      fail({ kind: 'aborted', cause: 'bad-status-line', detail: statusLine });
      return false;
    }
    if (version !== 'HTTP/1.0' && version !== 'HTTP/0.9' && !version.startsWith('HTTP/1.')) {
      fail({ kind: 'aborted', cause: 'unknown-protocol', detail: version });
      return false;
    }
    if (n === 100) return true; // skipped, as http.client skips it; the real head follows
    status = n;
    let length = -1;
    let chunked = false;
    for (let i = 1; i < lines.length; i++) {
      const l = lines[i] as string;
      const colon = l.indexOf(':');
      if (colon <= 0) continue;
      const name = l.slice(0, colon).trim().toLowerCase();
      const value = l.slice(colon + 1).trim();
      if (name === 'transfer-encoding') chunked = value.toLowerCase() === 'chunked';
      else if (name === 'content-length') length = DIGITS.test(value) ? Number(value) : -1;
      else if (name === 'content-encoding') coding = value.toLowerCase();
    }
    if (n === 204 || n === 304 || (n >= 100 && n < 200)) mode = 'none';
    else if (chunked) mode = 'chunked';
    else if (length >= 0) {
      mode = 'length';
      remaining = length;
    } else mode = 'close';
    return true;
  };
  /** Feeds body bytes to the current mode. */
  const body = (buf: Buffer) => {
    if (mode === 'length') {
      const take = Math.min(remaining, buf.length);
      keep(take === buf.length ? buf : buf.subarray(0, take));
      remaining -= take;
      if (remaining === 0) complete();
    } else if (mode === 'close') keep(buf);
    else if (mode === 'chunked') chunkedBody(buf);
  };
  const chunkedBody = (buf: Buffer) => {
    let i = 0;
    while (i < buf.length && !done) {
      if (chunkState === 'data') {
        const take = Math.min(remaining, buf.length - i);
        keep(buf.subarray(i, i + take));
        remaining -= take;
        i += take;
        if (remaining === 0) chunkState = 'data-end';
        continue;
      }
      const nl = buf.indexOf(10, i);
      const piece = buf.subarray(i, nl === -1 ? buf.length : nl + 1);
      line = line === null ? piece : Buffer.concat([line, piece]);
      i += piece.length;
      if (nl === -1) {
        if (line.length > 65536) return complete();
        return;
      }
      const text = line.toString('latin1').trim();
      line = null;
      if (chunkState === 'data-end') chunkState = 'size';
      else if (chunkState === 'size') {
        const hex = (text.split(';')[0] as string).trim();
        const n = /^[0-9a-fA-F]+$/.test(hex) ? Number.parseInt(hex, 16) : Number.NaN;
        if (Number.isNaN(n)) return complete();
        if (n === 0) chunkState = 'trailer';
        else {
          remaining = n;
          chunkState = 'data';
        }
      } else if (chunkState === 'trailer' && text === '') return complete();
    }
  };
  return {
    push(buf) {
      if (done) return;
      if (mode !== '') return body(buf);
      head = head === null ? buf : Buffer.concat([head, buf]);
      for (;;) {
        const end = headEnd(head);
        if (end === -1) {
          if (head.length > 65536) {
            // http.client's _MAXLINE: a status or header line longer than 65,536 bytes.
            const nl = head.indexOf(10);
            fail({
              kind: 'aborted',
              cause: 'line-too-long',
              detail: nl === -1 || nl > 65536 ? 'status line' : 'header line',
            });
          }
          return;
        }
        const text = head.toString('latin1', 0, end);
        const rest = head.subarray(end);
        if (!takeHead(text)) return;
        head = rest;
        // takeHead sets the mode (TypeScript cannot see that through the call).
        const now = mode as typeof mode;
        if (now === '') {
          if (head.length === 0) {
            head = null;
            return;
          }
          continue; // a 100 Continue head: the next head follows
        }
        if (now === 'none') return complete();
        if (now === 'length' && remaining === 0) return complete();
        if (rest.length > 0) body(rest);
        return;
      }
    },
    end() {
      if (done) return;
      if (mode === '') {
        if (head === null || head.length === 0)
          return fail({ kind: 'aborted', cause: 'remote-disconnected', detail: '' });
        // http.client reads the head up to the end of the stream.
        const text = head.toString('latin1');
        head = null;
        if (!takeHead(text)) return;
        if ((mode as typeof mode) === '')
          return fail({ kind: 'aborted', cause: 'remote-disconnected', detail: '' });
      }
      complete();
    },
    started: () => mode !== '',
  };
}
