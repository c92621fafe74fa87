import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computeEtag } from '../src/domain/etag';
import { OPERATION_TRANSITIONS } from '../src/domain/operations';
import { compareVersions, resolveNodeVersion } from '../src/domain/versions';

const version = fc
  .tuple(
    fc.integer({ min: 25, max: 35 }),
    fc.integer({ min: 0, max: 20 }),
    fc.integer({ min: 1, max: 2_000_000 }),
  )
  .map(([minor, patch, build]) => `1.${minor}.${patch}-gke.${build}`);

describe('domain rules', () => {
  it('computes equal etags for equal content whatever the key order, and different ones otherwise', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.nat(5), (obj, gen) => {
        const reversed = Object.fromEntries(Object.entries(obj).reverse());
        expect(computeEtag(reversed, gen)).toBe(computeEtag(obj, gen));
        expect(computeEtag(obj, gen + 1)).not.toBe(computeEtag(obj, gen));
      }),
    );
  });

  it('never resolves a node version above the master or outside the valid list', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(version, { minLength: 1, maxLength: 12 }),
        version,
        fc.constantFrom('latest', '-', '1.30', '1.31', '1.32.1'),
        (valid, master, alias) => {
          const result = resolveNodeVersion(alias, {
            validNodeVersions: valid,
            masterVersion: master,
            maxNodeSkewMinors: 2,
          });
          if (result.ok) {
            expect(compareVersions(result.value, master)).toBeLessThanOrEqual(0);
            expect([...valid, master]).toContain(result.value);
          }
        },
      ),
    );
  });

  it('declares the operation lifecycle: DONE is final, ABORTING only ends in DONE', () => {
    expect(OPERATION_TRANSITIONS.DONE).toEqual([]);
    expect(OPERATION_TRANSITIONS.ABORTING).toEqual(['DONE']);
    expect(OPERATION_TRANSITIONS.PENDING).toContain('RUNNING');
  });
});
