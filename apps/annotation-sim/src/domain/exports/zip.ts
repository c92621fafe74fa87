/**
 * A minimal ZIP writer (APPNOTE 6.3): a local header and the data of each entry, the central directory,
 * the end record. Files are deflated (method 8), folders (names ending in `/`) stored empty. No ZIP64:
 * the simulator's archives stay under 4 GiB.
 *
 * A file's data may be a sequence of pieces (an annotations file of 100,000 shapes is made a frame at a
 * time): the pieces are gathered into batches of {@link BATCH} bytes, each batch deflated on its own and
 * ended with a sync flush (a byte-aligned empty stored block, no final bit), so the batches' outputs
 * joined, then the final empty block, are one valid deflate stream. Only the compressed bytes and one
 * batch are held, never the whole uncompressed file (docs/decisions/0030).
 */
import { constants, crc32, deflateRawSync } from 'node:zlib';

/**
 * One entry: a file with its bytes (text is written as UTF-8) or the pieces of them in order, or a
 * folder (`name` ends in `/`).
 */
export interface ZipEntry {
  name: string;
  data?: Uint8Array | string | Iterable<Uint8Array | string>;
}

/** Uncompressed bytes gathered before a batch is deflated. */
const BATCH = 1 << 20;

const SYNC = { finishFlush: constants.Z_SYNC_FLUSH };

/** A file's data deflated: the compressed pieces, the CRC-32 and the sizes. */
interface Deflated {
  body: Buffer[];
  crc: number;
  size: number;
  compressed: number;
}

function deflatePieces(pieces: Iterable<Uint8Array | string>): Deflated {
  const out: Deflated = { body: [], crc: 0, size: 0, compressed: 0 };
  let batch: Buffer[] = [];
  let held = 0;
  const flush = (final: boolean) => {
    const raw = batch.length === 1 ? (batch[0] as Buffer) : Buffer.concat(batch, held);
    batch = [];
    held = 0;
    if (raw.length > 0) {
      out.crc = crc32(raw, out.crc);
      out.size += raw.length;
      out.body.push(deflateRawSync(raw, SYNC));
    }
    // The last block: empty, final bit set.
    if (final) out.body.push(deflateRawSync(Buffer.alloc(0)));
  };
  for (const piece of pieces) {
    const b =
      typeof piece === 'string'
        ? Buffer.from(piece, 'utf8')
        : Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
    batch.push(b);
    held += b.length;
    if (held >= BATCH) flush(false);
  }
  flush(true);
  out.compressed = out.body.reduce((n, b) => n + b.length, 0);
  return out;
}

/** An entry's data deflated (a folder: nothing). */
function deflateEntry(entry: ZipEntry): Deflated {
  if (entry.name.endsWith('/')) return { body: [], crc: 0, size: 0, compressed: 0 };
  const data = entry.data ?? new Uint8Array(0);
  if (typeof data === 'string' || data instanceof Uint8Array) {
    const raw = typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data);
    const body = deflateRawSync(raw);
    return { body: [body], crc: crc32(raw), size: raw.length, compressed: body.length };
  }
  return deflatePieces(data);
}

/** MS-DOS date and time (local time of the archiver: UTC here), 2-second resolution. */
function dosDateTime(epochMs: number): { time: number; date: number } {
  const d = new Date(epochMs);
  return {
    time: (d.getUTCHours() << 11) | (d.getUTCMinutes() << 5) | Math.floor(d.getUTCSeconds() / 2),
    date: ((d.getUTCFullYear() - 1980) << 9) | ((d.getUTCMonth() + 1) << 5) | d.getUTCDate(),
  };
}

/** The fields local header and central record share, from `version needed` to `extra length`. */
function commonFields(
  e: { method: number; crc: number; compressed: number; size: number; name: Buffer },
  when: { time: number; date: number },
): Buffer {
  const b = Buffer.alloc(26);
  b.writeUInt16LE(20, 0); // version needed: 2.0 (deflate, folders)
  b.writeUInt16LE(0x0800, 2); // flags: names are UTF-8
  b.writeUInt16LE(e.method, 4);
  b.writeUInt16LE(when.time, 6);
  b.writeUInt16LE(when.date, 8);
  b.writeUInt32LE(e.crc, 10);
  b.writeUInt32LE(e.compressed, 14);
  b.writeUInt32LE(e.size, 18);
  b.writeUInt16LE(e.name.length, 22);
  b.writeUInt16LE(0, 24); // extra field length
  return b;
}

/**
 * The archive of `entries` (made as they are read), in their order, every entry stamped `mtimeMs`.
 *
 * @example zipArchive([{ name: 'annotations.xml', data: xml }, { name: 'images/' }], Date.now())
 */
export function zipArchive(entries: Iterable<ZipEntry>, mtimeMs: number): Uint8Array {
  const when = dosDateTime(mtimeMs);
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  let count = 0;
  for (const entry of entries) {
    count++;
    const name = Buffer.from(entry.name, 'utf8');
    const folder = entry.name.endsWith('/');
    const d = deflateEntry(entry);
    const fields = commonFields(
      { method: folder ? 0 : 8, crc: d.crc, compressed: d.compressed, size: d.size, name },
      when,
    );
    const local = Buffer.alloc(4);
    local.writeUInt32LE(0x04034b50, 0);
    parts.push(local, fields, name, ...d.body);
    const head = Buffer.alloc(6);
    head.writeUInt32LE(0x02014b50, 0);
    head.writeUInt16LE(0x0314, 4); // made by: UNIX, 2.0
    const tail = Buffer.alloc(14);
    tail.writeUInt16LE(0, 0); // comment length
    tail.writeUInt16LE(0, 2); // disk number start
    tail.writeUInt16LE(0, 4); // internal attributes
    // external attributes: UNIX mode (drwxr-xr-x / -rw-r--r--) in the high half, MS-DOS folder bit.
    tail.writeUInt32LE(folder ? ((0o40755 << 16) | 0x10) >>> 0 : (0o100644 << 16) >>> 0, 6);
    tail.writeUInt32LE(offset, 10);
    central.push(head, fields, tail, name);
    offset += 4 + fields.length + name.length + d.compressed;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(count, 8);
  end.writeUInt16LE(count, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return new Uint8Array(Buffer.concat([...parts, directory, end]));
}
