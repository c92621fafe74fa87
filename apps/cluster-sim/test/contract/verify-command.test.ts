import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WRONG_PACT } from './support/wrong-pact';

const APP = fileURLToPath(new URL('../../', import.meta.url));
const PACTS = fileURLToPath(new URL('../../../../contracts/pacts/', import.meta.url));

/** `cluster-sim verify …` from the sources (the package script `pnpm verify …` is `tsx src/main.ts verify`). */
function verify(...args: string[]) {
  return spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts', 'verify', ...args], {
    cwd: APP,
    encoding: 'utf8',
    env: { ...process.env, PACT_DO_NOT_TRACK: 'true' },
    timeout: 50_000,
  });
}

describe('the cluster-sim verify command', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'wrong-pact-'));
    writeFileSync(join(dir, 'wrong-consumer-cluster-sim.json'), JSON.stringify(WRONG_PACT, null, 2));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('exits 0 on the committed pacts folder, verifying the cluster-sim pact and skipping the others', () => {
    const run = verify(PACTS);
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain('Verifying a pact between');
    expect(run.stdout).toMatch(/skipping .*webhook-admin-annotation-sim\.json.*provider "annotation-sim"/);
    expect(run.stdout).toContain('pact-verify: cluster-sim: verified');
  });

  it("exits 1 on a wrong pact and prints pact's report and the mismatch", () => {
    const run = verify(dir);
    expect(run.status, run.stderr).toBe(1);
    expect(run.stdout).toContain('Verifying a pact between');
    expect(run.stdout).toContain('pact-verify: cluster-sim: FAILED');
    expect(run.stdout).toMatch(/BodyMismatch at \$\.version/);
  });

  it('exits 2 with the usage when given no pacts', () => {
    const run = verify();
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('give pact files or folders, or a broker URL');
    expect(run.stderr).toContain('--consumer-version-selectors');
  });
});
