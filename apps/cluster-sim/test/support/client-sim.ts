import { OAuth2Client } from 'google-auth-library';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { type StartedClusterSim, startClusterSim } from '../../src/index';
import { aCluster } from './fixtures';

/** An auth client with a static access token: Google's clients then never look for a metadata server. */
export function fakeAuth(): OAuth2Client {
  const client = new OAuth2Client();
  client.setCredentials({ access_token: 'fake-token' });
  return client;
}

/**
 * One cluster-sim on a socket on 127.0.0.1 for the tests that drive Google's Node clients: started
 * before the file's tests (manual clock at 2026-01-01, the given `seed`) and closed after them; with
 * `seedEach`, reset and seeded with one cluster (`aCluster()`) before each test. Returns the started
 * simulator (call it inside a test or hook).
 */
export function useSocketSim(seed: number, options: { seedEach?: boolean } = {}): () => StartedClusterSim {
  let sim: StartedClusterSim | undefined;
  beforeAll(async () => {
    process.env.METADATA_SERVER_DETECTION = 'none';
    sim = await startClusterSim({ seed, clock: { mode: 'manual', start: '2026-01-01T00:00:00Z' } });
  });
  afterAll(() => sim?.close());
  if (options.seedEach) {
    beforeEach(async () => {
      const started = sim as StartedClusterSim;
      await started.app.request('/_sim/reset', { method: 'POST' });
      const res = await started.app.request('/_sim/seed', {
        method: 'POST',
        body: JSON.stringify({ clusters: [aCluster().build()] }),
      });
      expect(res.status).toBe(201);
    });
  }
  return () => sim as StartedClusterSim;
}
