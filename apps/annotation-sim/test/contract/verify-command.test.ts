import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WRONG_HTTP_PACT, WRONG_MESSAGE_PACT } from './support/wrong-pacts';

const APP = fileURLToPath(new URL('../../', import.meta.url));
const PACTS = fileURLToPath(new URL('../../../../contracts/pacts/', import.meta.url));

/** `annotation-sim verify …` from the sources (the package script `pnpm verify …` is `tsx src/main.ts verify`). */
function verify(...args: string[]) {
  return spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts', 'verify', ...args], {
    cwd: APP,
    encoding: 'utf8',
    env: { ...process.env, PACT_DO_NOT_TRACK: 'true' },
    timeout: 50_000,
  });
}

describe('the annotation-sim verify command', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'wrong-pacts-'));
    writeFileSync(join(dir, 'wrong-receiver.json'), JSON.stringify(WRONG_MESSAGE_PACT, null, 2));
    writeFileSync(join(dir, 'wrong-admin.json'), JSON.stringify(WRONG_HTTP_PACT, null, 2));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('exits 0 on the committed pacts folder, verifying both of its providers and skipping the cluster-sim pact', () => {
    const run = verify(PACTS);
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/skipping .*node-pool-upgrader-cluster-sim\.json.*provider "cluster-sim"/);
    expect(run.stdout).toContain('pact-verify: annotation-sim: verified');
    expect(run.stdout).toContain('pact-verify: annotation-sim-webhooks: verified');
  });

  it("exits 1 on wrong pacts and prints pact's report with both mismatches", () => {
    const run = verify(dir);
    expect(run.status, run.stderr).toBe(1);
    expect(run.stdout).toContain('pact-verify: annotation-sim: FAILED');
    expect(run.stdout).toContain('pact-verify: annotation-sim-webhooks: FAILED');
    expect(run.stdout).toMatch(/\$\.webhook_id/);
    expect(run.stdout).toMatch(/\$\.name/);
  });

  it('verifies only the provider asked for with --provider', () => {
    const run = verify('--provider', 'annotation-sim-webhooks', PACTS);
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain('pact-verify: annotation-sim-webhooks: verified');
    expect(run.stdout).not.toContain('pact-verify: annotation-sim: verified');
  });
});
