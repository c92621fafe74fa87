import { afterEach, describe, expect, it } from 'vitest';
import { QUERY_LIMITS } from '../src/http/query-limits';
import { createHarness, type Harness, TEAM } from './support/harness';

let h: Harness;
afterEach(() => h?.close());

const ids = (body: { results: { id: number }[] }) => body.results.map((r) => r.id);

/**
 * Two projects and three tasks: `zoo` (project `animals`, bug tracker, 3d, data), `park` (project
 * `plants`, data) and `lone` (no project, no data). Jobs come from the tasks' frames.
 */
function setup() {
  h = createHarness();
  h.seed({
    ...TEAM,
    projects: [
      { name: 'animals', owner: 'alice' },
      { name: 'plants', owner: 'bob' },
    ],
    tasks: [
      { name: 'zoo', owner: 'alice', project: 'animals', size: 4, segment_size: 2 },
      { name: 'park', owner: 'bob', project: 'plants', size: 2, segment_size: 2 },
      { name: 'lone', owner: 'carol' },
    ],
  });
  const zoo = h.state().tasks.get(1);
  Object.assign(zoo as object, { bug_tracker: 'https://tracker/1', dimension: '3d' });
}

/** The ids a list answers (sorted by id, all on one page), checking it answers 200. */
const list = async (path: string, query: string, as = 'admin') => {
  const res = await h.get(`${path}?page_size=all&sort=id&${query}`, { as });
  expect(res.status, `${path}?${query}`).toBe(200);
  return ids(res.body);
};

/** The 400 a list answers for a query. */
const refusal = async (path: string, query: string) => {
  const res = await h.get(`${path}?${query}`, { as: 'admin' });
  return [res.status, res.body];
};

const jobsOf = (task: number) =>
  [...h.state().jobs.values()].filter((j) => j.task_id === task).map((j) => j.id);

describe("CVAT's simple filters on every list view", () => {
  it('filters tasks by project_name, dimension, tracker_link, validation_mode and media_type', async () => {
    setup();
    expect(await list('/api/tasks', 'project_name=animals')).toEqual([1]);
    expect(await list('/api/tasks', 'dimension=3d')).toEqual([1]);
    expect(await list('/api/tasks', 'dimension=2d')).toEqual([2, 3]);
    expect(await list('/api/tasks', 'tracker_link=https://tracker/1')).toEqual([1]);
    // No task of the simulator has a validation layout: the column is NULL, equal to nothing.
    expect(await list('/api/tasks', 'validation_mode=gt')).toEqual([]);
    // A task without data has no media type.
    expect(await list('/api/tasks', 'media_type=image')).toEqual([1, 2]);
    expect(await list('/api/tasks', 'project_name=animals&dimension=2d')).toEqual([]);
  });

  it('filters jobs by task_name, project_name, dimension, parent_job_id and mode', async () => {
    setup();
    expect(await list('/api/jobs', 'task_name=zoo')).toEqual(jobsOf(1));
    expect(await list('/api/jobs', 'project_name=plants')).toEqual(jobsOf(2));
    expect(await list('/api/jobs', 'dimension=3d')).toEqual(jobsOf(1));
    expect(await list('/api/jobs', 'mode=annotation')).toEqual([...jobsOf(1), ...jobsOf(2)]);
    // parent_job_id names an existing job; no job of the simulator has a parent.
    expect(await list('/api/jobs', `parent_job_id=${jobsOf(1)[0]}`)).toEqual([]);
  });

  it('filters comments by frame_id, and organizations, invitations and users by their filters', async () => {
    setup();
    const job = jobsOf(1)[0] as number;
    for (const frame of [0, 1]) {
      const res = await h.post(
        '/api/issues',
        { frame, position: [1, 2, 3, 4], job, message: 'm' },
        { as: 'admin' },
      );
      expect(res.status).toBe(201);
    }
    expect(await list('/api/comments', 'frame_id=1')).toEqual([2]);
    h.seed({
      users: [
        { username: 'gina', first_name: 'Gina', last_name: 'Lee' },
        { username: 'hal', first_name: 'Hal', is_active: false },
      ],
      organizations: [{ slug: 'beta', owner: 'bob', invitations: [{ user: 'gina', role: 'worker' }] }],
    });
    expect(await list('/api/organizations', 'owner=bob')).toEqual([2]);
    const gina = [...h.state().users.values()].find((u) => u.username === 'gina')?.id;
    expect(await list('/api/users', 'first_name=Gina&last_name=Lee')).toEqual([gina]);
    expect((await list('/api/users', 'is_active=false')).length).toBe(1);
    const invited = await h.get(`/api/invitations?org=beta&owner=bob&user_id=${gina}&accepted=false`, {
      as: 'bob',
    });
    expect([invited.status, invited.body.count]).toEqual([200, 1]);
    const accepted = await h.get('/api/invitations?org=beta&accepted=true', { as: 'bob' });
    expect(accepted.body.count).toBe(0);
  });
});

