import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness, POOL } from './support/harness';

/**
 * The JSON budget (chosen; FIDELITY.md, Limits): Google's front end parses any JSON body up to its
 * 10 MiB; the simulator parses a million values at most and answers more as it answers any JSON it
 * cannot read: 400 INVALID_ARGUMENT `Invalid JSON payload received. …` with a BadRequest detail.
 */
let h: Harness;
beforeEach(async () => {
  h = createHarness();
  await h.seedDefault();
});
afterEach(() => h.close());

async function request(method: string, body?: string) {
  const res = await h.sim.app.request(POOL, {
    method,
    headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
    body,
  });
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text) };
}

describe('a JSON body past the budget', () => {
  it('is 400 INVALID_ARGUMENT with the reason, unparsed, and the pool is unchanged', async () => {
    const before = (await request('GET')).body;
    const res = await request('PUT', `[${'{"a":1},'.repeat(340_000)}{"a":1}]`);
    const reason =
      "Invalid JSON payload received. JSON body with more than 1000000 values (the simulator's limit)";
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({
      code: 400,
      message: reason,
      errors: [{ message: reason, domain: 'global', reason: 'badRequest' }],
      status: 'INVALID_ARGUMENT',
      details: [
        {
          '@type': 'type.googleapis.com/google.rpc.BadRequest',
          fieldViolations: [{ description: reason }],
        },
      ],
    });
    expect((await request('GET')).body).toEqual(before);
  });

  it('is read when within it: a million values reach the parser', async () => {
    const res = await request('PUT', `{"nodeVersion":"1.30","x":[${'0,'.repeat(999_994)}0]}`);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe(
      'Invalid JSON payload received. Unknown name "x": Cannot find field.',
    );
  });
});
