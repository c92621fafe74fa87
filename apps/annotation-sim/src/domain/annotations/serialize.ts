import type { LabeledData } from './model';

/**
 * `LabeledData` as the JSON bytes `JSON.stringify` would give, made in pieces: each list of more than
 * {@link PIECE} objects is stringified a slice at a time and each slice encoded on its own. One
 * `JSON.stringify` of a job of 100,000 shapes is a 22 MB string that V8 keeps in parts and must flatten
 * before it can be encoded (~70 ms), then encode (~65 ms); slices of a few hundred objects stay small
 * flat strings whose encoding is nearly free (bench figure 12, docs/decisions/0027).
 */
const PIECE = 250;

const OPEN = Buffer.from('[');
const CLOSE = Buffer.from(']');
const COMMA = Buffer.from(',');

function listInto(parts: Uint8Array[], items: readonly unknown[]): void {
  if (items.length <= PIECE) {
    parts.push(Buffer.from(JSON.stringify(items)));
    return;
  }
  parts.push(OPEN);
  for (let i = 0; i < items.length; i += PIECE) {
    if (i > 0) parts.push(COMMA);
    const piece = Buffer.from(JSON.stringify(items.slice(i, i + PIECE)));
    // The slice's own brackets dropped: its objects join the one list.
    parts.push(piece.subarray(1, piece.length - 1));
  }
  parts.push(CLOSE);
}

/** The bytes of `JSON.stringify(data)` (keys in `LabeledData`'s order: version, tags, shapes, tracks, intervals). */
export function labeledDataJson(data: LabeledData): Uint8Array {
  const parts: Uint8Array[] = [Buffer.from(`{"version":${JSON.stringify(data.version)},"tags":`)];
  listInto(parts, data.tags);
  parts.push(Buffer.from(',"shapes":'));
  listInto(parts, data.shapes);
  parts.push(Buffer.from(',"tracks":'));
  listInto(parts, data.tracks);
  parts.push(Buffer.from(`,"intervals":${JSON.stringify(data.intervals)}}`));
  return Buffer.concat(parts);
}
