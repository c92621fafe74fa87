import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { collectPactFiles, mismatchesOf, paramsOf, parseVerifyArgs } from '../src/index';

describe('parseVerifyArgs', () => {
  it('takes pact files and folders as positionals', () => {
    expect(parseVerifyArgs(['a.json', 'pacts/'])).toEqual({ help: false, pacts: ['a.json', 'pacts/'] });
  });

  it('passes broker options through, with the standard PACT_* environment variables as defaults', () => {
    const args = parseVerifyArgs(
      [
        '--consumer-version-selectors',
        '[{"mainBranch":true},{"deployedOrReleased":true}]',
        '--provider-version',
        '1.2.3',
        '--provider-branch',
        'main',
        '--publish',
        '--enable-pending',
      ],
      { PACT_BROKER_BASE_URL: 'https://broker.example', PACT_BROKER_TOKEN: 't0k3n' },
    );
    expect(args.broker).toMatchObject({
      url: 'https://broker.example',
      token: 't0k3n',
      consumerVersionSelectors: [{ mainBranch: true }, { deployedOrReleased: true }],
      providerVersion: '1.2.3',
      providerVersionBranch: 'main',
      publishVerificationResult: true,
      enablePending: true,
    });
    expect(args.pacts).toEqual([]);
  });

  it('rejects publishing without a broker or a provider version, bad selectors and no input', () => {
    expect(() => parseVerifyArgs(['--publish', 'a.json'])).toThrow('--publish needs a broker');
    expect(() => parseVerifyArgs(['--publish', '--broker-url', 'https://b'])).toThrow('--provider-version');
    expect(() => parseVerifyArgs(['--consumer-version-selectors', '{', 'a.json'])).toThrow('JSON array');
    expect(() => parseVerifyArgs([])).toThrow('give pact files or folders, or a broker URL');
    expect(() => parseVerifyArgs(['--nope'])).toThrow();
  });
});

describe('collectPactFiles', () => {
  it('expands a folder to its json files, sorted, each with its provider name', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pacts-'));
    try {
      writeFileSync(join(dir, 'b.json'), JSON.stringify({ provider: { name: 'p2' } }));
      writeFileSync(join(dir, 'a.json'), JSON.stringify({ provider: { name: 'p1' } }));
      writeFileSync(join(dir, 'notes.txt'), 'x');
      expect(collectPactFiles([dir])).toEqual([
        { file: join(dir, 'a.json'), provider: 'p1' },
        { file: join(dir, 'b.json'), provider: 'p2' },
      ]);
      writeFileSync(join(dir, 'c.json'), '{}');
      expect(() => collectPactFiles([join(dir, 'c.json')])).toThrow('no provider.name');
      expect(() => collectPactFiles([join(dir, 'missing.json')])).toThrow('no such pact file or folder');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('mismatchesOf', () => {
  it("turns pact's JSON result into one readable line per mismatch", () => {
    const report = {
      errors: [
        {
          interaction: 'a read',
          mismatch: {
            type: 'mismatches',
            mismatches: [
              { type: 'StatusMismatch', mismatch: 'expected 200 but was 404' },
              { type: 'BodyMismatch', path: '$.version', mismatch: "Expected 'a' to be equal to 'b'" },
            ],
          },
        },
      ],
    };
    expect(mismatchesOf(report)).toEqual([
      {
        interaction: 'a read',
        details: [
          'StatusMismatch: expected 200 but was 404',
          "BodyMismatch at $.version: Expected 'a' to be equal to 'b'",
        ],
      },
    ]);
    expect(mismatchesOf(undefined)).toEqual([]);
  });
});

describe('paramsOf', () => {
  it('narrows unknown params or names what is missing', () => {
    expect(paramsOf({ a: 1, b: 'x' }, 'state {a} {b}', 'a', 'b')).toEqual({ a: 1, b: 'x' });
    expect(() => paramsOf({ a: 1 }, 'state {a} {b}', 'a', 'b')).toThrow('missing params b');
    expect(() => paramsOf(null, 's', 'a')).toThrow('params must be an object');
  });
});
