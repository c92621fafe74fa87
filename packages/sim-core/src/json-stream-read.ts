import * as fs from 'node:fs';
import { joinPath } from './duration';

/**
 * A JSON file read without ever holding its text as one string: a small scanner (strings, escapes,
 * nesting) splits it, a container small enough is handed to `JSON.parse` whole, and a larger one is
 * built member by member, so a 95 MB world loads as a series of small parses. The value is the one
 * `JSON.parse` of the whole text would give (a file written by `JSON.stringify` or by hand loads the
 * same), and a file that is not JSON is refused with the byte offset and the member it was in.
 */

/** Segments of a long path shown before and after the `…` in a message. */
const PATH_HEAD = 10;
const PATH_TAIL = 3;

/**
 * A member path for a message: whole when short, else its first segments … its last, so that a value
 * nested a thousand levels deep is not a thousand segments long.
 *
 * @example shortPath(['state', 'organizations', 0, 1, 'contact', ...Array(300).fill('a')]) // 'state.organizations[0][1].contact.a.a.a.a.a … a.a.a (305 levels)'
 */
function shortPath(segments: readonly (string | number)[]): string {
  if (segments.length <= PATH_HEAD + PATH_TAIL + 1) return joinPath(segments);
  const head = joinPath(segments.slice(0, PATH_HEAD));
  const tail = joinPath(segments.slice(-PATH_TAIL));
  return `${head} … ${tail} (${segments.length} levels)`;
}

/**
 * A file that is not JSON, or nests deeper than the reader takes (`tooDeep`: well-formed, but past the
 * simulator's limit): where, as a byte offset and as a path of members.
 */
export class JsonStreamError extends Error {
  override readonly name = 'JsonStreamError';
  constructor(
    readonly reason: string,
    /** Byte offset in the file (0-based). */
    readonly offset: number,
    /** The member being read (`['state', 'clusters', 12]`), empty at the top. */
    readonly segments: (string | number)[],
    /** The file nests deeper than `maxDepth`, which says nothing of whether it is JSON. */
    readonly tooDeep = false,
  ) {
    const where = `at byte ${offset}${segments.length > 0 ? ` (in ${shortPath(segments)})` : ''}`;
    super(tooDeep ? `${reason} ${where}` : `malformed JSON ${where}: ${reason}`);
  }
}

/** The parts of `node:fs` {@link readJsonFile} uses. */
export type JsonReadFs = Pick<typeof fs, 'openSync' | 'readSync' | 'closeSync'>;

export interface JsonReadOptions {
  /** Bytes read at a time. Default 1 MiB. */
  chunkBytes?: number;
  /** A container of at most this many bytes is parsed by one `JSON.parse`; a larger one member by member. Default 1 MiB. */
  wholeBytes?: number;
  /**
   * Deepest nesting of objects and arrays accepted. Default 200, the control plane's for its own
   * documents; a state file is read with the simulator's (world-snapshot.ts `snapshotJsonDepth`).
   */
  maxDepth?: number;
  io?: JsonReadFs;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
/** What ends a number or a literal. */
const isDelimiter = (c: number) =>
  isSpace(c) || c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET || c === COLON;

/** The file's bytes from `start` to `end`, read on demand; bytes before the caller's `keep` are let go. */
class ByteWindow {
  buf: Buffer;
  /** File offset of `buf[0]`. */
  start = 0;
  /** File offset just past the last byte read. */
  end = 0;
  private eof = false;
  constructor(
    private readonly fd: number,
    private readonly io: JsonReadFs,
    private readonly chunk: number,
  ) {
    this.buf = Buffer.allocUnsafe(chunk);
  }

  /** Makes the byte at `pos` readable; false past the end of the file. Keeps every byte from `keep` on. */
  fill(pos: number, keep: number): boolean {
    while (pos >= this.end) {
      if (this.eof) return false;
      let used = this.end - this.start;
      if (this.buf.length - used < this.chunk && keep > this.start) {
        this.buf.copy(this.buf, 0, keep - this.start, used);
        used -= keep - this.start;
        this.start = keep;
      }
      if (this.buf.length - used < this.chunk) {
        const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, used + this.chunk));
        this.buf.copy(bigger, 0, 0, used);
        this.buf = bigger;
      }
      const n = this.io.readSync(this.fd, this.buf, used, this.buf.length - used, null);
      if (n === 0) this.eof = true;
      this.end += n;
    }
    return true;
  }

  byte(pos: number): number {
    return this.buf[pos - this.start] as number;
  }

  text(from: number, to: number): string {
    return this.buf.toString('utf8', from - this.start, to - this.start);
  }
}

