import { afterEach, describe, expect, it } from 'vitest';
import type { OutboundRequest } from '../src/delivery/sender';
import { aWebhook } from './support/builders';
import { createHarness, type Harness, TEAM } from './support/harness';

let h: Harness;
afterEach(() => h?.close());

/** An injected sender: records what would go on the wire and answers 200 (no socket). */
function recordingSender() {
  const sent: OutboundRequest[] = [];
  return {
    sent,
    sender: async (req: OutboundRequest) => {
      sent.push(req);
      return { kind: 'response' as const, status: 200, body: 'ok' };
    },
  };
}

describe('organization-level events', () => {
  it('delivers organization, membership and invitation events to organization webhooks only', async () => {
    const rec = recordingSender();
    h = createHarness({ sender: rec.sender });
    h.seed({ ...TEAM, projects: [{ name: 'p', owner: 'alice', org: 'acme' }] });
    const events = [
      'update:organization',
      'create:membership',
      'update:membership',
      'delete:membership',
      'create:invitation',
      'delete:invitation',
    ];
    const org = await h.post(
      '/api/webhooks?org=acme',
      aWebhook()
        .forOrganization()
        .withEvents(...events)
        .build(),
      { as: 'alice' },
    );
    expect(org.status).toBe(201);
    h.advance('1s');
    await h.patch('/api/organizations/1', { name: 'Acme 2' }, { as: 'alice' });
    const inv = await h.post(
      '/api/invitations?org=acme',
      { email: 'erin@example.com', role: 'worker' },
      { as: 'alice' },
    );
    await h.post(`/api/invitations/${inv.body.key}/accept`, undefined, { as: 'erin' });
    const dave = (await h.get('/api/memberships?org=acme&user=dave', { as: 'alice' })).body.results[0];
    await h.patch(`/api/memberships/${dave.id}`, { role: 'supervisor' }, { as: 'alice' });
    await h.del(`/api/memberships/${dave.id}`, { as: 'alice' });
    await h.idle();
    const bodies = rec.sent.map((r) => JSON.parse(r.body.toString()));
    expect(bodies.map((b) => b.event)).toEqual([
      'update:organization',
      'create:membership',
      'create:invitation',
      'update:membership',
      'update:membership',
      'delete:membership',
    ]);
    expect(bodies[0].before_update).toEqual({ name: 'Acme', updated_date: '2026-01-01T00:00:00Z' });
    expect(bodies[0].organization).toMatchObject({ id: 1, slug: 'acme', name: 'Acme 2' });
    expect(bodies[2].invitation).toMatchObject({ key: inv.body.key, role: 'worker' });
    expect(bodies[3].changes).toEqual({
      is_active: { from: false, to: true },
      joined_date: { from: null, to: '2026-01-01T00:00:01Z' },
    });
    expect(bodies[4].before_update).toEqual({ role: 'worker' });
    expect(Object.keys(bodies[5])).toEqual(['event', 'membership', 'sender', 'webhook_id']);
  });

  it('passes enable_ssl: false to the sender as no certificate verification', async () => {
    const rec = recordingSender();
    h = createHarness({ sender: rec.sender });
    h.seed({ users: [{ username: 'u' }], projects: [{ name: 'p', owner: 'u' }] });
    const w = await h.post(
      '/api/webhooks',
      aWebhook().forProject(1).to('https://hooks.example.com/x').with({ enable_ssl: false }).build(),
      { as: 'u' },
    );
    await h.post(`/api/webhooks/${w.body.id}/ping`, undefined, { as: 'u' });
    expect(rec.sent[0]).toMatchObject({
      url: 'https://hooks.example.com/x',
      verifyTls: false,
      connectTimeoutMs: 3000,
      readTimeoutMs: 10000,
    });
  });

  it('scales the retry schedule with retryScale', async () => {
    let calls = 0;
    h = createHarness({
      sender: async () => {
        calls++;
        return { kind: 'response', status: 500, body: '' };
      },
      delivery: { retryScale: 0.001 },
    });
    h.seed({
      users: [{ username: 'u' }],
      projects: [{ name: 'p', owner: 'u' }],
      tasks: [{ name: 't', owner: 'u', project: 'p' }],
    });
    await h.post('/api/webhooks', aWebhook().forProject(1).withEvents('update:task').build(), { as: 'u' });
    await h.patch('/api/tasks/1', { name: 'x' }, { as: 'u' });
    await h.idle();
    h.advance('5ms');
    await h.idle();
    h.advance('300ms');
    await h.idle();
    expect(calls).toBe(3);
  });
});
