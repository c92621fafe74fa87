import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness, TEAM } from './support/harness';

let h: Harness;
afterEach(() => h?.close());

/** Three projects (cats and dogs of alice, catfish of bob) and no webhooks. */
function setup() {
  h = createHarness();
  h.seed({
    ...TEAM,
    projects: [
      { name: 'cats', owner: 'alice' },
      { name: 'dogs', owner: 'alice' },
      { name: 'catfish', owner: 'bob' },
    ],
  });
}

const q = (s: string) => encodeURIComponent(s);
const projects = (filter: string) => h.get(`/api/projects?filter=${q(filter)}`, { as: 'admin' });
const names = (body: { results: { name: string }[] }) => body.results.map((p) => p.name);

describe("the model views' JSON Logic filter answers as CVAT's JsonLogicFilter", () => {
  it('ignores an empty filter, as `if json_rules:` does', async () => {
    setup();
    const res = await h.get('/api/projects?filter=', { as: 'admin' });
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(3);
  });

  it('answers 400 "filter shouldn\'t be empty" for every value Python finds false', async () => {
    setup();
    for (const empty of ['{}', '[]', '0', '0.0', '""', 'null', 'false']) {
      const res = await projects(empty);
      expect([res.status, res.body], empty).toEqual([400, ["filter shouldn't be empty"]]);
    }
  });

  it("answers malformed JSON with Python's json.loads message", async () => {
    setup();
    for (const [text, message] of [
      ['{"==":', 'Expecting value: line 1 column 7 (char 6)'],
      [' ', 'Expecting value: line 1 column 2 (char 1)'],
      ["{'a': 1}", 'Expecting property name enclosed in double quotes: line 1 column 2 (char 1)'],
      ['{"a":1} x', 'Extra data: line 1 column 9 (char 8)'],
      ['{"a":"b', 'Unterminated string starting at: line 1 column 6 (char 5)'],
      ['\ufeff{}', 'Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)'],
    ]) {
      const res = await projects(text as string);
      expect([res.status, res.body], text).toEqual([
        400,
        [`filter: can't parse filter expression: ${message}`],
      ]);
    }
  });

  it('answers a rule that is not a non-empty dict, or an and/or without a list, with the texts of _validate_arg', async () => {
    setup();
    for (const [rule, message] of [
      ['[1]', "filter: expected a non-empty dict value, got '[1]' of type 'list'"],
      ['"abc"', "filter: expected a non-empty dict value, got 'abc' of type 'str'"],
      ['1.5', "filter: expected a non-empty dict value, got '1.5' of type 'float'"],
      ['true', "filter: expected a non-empty dict value, got 'True' of type 'bool'"],
      ['NaN', "filter: expected a non-empty dict value, got 'nan' of type 'float'"],
      ['{"and":[]}', "filter: expected a non-empty list value, got '[]' of type 'list'"],
      ['{"or":{"a":1}}', "filter: expected a non-empty list value, got '{'a': 1}' of type 'dict'"],
      [
        '{"!":{"or":"x"}}',
        "filter: operation 'or' requires a non-empty list argument, got 'x' of type 'str'",
      ],
      [
        '{"!!":{"<=":"abc"}}',
        "filter: operation '<=' requires a non-empty list argument, got 'abc' of type 'str'",
      ],
    ]) {
      const res = await projects(rule as string);
      expect([res.status, res.body], rule).toEqual([400, [message]]);
    }
  });

  it('names an unknown term and an unsupported operation as CVAT does, arguments in Python repr', async () => {
    setup();
    for (const [rule, message] of [
      ['{"==":[{"var":"secret"},"x"]}', "filter: term 'secret' is not supported"],
      ['{"in":[{"var":5},[1]]}', "filter: term '5' is not supported"],
      ['{"in":["a",{"var":null}]}', "filter: term 'None' is not supported"],
      [
        '{"!=":[{"var":"id"},1]}',
        "filter: operation '!=' with arguments '[{'var': 'id'}, 1]' is not supported",
      ],
      [
        '{"==":[{"var":"id"},1,2]}',
        "filter: operation '==' with arguments '[{'var': 'id'}, 1, 2]' is not supported",
      ],
      [
        '{"foo":[1.0,1e16,null,true,"it\'s","\\u00e9\\u00a0"]}',
        `filter: operation 'foo' with arguments '[1.0, 1e+16, None, True, "it's", '\u00e9\\xa0']' is not supported`,
      ],
      // The first problem in CVAT's order of translation is the one answered.
      [
        '{"and":[{"foo":{"b":2,"a":1}},{"==":[{"var":"secret"},1]}]}',
        "filter: operation 'foo' with arguments '{'b': 2, 'a': 1}' is not supported",
      ],
    ]) {
      const res = await projects(rule as string);
      expect([res.status, res.body], rule).toEqual([400, [message]]);
    }
  });

  it('refuses a bad rule even when the list has no rows: the rules are translated first', async () => {
    setup();
    const res = await h.get(`/api/webhooks?filter=${q('{"xor":[1]}')}`, { as: 'admin' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(["filter: operation 'xor' with arguments '[1]' is not supported"]);
  });

  it("answers 500, as CVAT's uncaught exceptions do, where its filter code fails", async () => {
    setup();
    for (const [rule, reason] of [
      // `_validate_arg` of a nested rule reads `op` before it is bound.
      ['{"and":[1]}', /^NameError: cannot access free variable 'op'/],
      ['{"==":[{"id":1},1]}', /^KeyError: 'var'$/],
      ['{"==":[5,1]}', /^TypeError: 'int' object is not subscriptable$/],
      ['{"==":7}', /^TypeError: object of type 'int' has no len\(\)$/],
      // `var` as a rule is a model field path, not a filter term: Django cannot resolve it.
      ['{"var":"secret"}', /^FieldError: Cannot resolve keyword 'secret' into field/],
      ['{"<":[{"var":"id"},null]}', /^ValueError: Cannot use None as a query value$/],
    ]) {
      const res = await projects(rule as string);
      expect(res.status, rule as string).toBe(500);
      expect(res.headers.get('x-sim-reason'), rule as string).toMatch(reason as RegExp);
    }
  });

  it('evaluates and, or, !, !!, var, comparisons, in and the 3-argument <= as the database would', async () => {
    setup();
    expect(
      names(
        (await projects('{"and":[{"==":[{"var":"owner"},"alice"]},{"in":["cat",{"var":"name"}]}]}')).body,
      ),
    ).toEqual(['cats']);
    expect(names((await projects('{"!":{"==":[{"var":"owner"},"alice"]}}')).body)).toEqual(['catfish']);
    expect(names((await projects('{"in":[{"var":"name"},["dogs","cats"]]}')).body)).toEqual(['dogs', 'cats']);
    expect(names((await projects('{"<=":[1,{"var":"id"},2]}')).body)).toEqual(['dogs', 'cats']);
    expect(names((await projects('{"!!":{"var":"name"}}')).body)).toEqual(['catfish', 'dogs', 'cats']);
    // As the database compares: a NULL column (no assignee) matches no comparison, and a number column
    // takes digits given as text.
    expect((await projects('{"<":[{"var":"assignee"},1]}')).body.count).toBe(0);
    expect((await projects('{"!":{"<":[{"var":"assignee"},1]}}')).body.count).toBe(3);
    expect(names((await projects('{"==":[{"var":"id"},"2"]}')).body)).toEqual(['dogs']);
    // A filter value of the form CVAT's UI sends, with whitespace Python accepts.
    expect((await projects(' { "or" : [ { ">" : [ { "var" : "id" } , 2 ] } ] } ')).body.count).toBe(1);
  });
});

describe("the requests list's JSON Logic filter answers as CVAT's NonModelJsonLogicFilter", () => {
  /** Alice's task with data: one finished create:task request of hers. */
  async function withRequest() {
    h = createHarness();
    h.seed({ ...TEAM, tasks: [{ name: 't', owner: 'alice', org: 'acme', segment_size: 2 }] });
    const res = await h.post(
      '/api/tasks/1/data/?org=acme',
      { image_quality: 70, server_files: ['a.jpg'] },
      { as: 'alice' },
    );
    expect(res.status).toBe(202);
  }
  const requests = (filter: string, as = 'alice') => h.get(`/api/requests?filter=${q(filter)}`, { as });

  it('answers an operation it does not implement with its own 400 text, on each row, not on an empty list', async () => {
    await withRequest();
    const rule = '{"!!":[{"var":"status"}]}';
    const res = await requests(rule);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(["filter: !! operation with [{'var': 'status'}] arguments is not implemented"]);
    // Bob has no requests: nothing is evaluated, whatever the rule.
    expect((await requests(rule, 'bob')).body.count).toBe(0);
  });

  it("still parses the value first: empty is ignored, {} is refused, malformed JSON gets Python's message", async () => {
    await withRequest();
    expect((await h.get('/api/requests?filter=', { as: 'alice' })).body.count).toBe(1);
    expect((await requests('{}', 'bob')).body).toEqual(["filter shouldn't be empty"]);
    expect((await requests('[', 'bob')).body).toEqual([
      "filter: can't parse filter expression: Expecting value: line 1 column 2 (char 1)",
    ]);
  });

  it('filters with !=, which the model views refuse, and with one rule under and/or', async () => {
    await withRequest();
    expect((await requests('{"!=":[{"var":"status"},"finished"]}')).body.count).toBe(0);
    expect((await requests('{"and":[{"==":[{"var":"status"},"finished"]}]}')).body.count).toBe(1);
    expect((await requests('{"in":[{"var":"action"},["create","export"]]}')).body.count).toBe(1);
  });

  it("answers 500 where CVAT's per-row evaluation raises: an unknown term, and/or of two rules, None < 1", async () => {
    await withRequest();
    for (const [rule, reason] of [
      ['{"==":[{"var":"secret"},1]}', "KeyError: 'secret'"],
      [
        '{"and":[{"==":[{"var":"status"},"finished"]},{"==":[{"var":"action"},"create"]}]}',
        'TypeError: all() takes exactly one argument (2 given)',
      ],
      [
        '{"<":[{"var":"job_id"},1]}',
        "TypeError: '<' not supported between instances of 'NoneType' and 'int'",
      ],
      [
        '{"in":[{"var":"task_id"},"123"]}',
        "TypeError: 'in <string>' requires string as left operand, not int",
      ],
    ]) {
      const res = await requests(rule as string);
      expect([res.status, res.headers.get('x-sim-reason')], rule).toEqual([500, reason]);
    }
  });
});
