/**
 * A minimal ZIP reader (APPNOTE 6.3) for the archives clients upload: the end record, the central
 * directory, and each member's data stored (method 0) or deflated (method 8), checked against its
 * CRC-32. No ZIP64, no encryption. Its refusals are Python's `zipfile` errors, as CVAT's worker fails
 * with them (`zipfile.BadZipFile: File is not a zip file`): the class and the text.
 */
import { crc32, inflateRawSync } from 'node:zlib';

/** A `zipfile` error: the exception's qualified class and its message. */
export class ZipReadError extends Error {
  constructor(
    readonly exceptionClass: string,
    message: string,
  ) {
    super(message);
  }
}

const badZip = (message: string) => new ZipReadError('zipfile.BadZipFile', message);

interface Member {
  method: number;
  crc: number;
  compressed: number;
  size: number;
  localOffset: number;
}

/** An archive's members by name, each read (inflated, checked) when asked for. */
export interface ZipReader {
  /** Member names in the central directory's order. */
  names(): string[];
  /** A member's bytes; `zipfile`'s KeyError when there is none of that name. */
  read(name: string): Buffer;
}

/** The end-of-central-directory record: searched from the end, past a comment of up to 64 KiB. */
function endRecord(bytes: Buffer): number {
  const from = Math.max(0, bytes.length - 22 - 0xffff);
  for (let at = bytes.length - 22; at >= from; at--) {
    if (bytes.readUInt32LE(at) === 0x06054b50) return at;
  }
  throw badZip('File is not a zip file');
}

/**
 * The archive in `data`, its directory read now (Python's `ZipFile(…)`: an archive without an end record
 * or with a broken directory is refused here).
 *
 * @example openZip(bytes).read('task.json').toString('utf8')
 */
export function openZip(data: Uint8Array): ZipReader {
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (bytes.length < 22) throw badZip('File is not a zip file');
  const end = endRecord(bytes);
  const count = bytes.readUInt16LE(end + 10);
  const dirSize = bytes.readUInt32LE(end + 12);
  let at = bytes.readUInt32LE(end + 16);
  if (at + dirSize > end) throw badZip('Bad magic number for central directory');
  const members = new Map<string, Member>();
  for (let i = 0; i < count; i++) {
    if (at + 46 > end || bytes.readUInt32LE(at) !== 0x02014b50) {
      throw badZip('Bad magic number for central directory');
    }
    const nameLength = bytes.readUInt16LE(at + 28);
    const extraLength = bytes.readUInt16LE(at + 30);
    const commentLength = bytes.readUInt16LE(at + 32);
    const name = bytes.toString('utf8', at + 46, at + 46 + nameLength);
    members.set(name, {
      method: bytes.readUInt16LE(at + 10),
      crc: bytes.readUInt32LE(at + 16),
      compressed: bytes.readUInt32LE(at + 20),
      size: bytes.readUInt32LE(at + 24),
      localOffset: bytes.readUInt32LE(at + 42),
    });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return {
    names: () => [...members.keys()],
    read(name) {
      const m = members.get(name);
      if (!m) throw new ZipReadError('KeyError', `"There is no item named '${name}' in the archive"`);
      const local = m.localOffset;
      if (local + 30 > bytes.length || bytes.readUInt32LE(local) !== 0x04034b50) {
        throw badZip('Bad magic number for file header');
      }
      const start = local + 30 + bytes.readUInt16LE(local + 26) + bytes.readUInt16LE(local + 28);
      const raw = bytes.subarray(start, start + m.compressed);
      let out: Buffer;
      if (m.method === 0) out = Buffer.from(raw);
      else if (m.method === 8) {
        try {
          out = inflateRawSync(raw);
        } catch {
          throw new ZipReadError('zlib.error', 'Error -3 while decompressing data: invalid block type');
        }
      } else throw new ZipReadError('NotImplementedError', 'That compression method is not supported');
      if (out.length !== m.size || crc32(out) !== m.crc) throw badZip(`Bad CRC-32 for file '${name}'`);
      return out;
    },
  };
}
