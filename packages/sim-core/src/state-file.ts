import * as fs from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { type JsonSink, type JsonWriteOptions, writeJson } from './json-stream-write';

/** The parts of `node:fs` {@link writeFileAtomic} uses; tests pass one that fails or stops midway. */
export type AtomicWriteFs = Pick<
  typeof fs,
  | 'openSync'
  | 'writeSync'
  | 'fsyncSync'
  | 'closeSync'
  | 'renameSync'
  | 'unlinkSync'
  | 'statSync'
  | 'realpathSync'
>;

let counter = 0;

/**
 * Replaces `path` with `text` so that a reader, or the next start after a crash, sees either the whole
 * previous file or the whole new one, never a part: the text goes to a temporary file in the same
 * directory (same file system, so the rename is atomic), which is fsynced, then renamed over `path`;
 * the directory is fsynced too where the platform allows it, so the rename itself survives a power
 * loss. A failure removes the temporary file and leaves `path` as it was; a kill between the write and
 * the rename leaves `path` as it was and a `.<name>.<pid>.<n>.tmp` file beside it.
 * A symlink at `path` is followed (its target is replaced); the mode of an existing file is kept.
 *
 * @example writeFileAtomic('world.json', JSON.stringify(snapshot))
 */
export function writeFileAtomic(path: string, text: string, io: AtomicWriteFs = fs): void {
  writeFileAtomicWith(path, (write) => write(text), io);
}

/**
 * {@link writeFileAtomic} of a value as JSON, written in chunks as it is serialized
 * ({@link writeJson}): the file is `JSON.stringify(value)`, byte for byte, but no string ever holds it
 * all, so a world of any size is saved (`--state-file`).
 *
 * @example writeJsonFileAtomic('world.json', exportWorldSnapshot(def, world))
 */
export function writeJsonFileAtomic(
  path: string,
  value: unknown,
  io: AtomicWriteFs = fs,
  options?: JsonWriteOptions,
): void {
  writeFileAtomicWith(path, (write) => writeJson(value, write, options), io);
}

/** {@link writeFileAtomic} with the text produced in pieces: `produce` calls `write` with each. */
function writeFileAtomicWith(path: string, produce: (write: JsonSink) => void, io: AtomicWriteFs): void {
  let target = path;
  try {
    target = io.realpathSync(path);
  } catch {
    // No file yet (or a dangling link): create it at the path given.
  }
  let mode = 0o666;
  try {
    mode = io.statSync(target).mode & 0o7777;
  } catch {}
  const dir = dirname(target);
  const temp = join(dir, `.${basename(target)}.${process.pid}.${++counter}.tmp`);
  // `wx`: never reuse (or follow a link planted at) a temporary name.
  const fd = io.openSync(temp, 'wx', mode);
  try {
    try {
      produce((text) => {
        const bytes = Buffer.from(text, 'utf8');
        let written = 0;
        while (written < bytes.length) written += io.writeSync(fd, bytes, written, bytes.length - written);
      });
      io.fsyncSync(fd);
    } finally {
      io.closeSync(fd);
    }
    io.renameSync(temp, target);
  } catch (err) {
    try {
      io.unlinkSync(temp);
    } catch {}
    throw err;
  }
  // Makes the rename durable. Not possible everywhere (Windows cannot open a directory): the file's
  // content is durable already and the rename atomic either way.
  try {
    const dirFd = io.openSync(dir, 'r');
    try {
      io.fsyncSync(dirFd);
    } finally {
      io.closeSync(dirFd);
    }
  } catch {}
}
