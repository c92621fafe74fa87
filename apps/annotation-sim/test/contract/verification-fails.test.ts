import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verifyPacts } from '@sims/pact-verify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { annotationSimProviders } from '../../src/verify/provider';
import { WRONG_HTTP_PACT, WRONG_MESSAGE_PACT } from './support/wrong-pacts';

describe('annotation-sim verification rejects wrong pacts', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'wrong-pacts-'));
    writeFileSync(join(dir, 'wrong-receiver.json'), JSON.stringify(WRONG_MESSAGE_PACT, null, 2));
    writeFileSync(join(dir, 'wrong-admin.json'), JSON.stringify(WRONG_HTTP_PACT, null, 2));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reports a message whose webhook_id the payload factory does not produce, and an HTTP body with the wrong project name', async () => {
    const result = await verifyPacts({ providers: annotationSimProviders, pacts: [dir], log: () => {} });
    expect(result.ok).toBe(false);
    const byProvider = Object.fromEntries(result.results.map((r) => [r.provider, r]));
    expect(byProvider['annotation-sim-webhooks']?.mismatches).toEqual([
      {
        interaction: expect.stringContaining('a create:task delivery with the wrong webhook id'),
        details: [expect.stringMatching(/\$\.webhook_id.*Expected 10 .* to be equal to 99/)],
      },
    ]);
    expect(byProvider['annotation-sim']?.mismatches).toEqual([
      {
        interaction: expect.stringContaining('a read of project 1 expecting another name'),
        details: [
          expect.stringMatching(/\$\.name.*Expected 'Street scenes' .* to be equal to 'Country roads'/),
        ],
      },
    ]);
    expect(result.results.flatMap((r) => r.stateFailures)).toEqual([]);
  });
});