/** What {@link StreamParser.parseContainer} answers for a container that is not JSON. */
const FAILED = Symbol('not JSON');

/** A container being built member by member: its value, and for an object the key of the member being read. */
interface Frame {
  value: Record<string, unknown> | unknown[];
  array: boolean;
  /** Undefined while the key itself is read. */
  key: string | undefined;
}

class StreamParser {
  private readonly win: ByteWindow;
  private readonly stack: Frame[] = [];
  constructor(
    fd: number,
    io: JsonReadFs,
    chunk: number,
    private readonly wholeBytes: number,
    private readonly maxDepth: number,
  ) {
    this.win = new ByteWindow(fd, io, chunk);
  }

  private path(): (string | number)[] {
    const path: (string | number)[] = [];
    for (const f of this.stack) {
      if (f.array) path.push((f.value as unknown[]).length);
      else if (f.key !== undefined) path.push(f.key);
    }
    return path;
  }

  private fail(offset: number, reason: string, tooDeep = false): never {
    throw new JsonStreamError(reason, offset, this.path(), tooDeep);
  }

  /** The byte at `pos`, or a refusal: the file ends where a value or a delimiter was due. */
  private need(pos: number, keep = pos): number {
    if (!this.win.fill(pos, keep)) this.fail(pos, 'unexpected end of file (the file is cut short)');
    return this.win.byte(pos);
  }

  private skipSpace(pos: number): number {
    let at = pos;
    while (this.win.fill(at, at) && isSpace(this.win.byte(at))) at++;
    return at;
  }

  /**
   * `JSON.parse` of a string or a number or literal, from `from` to `to`; its complaint placed at the
   * file's byte offset.
   */
  private parseToken(from: number, to: number): unknown {
    const text = this.win.text(from, to);
    try {
      return JSON.parse(text);
    } catch (err) {
      const message = (err as Error).message;
      const at = / in JSON at position (\d+)/.exec(message);
      const offset = at ? from + Buffer.byteLength(text.slice(0, Number(at[1]))) : from;
      if (this.win.byte(from) === QUOTE)
        return this.fail(offset, message.replace(/ in JSON at position \d+.*$/s, ''));
      const shown = text.length > 40 ? `${text.slice(0, 40)}…` : text;
      return this.fail(from, `${JSON.stringify(shown)} is not a JSON value`);
    }
  }

  /**
   * `JSON.parse` of a whole container; {@link FAILED} when it is not JSON, so that it is read member by
   * member and the mistake is reported where it is.
   */
  private parseContainer(from: number, to: number): unknown {
    try {
      return JSON.parse(this.win.text(from, to));
    } catch {
      return FAILED;
    }
  }

  /** The end of the string opening at `from` (just past its closing quote). */
  private stringEnd(from: number): number {
    let escaped = false;
    for (let at = from + 1; ; at++) {
      const c = this.need(at, from);
      if (escaped) escaped = false;
      else if (c === BACKSLASH) escaped = true;
      else if (c === QUOTE) return at + 1;
    }
  }

