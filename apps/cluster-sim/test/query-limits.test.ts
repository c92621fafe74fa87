import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkQueryBounds, QUERY_LIMITS } from '../src/http/query-params';
import { createHarness, type Harness, LOC } from './support/harness';

/**
 * Query strings bounded like bodies (issue 33): every value and the number of parameters, on every
 * route, answered with Google's 400 INVALID_ARGUMENT; below the bounds nothing changes.
 */
let h: Harness;
beforeEach(async () => {
  h = createHarness();
  await h.seedDefault();
});
afterEach(() => h.close());

const LIST = `${LOC}/clusters`;
const SUBNETS = '/v1/projects/p1/aggregated/usableSubnetworks';

describe('query bounds', () => {
  it('answers 400 INVALID_ARGUMENT naming the parameter whose value is past the bound', async () => {
    const long = 'x'.repeat(QUERY_LIMITS.valueChars + 1);
    for (const [path, name] of [
      [LIST, 'fields'],
      [SUBNETS, 'filter'],
      [SUBNETS, 'pageToken'],
      [`${LOC}/operations`, 'zone'],
    ] as const) {
      const res = await h.get(`${path}?${name}=${long}`);
      expect(res.status, `${path} ${name}`).toBe(400);
      expect(res.body.error).toMatchObject({
        code: 400,
        status: 'INVALID_ARGUMENT',
        message: `Invalid value at '${name}': longer than ${QUERY_LIMITS.valueChars} characters.`,
      });
      expect(res.body.error.details).toContainEqual({
        '@type': 'type.googleapis.com/google.rpc.BadRequest',
        fieldViolations: [{ field: name, description: res.body.error.message }],
      });
    }
  });

  it('answers 400 past the number of parameters, repeats counted, and lists at the bound', async () => {
    const over = await h.get(`${LIST}?${'prettyPrint=false&'.repeat(QUERY_LIMITS.params)}alt=json`);
    expect(over.status).toBe(400);
    expect(over.body.error.message).toBe(
      `The request has more than ${QUERY_LIMITS.params} query parameters.`,
    );
    const at = await h.get(`${LIST}?${'prettyPrint=false&'.repeat(QUERY_LIMITS.params - 1)}alt=json`);
    expect(at.status, at.text).toBe(200);
    expect(at.body.clusters.map((c: { name: string }) => c.name)).toContain('c1');
  });

  it('refuses before the credentials are read, as the front end would', async () => {
    const res = await h.get(`${LIST}?key=${'k'.repeat(QUERY_LIMITS.valueChars + 1)}`, { token: null });
    expect(res.status).toBe(400);
  });

  it('answers huge page sizes and garbage page tokens of usableSubnetworks.list with its own 400s', async () => {
    const size = await h.get(`${SUBNETS}?pageSize=${'9'.repeat(400)}`);
    expect(size.status).toBe(400);
    expect(size.body.error.message).toMatch(/^Invalid page_size 9+: must be from 0 to 500\.$/);
    const token = await h.get(`${SUBNETS}?pageToken=${'%FF'.repeat(2000)}`);
    expect(token.status).toBe(400);
    expect(token.body.error.message).toBe('Invalid page token.');
  });

  it('declares the query parameters of every read in /openapi.json: its own, system ones, deprecated ids', async () => {
    const doc = (await h.get('/openapi.json')).body;
    const names = (path: string) =>
      (doc.paths[path].get.parameters as ({ name: string } | { $ref: string })[]).map((p) =>
        '$ref' in p ? doc.components.parameters[p.$ref.split('/').pop() as string].name : p.name,
      );
    expect(names(SUBNETS.replace('p1', '{projectId}'))).toEqual(
      expect.arrayContaining(['filter', 'pageSize', 'pageToken', '$.xgafv', 'fields', 'zone']),
    );
    const list = names('/v1/projects/{projectId}/locations/{location}/clusters');
    expect(list).toEqual(expect.arrayContaining(['alt', 'prettyPrint', 'zone', 'parent']));
    expect(list).not.toContain('projectId');
    expect(
      names(
        '/v1/projects/{projectId}/locations/{location}/clusters/{clusterId}/nodePools/{nodePoolId}:fetchNodePoolUpgradeInfo',
      ),
    ).toContain('version');
  });

  it('reads a short query without parsing it again, and a long one to its end', () => {
    expect(checkQueryBounds('http://h/p').ok).toBe(true);
    expect(checkQueryBounds(`http://h/p?${'a&'.repeat(QUERY_LIMITS.params - 1)}a`).ok).toBe(true);
    expect(checkQueryBounds(`http://h/p?${'a&'.repeat(QUERY_LIMITS.params)}a`).ok).toBe(false);
    const name = 'n'.repeat(QUERY_LIMITS.valueChars + 1);
    expect(checkQueryBounds(`http://h/p?${name}=1`)).toMatchObject({ ok: false });
    // Percent-encoded, the value is three times longer on the wire than the bound counts.
    expect(checkQueryBounds(`http://h/p?a=${'%41'.repeat(QUERY_LIMITS.valueChars)}`).ok).toBe(true);
  });
});
