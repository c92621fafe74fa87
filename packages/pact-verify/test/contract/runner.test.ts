import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ProviderDefinition, paramsOf, str, verifyPacts } from '../../src/index';

/**
 * A toy provider: `GET /value` answers the stored value, `PUT /value` accepts only the token a state
 * issued (like an etag the server computes). Everything lives in the session.
 */
function toyProvider(counters: { starts: number; resets: number }): ProviderDefinition {
  return {
    name: 'toy',
    async start() {
      counters.starts++;
      const world = new Map<string, string>();
      const server = createServer((req, res) => {
        let body = '';
        req.on('data', (c) => {
          body += c;
        });
        req.on('end', () => {
          res.setHeader('Content-Type', 'application/json');
          if (req.method === 'GET') return res.end(JSON.stringify({ value: world.get('value') ?? null }));
          const token = (JSON.parse(body || '{}') as { token?: string }).token;
          res.statusCode = token !== undefined && token === world.get('token') ? 200 : 409;
          res.end('{}');
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      return {
        baseUrl: `http://127.0.0.1:${port}`,
        async reset() {
          counters.resets++;
          world.clear();
        },
        states: {
          async 'value is {value}'(params) {
            world.set('value', str(paramsOf(params, 'value is {value}', 'value').value, 'value'));
            return undefined;
          },
          async 'a token is issued'() {
            const token = randomUUID();
            world.set('token', token);
            return { token };
          },
          async 'the store is down'() {
            throw new Error('cannot reach the store');
          },
        },
        async message() {
          return {
            body: JSON.stringify({ value: world.get('value') ?? null }),
            metadata: { 'Content-Type': 'application/json' },
          };
        },
        close: () => new Promise<void>((resolve) => server.close(() => resolve())),
      };
    },
  };
}

const json = (content: unknown) => ({ content, contentType: 'application/json', encoded: false });
const GOOD_PACT = {
  consumer: { name: 'toy-consumer' },
  provider: { name: 'toy' },
  interactions: [
    {
      type: 'Synchronous/HTTP',
      description: '1 a read after a state set the value',
      providerStates: [{ name: 'value is {value}', params: { value: 'x' } }],
      request: { method: 'GET', path: '/value' },
      response: { status: 200, body: json({ value: 'x' }) },
    },
    {
      type: 'Synchronous/HTTP',
      description: '2 a read without states sees an empty world',
      request: { method: 'GET', path: '/value' },
      response: { status: 200, body: json({ value: null }) },
    },
    {
      type: 'Synchronous/HTTP',
      description: '3 a write with the token the state issued',
      providerStates: [{ name: 'a token is issued', params: {} }],
      request: {
        method: 'PUT',
        path: '/value',
        headers: { 'Content-Type': ['application/json'] },
        body: json({ token: 'example-token' }),
        // biome-ignore lint/suspicious/noTemplateCurlyInString: pact's provider-state expression
        generators: { body: { '$.token': { type: 'ProviderState', expression: '${token}' } } },
        matchingRules: { body: { '$.token': { combine: 'AND', matchers: [{ match: 'type' }] } } },
      },
      response: { status: 200 },
    },
    {
      type: 'Asynchronous/Messages',
      description: '4 a message built from the states',
      providerStates: [{ name: 'value is {value}', params: { value: 'y' } }],
      contents: json({ value: 'y' }),
      metadata: { 'Content-Type': 'application/json' },
    },
  ],
  metadata: { pactSpecification: { version: '4.0' } },
};
const BAD_STATES_PACT = {
  consumer: { name: 'toy-consumer' },
  provider: { name: 'toy' },
  interactions: [
    {
      type: 'Synchronous/HTTP',
      description: 'a read while the store is down',
      providerStates: [{ name: 'the store is down', params: {} }],
      request: { method: 'GET', path: '/value' },
      response: { status: 200 },
    },
    {
      type: 'Synchronous/HTTP',
      description: 'a read in a world nobody documented',
      providerStates: [{ name: 'value is set by magic', params: {} }],
      request: { method: 'GET', path: '/value' },
      response: { status: 200 },
    },
  ],
  metadata: { pactSpecification: { version: '4.0' } },
};

describe('verifyPacts with a toy provider', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'toy-pacts-'));
    writeFileSync(join(dir, 'good.json'), JSON.stringify(GOOD_PACT));
    writeFileSync(join(dir, 'bad-states.json.txt'), JSON.stringify(BAD_STATES_PACT));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('empties the world before every interaction, injects state values into requests and builds messages from states', async () => {
    const counters = { starts: 0, resets: 0 };
    const result = await verifyPacts({
      providers: [toyProvider(counters)],
      pacts: [join(dir, 'good.json')],
      log: () => {},
    });
    expect(
      result.results.flatMap((r) => [...r.stateFailures, ...r.mismatches.map((m) => m.interaction)]),
    ).toEqual([]);
    expect(result.ok).toBe(true);
    expect(counters).toEqual({ starts: 1, resets: 4 });
  });

  it('fails the interaction of a state handler that throws and of a state nobody handles, naming both', async () => {
    const counters = { starts: 0, resets: 0 };
    const result = await verifyPacts({
      providers: [toyProvider(counters)],
      pacts: [join(dir, 'bad-states.json.txt')],
      log: () => {},
    });
    expect(result.ok).toBe(false);
    const [run] = result.results;
    expect(run?.stateFailures).toEqual([
      'provider state "the store is down" {} could not be set up: cannot reach the store',
      expect.stringMatching(
        /^provider state "value is set by magic" \{\} could not be set up: unknown provider state \(known: "value is \{value\}"/,
      ),
    ]);
    expect(run?.mismatches.map((m) => [m.interaction.replace(/^.* - /, ''), m.details])).toEqual([
      ['a read while the store is down', ['StatusMismatch: expected 200 but was 599']],
      ['a read in a world nobody documented', ['StatusMismatch: expected 200 but was 599']],
    ]);
  });
});
