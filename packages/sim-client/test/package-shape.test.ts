import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '..', 'src');

describe('package shape', () => {
  it('imports vitest only from the matchers module, so importing the client never loads vitest', () => {
    const importers = readdirSync(SRC).filter((file) =>
      /from ['"]vitest['"]/.test(readFileSync(join(SRC, file), 'utf8')),
    );
    expect(importers).toEqual(['vitest.ts']);
  });

  it('exports explicitly from index.ts (no export *)', () => {
    expect(readFileSync(join(SRC, 'index.ts'), 'utf8')).not.toMatch(/export \*/);
  });
});
