import { createHash } from 'node:crypto';
import fc from 'fast-check';
import type { Context } from 'hono';
import { describe, expect, it } from 'vitest';
import type { SimulatorDefinition } from '../src/definition';
import { checkJsonBudget, measureJson, yamlTokens } from '../src/http/json-budget';
import { createSimKernel } from '../src/http/kernel';
import type { SimEnv } from '../src/http/request-context';
import { call } from './support/http';
import { type ToyState, toyDefinition } from './support/toy-simulator';

/** The values and the depth of a parsed JSON value, as the budget counts them (member names too). */
function reference(value: unknown): { values: number; depth: number } {
  if (value === null || typeof value !== 'object') return { values: 1, depth: 0 };
  let values = 1;
  let depth = 0;
  for (const [key, item] of Array.isArray(value) ? value.entries() : Object.entries(value)) {
    const inner = reference(item);
    values += inner.values + (typeof key === 'string' ? 1 : 0);
    depth = Math.max(depth, inner.depth);
  }
  return { values, depth: depth + 1 };
}

describe('measureJson', () => {
  it('counts every kind of value and member name, and the deepest nesting', () => {
    expect(measureJson('{"a":[1,-2.5e3,true,false,null,"x"],"b":{}}', 100)).toEqual({ values: 11, depth: 2 });
    expect(measureJson('[[[[]]]]', 100)).toEqual({ values: 4, depth: 4 });
    expect(measureJson(' \n\t7 \r\n', 100)).toEqual({ values: 1, depth: 0 });
  });

  it('counts a number once, whatever its digits, sign, fraction and exponent', () => {
    expect(measureJson('[0,-0,1e-7,-12.5E+300,123456789012345678901234567890]', 100).values).toBe(6);
  });

  it('takes brackets, commas, colons and escaped quotes inside strings as text', () => {
    const strings = ['[{,:}]', 'a"b', 'c\\', '\\"', '}}}}]]]', '"[', '\\\\"{'];
    const text = JSON.stringify(strings);
    expect(text).toContain('\\\\\\"');
    expect(measureJson(text, 100)).toEqual({ values: strings.length + 1, depth: 1 });
    expect(measureJson(JSON.stringify({ '{"k":[': '[]', 'x\\': { '"': 1 } }), 100)).toEqual({
      values: 7,
      depth: 2,
    });
  });

  it('reads text outside ASCII, escaped or not, as one string', () => {
    const text = '{"ключ":"значение 😀","\\u00e9":"\\ud83d\\ude00 [","\u2028":"\\u0022"}';
    expect(JSON.parse(text)).toBeTypeOf('object');
    expect(measureJson(text, 100)).toEqual({ values: 7, depth: 1 });
  });

  it('agrees with a count of the parsed value on any JSON, compact or indented (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.boolean(), (value, indent) => {
        const text = indent ? JSON.stringify(value, null, 2) : JSON.stringify(value);
        expect(measureJson(text, Number.MAX_SAFE_INTEGER)).toEqual(reference(JSON.parse(text)));
      }),
      { numRuns: 300, seed: 33 },
    );
  });

  it('stops counting one past the limit', () => {
    expect(measureJson('[1,1,1,1,1,1,1,1]', 3).values).toBe(4);
    expect(measureJson(`[${'{},'.repeat(1_000_000)}{}]`, 10).values).toBe(11);
  });

  it('measures text that is not JSON too (JSON.parse builds what it reads before it fails)', () => {
    expect(measureJson('[[[', 100)).toEqual({ values: 3, depth: 3 });
    expect(measureJson('[{"a":1},{"a":1},', 100)).toEqual({ values: 7, depth: 2 });
    expect(measureJson('["an unterminated [string', 100)).toEqual({ values: 2, depth: 1 });
  });
});

describe('checkJsonBudget', () => {
  const budget = { maxDepth: 3, maxValues: 10 };

  it('says a text past the values is over budget, and whether one within nests too deep', () => {
    expect(checkJsonBudget(`[${'1,'.repeat(10)}1]`, budget)).toEqual({
      excess: { limit: 'values', max: 10 },
      tooDeep: false,
    });
    expect(checkJsonBudget('[[[[1]]]]', budget)).toEqual({ tooDeep: true });
    expect(checkJsonBudget('[[["deep enough"]]]', budget)).toEqual({ tooDeep: false });
  });

  it('leaves a text too short to pass either limit unread', () => {
    // Six characters hold at most six values and three levels of valid JSON: nothing to measure.
    expect(checkJsonBudget('[[[]]]', budget)).toEqual({ tooDeep: false });
  });
});

describe('yamlTokens', () => {
  it('counts words and opening brackets of block and flow YAML', () => {
    expect(yamlTokens('- id: a\n  effect: {delay: 2s}', 100)).toBe(7);
    expect(yamlTokens('[{"a":1},{"b":2}]', 100)).toBe(7);
  });

  it('counts words inside quotes, so quotes cannot hide nodes from it', () => {
    expect(yamlTokens(`'"'\n${'- a: 1\n'.repeat(50)}'"'`, 1000)).toBe(2 + 150);
    expect(yamlTokens(`"${'x '.repeat(20)}"`, 5)).toBe(6);
  });
});

