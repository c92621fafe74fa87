import { describe, expect, it } from 'vitest';
import { buildExportQuery, type EventsCaller, forcedFilters } from '../../src/domain/events/export';

const acme = { id: 10, slug: 'acme' };
const caller = (over: Partial<EventsCaller>): EventsCaller => ({
  id: 5,
  username: 'u',
  email: '',
  isAdmin: false,
  privilege: 'user',
  org: null,
  role: null,
  ...over,
});

describe('events export permissions (events.rego filter)', () => {
  it('forces nothing for an admin in the sandbox and the organization in an org context', () => {
    expect(forcedFilters(caller({ isAdmin: true, privilege: 'admin' }))).toEqual({ ok: true, value: {} });
    expect(forcedFilters(caller({ isAdmin: true, privilege: 'admin', org: acme }))).toEqual({
      ok: true,
      value: { org_id: 10 },
    });
  });

  it('forces the caller for a non-admin in the sandbox, whatever the privilege', () => {
    expect(forcedFilters(caller({ privilege: 'worker' }))).toEqual({ ok: true, value: { user_id: 5 } });
    expect(forcedFilters(caller({ privilege: 'user' }))).toEqual({ ok: true, value: { user_id: 5 } });
  });

  it('forces the organization for owners and maintainers with user privilege', () => {
    for (const role of ['owner', 'maintainer'] as const) {
      expect(forcedFilters(caller({ org: acme, role }))).toEqual({ ok: true, value: { org_id: 10 } });
    }
  });

  it('forces the caller and the organization for other members, and maintainers with worker privilege', () => {
    for (const role of ['supervisor', 'worker'] as const) {
      expect(forcedFilters(caller({ org: acme, role }))).toEqual({
        ok: true,
        value: { user_id: 5, org_id: 10 },
      });
    }
    expect(forcedFilters(caller({ org: acme, role: 'maintainer', privilege: 'worker' }))).toEqual({
      ok: true,
      value: { user_id: 5, org_id: 10 },
    });
  });

  it('denies non-members of the organization', () => {
    expect(forcedFilters(caller({ org: acme, role: null }))).toEqual({
      ok: false,
      error: { code: 'FORBIDDEN' },
    });
  });

  it('accepts an explicit value equal to the forced one and rejects any other, naming the value given', () => {
    const me = caller({});
    expect(buildExportQuery(me, { user_id: '5' }, 1000, () => 0)).toMatchObject({
      ok: true,
      value: { ids: { user_id: 5 } },
    });
    expect(buildExportQuery(me, { user_id: '05' }, 1000, () => 0)).toEqual({
      ok: false,
      error: { code: 'FORBIDDEN', detail: "You don't have permission to view events with user_id=05" },
    });
  });

  it('defaults from to the minimal date of the most specific resource and to to now', () => {
    const admin = caller({ isAdmin: true, privilege: 'admin' });
    const seen: unknown[] = [];
    const r = buildExportQuery(admin, { task_id: '3', project_id: '' }, 99_000, (ids) => {
      seen.push(ids);
      return 42_000;
    });
    expect(r).toEqual({ ok: true, value: { from: 42_000, to: 99_000, ids: { task_id: 3 } } });
    expect(seen).toEqual([{ task_id: 3 }]);
  });

  it('accepts from equal to to (inclusive window)', () => {
    const admin = caller({ isAdmin: true });
    const at = '2026-08-12T10:00:00.250Z';
    expect(buildExportQuery(admin, { from: at, to: at }, 0, () => 0)).toMatchObject({
      ok: true,
      value: { from: Date.parse(at), to: Date.parse(at) },
    });
  });
});