describe('simple filter values, cleaned as django-filter cleans them', () => {
  it('refuses a value outside a field with choices, quoting it as given', async () => {
    setup();
    const message = (v: string) => `Select a valid choice. ${v} is not one of the available choices.`;
    expect(await refusal('/api/tasks', 'dimension=4d')).toEqual([400, { dimension: [message('4d')] }]);
    expect(await refusal('/api/jobs', 'state=new%20')).toEqual([400, { state: [message('new ')] }]);
    expect(await refusal('/api/memberships', 'role=boss')).toEqual([400, { role: [message('boss')] }]);
  });

  it('refuses a foreign key that names no row, even one the caller cannot see', async () => {
    setup();
    const invalid = ['Select a valid choice. That choice is not one of the available choices.'];
    for (const value of ['99', 'abc', '1.0'])
      expect(await refusal('/api/tasks', `project_id=${value}`)).toEqual([400, { project_id: invalid }]);
    // `int()` reads spaces and a sign around the digits; project 1 is not alice's... but exists.
    expect(await list('/api/tasks', 'project_id=%20%2B1%20')).toEqual([1]);
    expect(await list('/api/tasks', 'project_id=1', 'carol')).toEqual([]);
    expect(await refusal('/api/jobs', 'task_id=7')).toEqual([400, { task_id: invalid }]);
  });

  it('reads numbers as decimals truncated to integers, up to 1e50', async () => {
    setup();
    const job = jobsOf(1)[0] as number;
    for (const frame of [0, 1]) {
      await h.post('/api/issues', { frame, position: [1, 2, 3, 4], job, message: 'm' }, { as: 'admin' });
    }
    expect(await list('/api/comments', 'frame_id=1.9')).toEqual([2]);
    expect(await list('/api/comments', 'frame_id=1e0')).toEqual([2]);
    expect(await list('/api/comments', 'frame_id=-0.5')).toEqual([1]);
    expect(await list('/api/comments', 'frame_id=1_0')).toEqual([]);
    expect(await refusal('/api/comments', 'frame_id=one')).toEqual([400, { frame_id: ['Enter a number.'] }]);
    expect(await refusal('/api/comments', 'frame_id=NaN')).toEqual([400, { frame_id: ['Enter a number.'] }]);
    expect(await refusal('/api/comments', 'frame_id=1e51')).toEqual([
      400,
      { frame_id: ['Ensure this value is less than or equal to 1e+50.'] },
    ]);
  });

  it("reads booleans as Django's NullBooleanSelect does: other text filters nothing", async () => {
    setup();
    const job = jobsOf(1)[0] as number;
    for (const frame of [0, 1]) {
      await h.post('/api/issues', { frame, position: [1, 2, 3, 4], job, message: 'm' }, { as: 'admin' });
    }
    expect((await h.patch('/api/issues/2', { resolved: true }, { as: 'admin' })).status).toBe(200);
    for (const yes of ['true', 'True', '2'])
      expect(await list('/api/issues', `resolved=${yes}`)).toEqual([2]);
    for (const no of ['false', 'False', '3'])
      expect(await list('/api/issues', `resolved=${no}`)).toEqual([1]);
    for (const other of ['1', '0', 'yes', ''])
      expect(await list('/api/issues', `resolved=${other}`)).toEqual([1, 2]);
  });

  it('strips text, refuses NUL, and filters nothing for an empty value or an unknown name', async () => {
    setup();
    expect(await list('/api/tasks', 'name=%20zoo%0A')).toEqual([1]);
    expect(await list('/api/tasks', 'name=%20%20&status=')).toEqual([1, 2, 3]);
    expect(await list('/api/tasks', 'secret=1&name__icontains=zoo')).toEqual([1, 2, 3]);
    expect(await refusal('/api/tasks', 'name=a%00b')).toEqual([
      400,
      { name: ['Null characters are not allowed.'] },
    ]);
  });

  it('answers every refused filter in one 400, in the order the view declares them', async () => {
    setup();
    const res = await h.get('/api/jobs?type=x&task_id=x&state=x', { as: 'admin' });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body)).toEqual(['state', 'task_id', 'type']);
  });

  it('reads the last of repeated values, as QueryDict.get does', async () => {
    setup();
    expect(await list('/api/tasks', 'dimension=4d&dimension=3d')).toEqual([1]);
  });
});