/** A toy simulator with a small budget and a route that shows what the kernel read. */
function budgeted(limits: SimulatorDefinition<ToyState>['limits'], journalBodyLimit = 16 * 1024) {
  const kernel = createSimKernel({ ...toyDefinition, limits }, { journalBodyLimit });
  kernel.app.post('/echo', kernel.operation('echo'), (c: Context<SimEnv<ToyState>>) => {
    const sim = c.var.sim;
    return c.json({
      rawBody: sim.rawBody ?? null,
      bodyBytes: sim.bodyBytes === undefined ? null : Buffer.from(sim.bodyBytes).toString('base64'),
      json: sim.json ?? null,
      jsonError: sim.jsonError ?? null,
      jsonOverBudget: sim.jsonOverBudget ?? null,
      jsonTooDeep: sim.jsonTooDeep ?? null,
    });
  });
  return kernel;
}

describe('the kernel reads an emulated-API body within its budget', () => {
  it('hands on a body past the values unparsed, with the reason for the API to render', async () => {
    const { app } = budgeted({ maxJsonValues: 5 });
    const res = await call(app, 'POST', '/echo', '[{"a":1},{"a":2}]');
    expect(res.body).toMatchObject({
      json: null,
      jsonError: "JSON body with more than 5 values (the simulator's limit)",
      jsonOverBudget: { limit: 'values', max: 5 },
    });
    expect((await call(app, 'POST', '/echo', '[{"a":1},1]')).body).toMatchObject({
      json: [{ a: 1 }, 1],
      jsonError: null,
    });
  });

  it('does not decode a body past the bytes: the journal keeps its size and hash from the bytes', async () => {
    const kernel = budgeted({ maxJsonBytes: 100 }, 32);
    const body = JSON.stringify({ name: 'é'.repeat(100) });
    const res = await call(kernel.app, 'POST', '/echo', body);
    expect(res.body).toMatchObject({
      rawBody: null,
      json: null,
      jsonError: "JSON body larger than 100 bytes (the simulator's limit)",
      jsonOverBudget: { limit: 'bytes', max: 100 },
    });
    expect(Buffer.from(res.body.bodyBytes, 'base64').toString()).toBe(body);
    const [entry] = kernel.namespaces.get('default').journal.list();
    expect(entry?.requestBody).toMatchObject({
      truncated: true,
      size: Buffer.byteLength(body),
      sha256: createHash('sha256').update(body).digest('hex'),
      preview: expect.stringMatching(/^{"name":"éé/),
    });
  });

  it('keeps the bodies of the content types the simulator names as bytes, never decoded or parsed', async () => {
    const kernel = budgeted({ bytesBodies: (type) => type?.startsWith('multipart/') === true });
    const binary = Buffer.from([0xff, 0xd8, 0x7b, 0x22, 0x00, 0xc3, 0x28, 0x5b]);
    const res = await kernel.app.request('/echo', {
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data; boundary=x' },
      body: binary,
    });
    const seen = (await res.json()) as Record<string, unknown>;
    expect(seen).toMatchObject({ rawBody: null, json: null, jsonError: null, jsonOverBudget: null });
    expect(Buffer.from(seen.bodyBytes as string, 'base64').equals(binary)).toBe(true);
    // Another type is JSON as before.
    expect((await call(kernel.app, 'POST', '/echo', '{"a":1}')).body).toMatchObject({
      rawBody: '{"a":1}',
      json: { a: 1 },
      bodyBytes: null,
    });
  });

  it('still says where JSON nests too deep, within the values', async () => {
    const { app } = budgeted({ maxJsonDepth: 3 });
    const res = await call(app, 'POST', '/echo', '{"a":{"b":{"c":{"d":1}}},"e":"padding padding"}');
    expect(res.body).toMatchObject({ json: null, jsonTooDeep: { key: 'c', maxDepth: 3 } });
  });
});

describe('the control plane reads bodies within its budget', () => {
  const control = () => createSimKernel(toyDefinition).app;

  it('refuses JSON past a million values with its 400, unparsed', async () => {
    const res = await call(control(), 'POST', '/_sim/seed', `{"widgets":[${'0,'.repeat(1_000_000)}0]}`);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe(
      "JSON body with more than 1000000 values (the control plane's limit)",
    );
    // Just within: parsed, and refused as a seed.
    const within = await call(
      control(),
      'POST',
      '/_sim/seed',
      `{"widgets":[],"pad":[${'0,'.repeat(999_990)}0]}`,
    );
    expect(within.status).toBe(400);
    expect(within.body.error.message).toMatch(/pad/);
  });

  it('refuses JSON nested past 200 levels, and malformed JSON as such', async () => {
    const deep = await call(control(), 'POST', '/_sim/seed', `${'['.repeat(201)}${']'.repeat(201)}`);
    expect(deep.body.error.message).toBe('JSON body nested deeper than 200 levels');
    const bad = await call(control(), 'POST', '/_sim/seed', `${'['.repeat(201)}`);
    expect(bad.body.error.message).toMatch(/^malformed JSON body/);
  });

  it('refuses text for the YAML parser past 200,000 words and brackets, scenarios and fault rules alike', async () => {
    const app = control();
    const yaml = `widgets:\n${'  - {name: a, color: b}\n'.repeat(40_000)}`;
    const scenario = await call(app, 'POST', '/_sim/scenarios', `seed:\n  ${yaml.replace(/\n/g, '\n  ')}`);
    const rules = await call(app, 'POST', '/_sim/faults', yaml, { 'content-type': 'application/yaml' });
    for (const res of [scenario, rules]) {
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe(
        "YAML body with more than 200000 words and brackets (the control plane's limit)",
      );
    }
  });
});
