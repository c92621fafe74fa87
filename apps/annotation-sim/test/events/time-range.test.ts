import { PatchedAccessTokenWriteRequest } from '@sims/annotation-schema';
import { afterEach, describe, expect, it } from 'vitest';
import { updateAccessToken } from '../../src/domain/access-tokens';
import { parseIsoDateTime } from '../../src/domain/events/time';
import type { AccessTokenRec } from '../../src/domain/model';
import { validateFields } from '../../src/http/parse';
import { createHarness, type Harness } from './support/harness';

/** Every time CVAT takes is a Python `datetime`: years 1 to 9999, written as DRF's `DateTimeField` reads them. */
const WRONG =
  'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].';

describe('datetimes as DRF reads them', () => {
  it('keeps years before 100 as written (not read as 19xx) and refuses years outside 1-9999', () => {
    expect(parseIsoDateTime('0050-03-01T00:00:00Z')).toBe(Date.parse('0050-03-01T00:00:00Z') * 1000);
    expect(parseIsoDateTime('0001-01-01T00:00:00Z')).toBe(-62_135_596_800_000_000);
    expect(parseIsoDateTime('9999-12-31T23:59:59Z')).toBe(253_402_300_799_000_000);
    for (const bad of ['0000-01-01T00:00:00Z', '0001-01-01T00:00:00+01:00', '9999-12-31T23:59:59-01:00'])
      expect(parseIsoDateTime(bad), bad).toBeUndefined();
  });

  it("answers an access token's expiry date that is no ISO datetime with DRF's format error", () => {
    const token = { name: 't', read_only: false, expiry_date: null } as AccessTokenRec;
    for (const expiry_date of ['March 7, 2026', '2026', 20260307, '10000-01-01T00:00:00Z']) {
      const fields = validateFields({ expiry_date }, PatchedAccessTokenWriteRequest, true);
      const result = fields.ok ? updateAccessToken(token, fields.value, 0) : fields;
      expect(result, String(expiry_date)).toMatchObject({
        ok: false,
        error: { errors: { expiry_date: [WRONG] } },
      });
    }
    const fields = validateFields(
      { expiry_date: '0050-01-01T00:00:00+00:00' },
      PatchedAccessTokenWriteRequest,
      true,
    );
    expect(fields.ok).toBe(true);
    const updated = updateAccessToken(token, fields.ok ? fields.value : {}, 0);
    expect(updated).toMatchObject({ ok: true });
    expect(token.expiry_date).toBe('0050-01-01T00:00:00Z');
  });
});

describe('the events control plane', () => {
  let h: Harness;
  afterEach(() => h?.close());

  it('refuses a record whose timestamp a Python datetime cannot hold, and stores none of the batch', async () => {
    h = createHarness();
    const post = (timestamp: unknown) =>
      h.app.request('/_sim/events/records', {
        method: 'POST',
        body: JSON.stringify({
          events: [
            { scope: 'create:task', obj_id: 1, timestamp: '2026-08-12T09:59:58.104Z' },
            { scope: 'create:task', obj_id: 2, timestamp },
          ],
        }),
      });
    for (const timestamp of [1e20, '+010000-01-01T00:00:00Z', -62_135_596_800_001]) {
      const res = await post(timestamp);
      expect(res.status, String(timestamp)).toBe(400);
      expect(await res.text()).toContain('events.1.timestamp: not a time between years 1 and 9999');
    }
    expect((await post('9999-12-31T23:59:59.999Z')).status).toBeLessThan(300);
  });
});