describe('the list views of organizations, memberships, users and invitations', () => {
  it('check the query bounds right after authentication, before the organization, search or sort', async () => {
    setup();
    const many = 'x=1&'.repeat(QUERY_LIMITS.params);
    const terms = Array.from({ length: QUERY_LIMITS.searchTerms + 1 }, (_, i) => `t${i}`).join(',');
    const expected = [400, [`query: more than ${QUERY_LIMITS.params} parameters are not supported`]];
    for (const path of ['/api/organizations', '/api/memberships', '/api/users', '/api/invitations']) {
      const res = await h.get(`${path}?${many}org=nowhere&search=${terms}`, { as: 'dave' });
      expect([res.status, res.body], path).toEqual(expected);
    }
  });

  it("search, sort and filter over CVAT's fields, users and memberships newest first", async () => {
    setup();
    expect(await list('/api/organizations', 'search=alice')).toEqual([1]);
    const byOwner = await h.get('/api/organizations?filter={"==":[{"var":"owner"},"alice"]}', {
      as: 'admin',
    });
    expect(ids(byOwner.body)).toEqual([1]);
    const members = await h.get('/api/memberships?org=acme&search=car', { as: 'alice' });
    expect(members.body.results.map((m: { role: string }) => m.role)).toEqual(['supervisor']);
    const sorted = await h.get('/api/memberships?org=acme&sort=-user', { as: 'alice' });
    expect(sorted.body.results.map((m: { user: { username: string } }) => m.user.username)).toEqual([
      'dave',
      'carol',
      'bob',
      'alice',
    ]);
    const users = await h.get('/api/users', { as: 'admin' });
    expect(ids(users.body)).toEqual([...ids(users.body)].sort((a, b) => b - a));
    const inactive = await h.get('/api/users?filter={"==":[{"var":"is_active"},false]}', { as: 'admin' });
    expect(inactive.body.count).toBe(0);
  });
});

describe('sorting as PostgreSQL orders NULL', () => {
  it('puts empty values last ascending and first descending', async () => {
    setup();
    const sorted = async (sort: string) =>
      ids((await h.get(`/api/tasks?sort=${sort}`, { as: 'admin' })).body);
    // `lone` has no project: its project_name is NULL.
    expect(await sorted('project_name')).toEqual([1, 2, 3]);
    expect(await sorted('-project_name')).toEqual([3, 2, 1]);
    expect(await sorted('project_id,-id')).toEqual([1, 2, 3]);
  });
});

describe('search over CVAT 2.73 search_fields', () => {
  it("finds tasks by their project's name and comments by their owner only", async () => {
    setup();
    expect(await list('/api/tasks', 'search=plant')).toEqual([2]);
    const job = jobsOf(1)[0] as number;
    await h.post('/api/issues', { frame: 0, position: [1, 2, 3, 4], job, message: 'zebra' }, { as: 'admin' });
    expect(await list('/api/comments', 'search=zebra')).toEqual([]);
    expect(await list('/api/comments', 'search=adm')).toEqual([1]);
  });
});

describe('/openapi.json', () => {
  it('declares every simple filter a list view reads, typed as CVAT types it', async () => {
    setup();
    const doc = (await h.get('/openapi.json')).body;
    const params = (path: string) =>
      Object.fromEntries(
        (doc.paths[path].get.parameters as { name: string; in: string; schema: unknown }[])
          .filter((p) => p.in === 'query')
          .map((p) => [p.name, p.schema]),
      );
    expect(params('/api/tasks')).toMatchObject({
      project_name: { type: 'string' },
      tracker_link: { type: 'string' },
      dimension: { type: 'string', enum: ['1d', '2d', '3d'] },
      validation_mode: { type: 'string', enum: ['gt', 'gt_pool'] },
      project_id: { type: 'integer' },
    });
    expect(params('/api/jobs')).toMatchObject({
      task_name: { type: 'string' },
      project_name: { type: 'string' },
      parent_job_id: { type: 'integer' },
      dimension: { type: 'string', enum: ['1d', '2d', '3d'] },
    });
    expect(params('/api/comments')).toMatchObject({ frame_id: { type: 'integer' } });
    expect(Object.keys(params('/api/users')).sort()).toEqual([
      'filter',
      'first_name',
      'is_active',
      'last_name',
      'org',
      'org_id',
      'page',
      'page_size',
      'search',
      'sort',
      'username',
    ]);
    expect(Object.keys(params('/api/invitations'))).toEqual(
      expect.arrayContaining(['accepted', 'owner', 'user_id', 'filter', 'search']),
    );
    expect(params('/api/issues')).toMatchObject({ resolved: { type: 'boolean' } });
  });

  it('serves every simple filter it declares: a value of its type filters, one of another is a 400', async () => {
    setup();
    const doc = (await h.get('/openapi.json')).body;
    const lists = Object.keys(doc.paths).filter((path) => !path.includes('{') && doc.paths[path].get);
    let served = 0;
    for (const path of lists) {
      const declared = (
        doc.paths[path].get.parameters as { name: string; description?: string; schema: { type: string } }[]
      ).filter((p) => p.description?.startsWith('A simple equality filter'));
      for (const { name, schema } of declared) {
        const good = schema.type === 'integer' ? '1' : schema.type === 'boolean' ? 'true' : 'animals';
        const ok = await h.get(`${path}?${name}=${good}`, { as: 'admin' });
        expect([200, 400], `${path}?${name}=${good}`).toContain(ok.status);
        if (schema.type === 'integer') {
          const bad = await h.get(`${path}?${name}=x`, { as: 'admin' });
          expect([bad.status, Object.keys(bad.body)], `${path}?${name}=x`).toEqual([400, [name]]);
        }
        served++;
      }
    }
    expect(served).toBe(59);
  });
});
