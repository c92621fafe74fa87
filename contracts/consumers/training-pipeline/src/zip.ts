import { inflateRawSync } from 'node:zlib';

/** The end of a zip's central directory: its signature, and where a comment may push it back from. */
const END_SIGNATURE = 0x06054b50;
const CENTRAL_SIGNATURE = 0x02014b50;

/**
 * One file of a zip archive (APPNOTE 6.3), found through the central directory: stored (method 0) or
 * deflated (8), the only methods CVAT's exports use. Null when the archive holds no such file; throws on
 * bytes that are not a zip archive.
 *
 * @example
 * const json = readZipEntry(archive, 'annotations/instances_default.json');
 */
export function readZipEntry(archive: Uint8Array, name: string): Uint8Array | null {
  const zip = Buffer.from(archive.buffer, archive.byteOffset, archive.byteLength);
  let end = zip.length - 22;
  while (end >= 0 && zip.readUInt32LE(end) !== END_SIGNATURE) end--;
  if (end < 0) throw new Error('not a zip archive: no end of central directory');
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(at) !== CENTRAL_SIGNATURE) throw new Error('a broken zip central directory');
    const method = zip.readUInt16LE(at + 10);
    const compressed = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const skip = zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    if (zip.toString('utf8', at + 46, at + 46 + nameLength) === name) {
      const local = zip.readUInt32LE(at + 42);
      const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
      const data = zip.subarray(start, start + compressed);
      if (method === 0) return new Uint8Array(data);
      if (method === 8) return new Uint8Array(inflateRawSync(data));
      throw new Error(`${name} is compressed with method ${method}, not stored or deflated`);
    }
    at += 46 + nameLength + skip;
  }
  return null;
}
