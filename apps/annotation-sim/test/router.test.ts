import { describe, expect, it } from 'vitest';
import { createAnnotationSim } from '../src/index';

// CVAT's API puts literals beside parameters (`/api/users/self` beside `/api/users/:id`); the kernel's
// router keeps those apart so the app still routes through Hono's RegExpRouter (docs/decisions/0008).
describe('routing', () => {
  it("routes through the kernel's RegExpRouter-based router, not the TrieRouter", async () => {
    const sim = createAnnotationSim();
    try {
      expect((await sim.app.request('/api/server/about')).status).toBeLessThan(500);
      expect(sim.app.router.name).toBe('SmartRouter + LiteralsApartRouter');
    } finally {
      sim.close();
    }
  });
});