  /**
   * The end of the container opening at `from`, when it closes within `wholeBytes`; -1 when it is
   * larger, or nests too deep, or the file ends inside it: it is then read member by member, which
   * says where it is wrong. Only strings and nesting are tracked: `JSON.parse` checks the rest.
   */
  private containerEnd(from: number): number {
    const depthLeft = this.maxDepth - this.stack.length;
    const limit = from + this.wholeBytes;
    let depth = 0;
    let inString = false;
    let escaped = false;
    let at = from;
    for (;;) {
      if (at >= limit) return -1;
      if (!this.win.fill(at, from)) return -1;
      const { buf, start } = this.win;
      const stop = Math.min(this.win.end, limit) - start;
      let i = at - start;
      for (; i < stop; i++) {
        const c = buf[i] as number;
        if (inString) {
          if (escaped) escaped = false;
          else if (c === BACKSLASH) escaped = true;
          else if (c === QUOTE) inString = false;
        } else if (c === QUOTE) inString = true;
        else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
          if (++depth > depthLeft) return -1;
        } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
          if (--depth === 0) return start + i + 1;
        }
      }
      at = start + i;
    }
  }

  /** The end of the number or literal at `from`. */
  private scalarEnd(from: number): number {
    let at = from;
    while (this.win.fill(at, from) && !isDelimiter(this.win.byte(at))) at++;
    return at;
  }

  /** Reads `"key"` and its colon at `pos` into the frame; the position of the value. */
  private readKey(pos: number, frame: Frame): number {
    frame.key = undefined;
    const at = this.skipSpace(pos);
    if (this.need(at) !== QUOTE) this.fail(at, 'expected a double-quoted property name');
    const end = this.stringEnd(at);
    frame.key = this.parseToken(at, end) as string;
    const colon = this.skipSpace(end);
    if (this.need(colon) !== COLON) this.fail(colon, "expected ':' after a property name");
    return colon + 1;
  }

  /** Parses the whole file. */
  run(): unknown {
    let pos = 0;
    // A UTF-8 byte order mark, as editors on Windows write one.
    if (
      this.win.fill(2, 0) &&
      this.win.byte(0) === 0xef &&
      this.win.byte(1) === 0xbb &&
      this.win.byte(2) === 0xbf
    )
      pos = 3;
    pos = this.skipSpace(pos);
    if (!this.win.fill(pos, pos)) this.fail(pos, 'the file is empty');
    const { stack } = this;
    for (;;) {
      // A value starts at `pos`.
      pos = this.skipSpace(pos);
      const c = this.need(pos);
      let value: unknown;
      if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        if (stack.length >= this.maxDepth)
          this.fail(pos, `JSON nested deeper than ${this.maxDepth} levels (the simulator's limit)`, true);
        const end = this.containerEnd(pos);
        const whole = end >= 0 ? this.parseContainer(pos, end) : FAILED;
        if (whole !== FAILED) {
          value = whole;
          pos = end;
        } else {
          const frame: Frame = {
            value: c === OPEN_BRACE ? {} : [],
            array: c === OPEN_BRACKET,
            key: undefined,
          };
          stack.push(frame);
          const first = this.skipSpace(pos + 1);
          const close = this.need(first);
          if (close === (frame.array ? CLOSE_BRACKET : CLOSE_BRACE)) {
            stack.pop();
            value = frame.value;
            pos = first + 1;
          } else {
            pos = frame.array ? first : this.readKey(first, frame);
            continue;
          }
        }
      } else if (c === QUOTE) {
        const end = this.stringEnd(pos);
        value = this.parseToken(pos, end);
        pos = end;
      } else if (c === COMMA || c === COLON || c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        this.fail(pos, `unexpected '${String.fromCharCode(c)}' where a value was due`);
      } else {
        const end = this.scalarEnd(pos);
        value = this.parseToken(pos, end);
        pos = end;
      }
      // Put the value in its container; close every container that ends after it.
      for (;;) {
        const top = stack[stack.length - 1];
        if (top === undefined) {
          const after = this.skipSpace(pos);
          if (this.win.fill(after, after)) this.fail(after, 'unexpected data after the JSON value');
          return value;
        }
        if (top.array) (top.value as unknown[]).push(value);
        else if (top.key === '__proto__')
          // As JSON.parse makes it: an own property, not the object's prototype.
          Object.defineProperty(top.value, top.key, {
            value,
            enumerable: true,
            writable: true,
            configurable: true,
          });
        else (top.value as Record<string, unknown>)[top.key as string] = value;
        pos = this.skipSpace(pos);
        const next = this.need(pos);
        if (next === COMMA) {
          pos = top.array ? pos + 1 : this.readKey(pos + 1, top);
          break;
        }
        if (next !== (top.array ? CLOSE_BRACKET : CLOSE_BRACE))
          this.fail(
            pos,
            top.array
              ? "expected ',' or ']' after an array element"
              : "expected ',' or '}' after a property value",
          );
        stack.pop();
        value = top.value;
        pos++;
      }
    }
  }
}

/**
 * Reads a JSON file of any size: the value `JSON.parse(readFileSync(path, 'utf8'))` would give, without
 * the whole text in memory as one string. A file that is not JSON, or nests deeper than `maxDepth`,
 * throws {@link JsonStreamError} (byte offset and member path); a file that cannot be read throws the
 * `fs` error (`ENOENT`, …).
 *
 * @example const snapshot = readJsonFile('world.json');
 */
export function readJsonFile(path: string, options: JsonReadOptions = {}): unknown {
  const io = options.io ?? fs;
  const fd = io.openSync(path, 'r');
  try {
    return new StreamParser(
      fd,
      io,
      options.chunkBytes ?? 1024 * 1024,
      options.wholeBytes ?? 1024 * 1024,
      options.maxDepth ?? 200,
    ).run();
  } finally {
    io.closeSync(fd);
  }
}
