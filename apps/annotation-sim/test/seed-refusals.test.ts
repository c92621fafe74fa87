// A seed is checked one way, as cluster-sim's is: its schema through sim-core's parseInput, then
// applySeed's Result; both refusals are the control plane's 400 with the field's path.
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './support/harness';

let h: Harness;
afterEach(() => h?.close());

describe('POST /_sim/seed refusals', () => {
  it('answers 400 with the path of a field the schema refuses, naming every problem', async () => {
    h = createHarness();
    const res = await h.post('/_sim/seed', {
      users: [{ username: 'not a name' }],
      projects: [{ owner: 'admin' }],
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ reason: 'INVALID_INPUT', path: 'seed.users[0].username' });
    expect(res.body.error.message).toMatch(
      /^seed\.users\[0\]\.username: .*; seed\.projects\[0\]\.name: required/,
    );
  });

  it('answers 400 with the path of a name that refers to nothing, in the words it always used', async () => {
    h = createHarness();
    const cases: [unknown, string, string][] = [
      [
        { projects: [{ name: 'q', owner: 'ghost' }] },
        'seed.projects[0].owner',
        'seed.projects.0.owner: unknown user "ghost"',
      ],
      [
        { tasks: [{ name: 't', owner: 'admin', project: 'none' }] },
        'seed.tasks[0].project',
        'seed.tasks.0.project: unknown project "none"',
      ],
      [
        {
          users: [{ username: 'u' }],
          organizations: [{ slug: 'o', owner: 'u', members: [{ user: 'x', role: 'worker' }] }],
        },
        'seed.organizations[0].members[0].user',
        'seed.organizations.0.members.0.user: unknown user "x"',
      ],
      [
        { webhooks: [{ target_url: 'http://x.test', type: 'organization', owner: 'admin' }] },
        'seed.webhooks[0].org',
        'seed.webhooks.0.org: an organization webhook needs "org"',
      ],
      [
        { users: [{ username: 'admin' }] },
        'seed.users[0].username',
        'seed.users.0.username: user "admin" exists',
      ],
    ];
    for (const [seed, path, message] of cases) {
      const res = await h.post('/_sim/seed', seed);
      expect(res.status, JSON.stringify(seed)).toBe(400);
      expect(res.body.error).toEqual({ status: 400, reason: 'INVALID_INPUT', message, path });
    }
  });
});
