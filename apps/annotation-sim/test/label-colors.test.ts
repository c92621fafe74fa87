/** Label colours as CVAT's `get_label_color` gives them (values from `labels.json` and Python's hashlib). */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { blake2s, labelColor, normalizeLabelName } from '../src/domain/label-colors';

describe('label colours', () => {
  it("hashes a name outside CVAT's table with BLAKE2s of 3 bytes, as Python's hashlib does", () => {
    // hashlib.blake2s(b'new_name', digest_size=3).hexdigest() == 'e316d7'
    expect(Buffer.from(blake2s(new TextEncoder().encode('new_name'), 3)).toString('hex')).toBe('e316d7');
    expect(Buffer.from(blake2s(new TextEncoder().encode('y'.repeat(65)), 32)).toString('hex')).toBe(
      createHash('blake2s256').update('y'.repeat(65)).digest('hex'),
    );
    expect(normalizeLabelName('  Ünïcode  café-Bar ')).toBe('unicode_cafe_bar');
  });

  it("gives CVAT's colours: predefined, hashed, and a tint when a sibling has it", () => {
    expect(labelColor('Traffic Light', [])).toBe('#d0a000');
    expect(labelColor('skele1', [])).toBe('#4602af');
    // labels.json: the second skeleton's points "1" and "2" among the first one's.
    expect(labelColor('1', ['#d12345'])).toBe('#d53957');
    expect(labelColor('2', ['#d12345', '#350dea'])).toBe('#4925ec');
  });
});
