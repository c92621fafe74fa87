import { RegExpRouter } from 'hono/router/reg-exp-router';
import { describe, expect, it } from 'vitest';
import { createClusterSim } from '../src/index';

// Hono's SmartRouter uses the RegExpRouter only when every route fits it; one literal segment beside a
// parameter (say `/_sim/faults/unfired` beside `/_sim/faults/:id`) sends the whole app to the slower
// TrieRouter (docs/decisions/0008).
describe('routing', () => {
  it("fits Hono's RegExpRouter: every route of the API and the control plane", async () => {
    const sim = createClusterSim();
    try {
      const router = new RegExpRouter<string>();
      for (const route of sim.app.routes) router.add(route.method, route.path, route.path);
      const [matched] = router.match('GET', '/v1beta1/projects/p/locations/l/clusters/c/nodePools/np');
      expect(matched.map(([path]) => path)).toContain(
        '/v1beta1/projects/:project/locations/:location/clusters/:cluster/nodePools/:pool',
      );
      expect(router.match('GET', '/_sim/faults/unfired')[0].map(([path]) => path)).toContain(
        '/_sim/faults/:id',
      );
      await sim.app.request('/_sim/health');
      expect(sim.app.router.name).toBe('SmartRouter + LiteralsApartRouter');
    } finally {
      sim.close();
    }
  });
});
