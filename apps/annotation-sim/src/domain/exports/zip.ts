/**
 * A minimal ZIP writer (APPNOTE 6.3): a local header and the data of each entry, the central directory,
 * the end record. Files are deflated (method 8), folders (names ending in `/`) stored empty. No ZIP64:
 * the simulator's archives are small.
 */
import { crc32, deflateRawSync } from 'node:zlib';

/** One entry: a file with its bytes (text is written as UTF-8), or a folder (`name` ends in `/`). */
export interface ZipEntry {
  name: string;
  data?: Uint8Array | string;
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
 * The archive of `entries`, in their order, every entry stamped `mtimeMs`.
 *
 * @example zipArchive([{ name: 'annotations.xml', data: xml }, { name: 'images/' }], Date.now())
 */
export function zipArchive(entries: readonly ZipEntry[], mtimeMs: number): Uint8Array {
  const when = dosDateTime(mtimeMs);
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const folder = entry.name.endsWith('/');
    const raw =
      typeof entry.data === 'string' ? Buffer.from(entry.data, 'utf8') : Buffer.from(entry.data ?? []);
    const body = folder ? Buffer.alloc(0) : deflateRawSync(raw);
    const fields = commonFields(
      {
        method: folder ? 0 : 8,
        crc: folder ? 0 : crc32(raw),
        compressed: body.length,
        size: raw.length,
        name,
      },
      when,
    );
    const local = Buffer.alloc(4);
    local.writeUInt32LE(0x04034b50, 0);
    parts.push(local, fields, name, body);
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
    offset += 4 + fields.length + name.length + body.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return new Uint8Array(Buffer.concat([...parts, directory, end]));
}
