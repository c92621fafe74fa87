import { readFileSync } from 'node:fs';
import { annotationStates, webhookMessageStates } from '@sims/contracts';
import { describe, expect, it } from 'vitest';
import { annotationSimProviders } from '../../src/verify/provider';

/** contracts/STATES.md, the vocabulary the handlers implement. */
const STATES_MD = readFileSync(new URL('../../../../contracts/STATES.md', import.meta.url), 'utf8');

const TEMPLATES = [...Object.values(annotationStates), ...Object.values(webhookMessageStates)]
  .map((s) => s.template)
  .sort();

describe('the provider state table', () => {
  it.each(annotationSimProviders.map((p) => [p.name, p] as const))(
    '%s handles every annotation-sim and annotation-sim-webhooks state of @sims/contracts, and no other',
    async (_, provider) => {
      const session = await provider.start();
      try {
        expect(Object.keys(session.states).sort()).toEqual(TEMPLATES);
      } finally {
        await session.close();
      }
    },
  );

  it('documents every state it handles in contracts/STATES.md', () => {
    expect(TEMPLATES.filter((t) => !STATES_MD.includes(`\`${t}\``))).toEqual([]);
  });
});
