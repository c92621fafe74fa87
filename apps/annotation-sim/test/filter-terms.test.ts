import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness, TEAM } from './support/harness';

let h: Harness;
afterEach(() => h?.close());

const q = (s: string) => encodeURIComponent(s);
const ids = (body: { results: { id: number }[] }) => body.results.map((r) => r.id);

/**
 * Two projects and three tasks. `zoo` is in project `animals` (bug tracker, 3d, updated 2026-03-01
 * 12:00:00.5); `park` is in project `plants`; `lone` has no project. Jobs come from the tasks' frames.
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
      { name: 'lone', owner: 'carol', size: 2, segment_size: 2 },
    ],
  });
  const [zoo, park] = [...h.state().tasks.values()];
  Object.assign(zoo as object, {
    bug_tracker: 'https://tracker/1',
    dimension: '3d',
    updated_date: '2026-03-01T12:00:00.500000Z',
  });
  Object.assign(park as object, { updated_date: '2026-02-01T00:00:00Z' });
}

const list = async (path: string, filter: string, extra = '') => {
  const res = await h.get(`${path}?page_size=all&sort=id&filter=${q(filter)}${extra}`, { as: 'admin' });
  expect(res.status, `${path} ${filter}`).toBe(200);
  return ids(res.body);
};

describe("JSON Logic over every one of CVAT's filter_fields", () => {
  it('filters tasks by project_name, tracker_link, dimension, validation_mode and updated_date', async () => {
    setup();
    expect(await list('/api/tasks', '{"==":[{"var":"project_name"},"animals"]}')).toEqual([1]);
    expect(await list('/api/tasks', '{"==":[{"var":"project_name"},null]}')).toEqual([3]);
    expect(await list('/api/tasks', '{"in":["plan",{"var":"project_name"}]}')).toEqual([2]);
    expect(await list('/api/tasks', '{"==":[{"var":"tracker_link"},"https://tracker/1"]}')).toEqual([1]);
    expect(await list('/api/tasks', '{"==":[{"var":"dimension"},"2d"]}')).toEqual([2, 3]);
    // No task of the simulator has a validation layout: the column is NULL for all of them.
    expect(await list('/api/tasks', '{"==":[{"var":"validation_mode"},null]}')).toEqual([1, 2, 3]);
    expect(await list('/api/tasks', '{">":[{"var":"updated_date"},"2026-01-15"]}')).toEqual([1, 2]);
    expect(await list('/api/tasks', '{"in":[{"var":"subset"},[""]]}')).toEqual([1, 2, 3]);
  });

  it('filters jobs by task_name, project_name, dimension, parent_job_id, task_id and project_id', async () => {
    setup();
    const jobsOf = (task: number) =>
      [...h.state().jobs.values()].filter((j) => j.task_id === task).map((j) => j.id);
    const zooJobs = jobsOf(1);
    expect(zooJobs).toHaveLength(2);
    expect(await list('/api/jobs', '{"==":[{"var":"task_name"},"zoo"]}')).toEqual(zooJobs);
    expect(await list('/api/jobs', '{"==":[{"var":"project_name"},"animals"]}')).toEqual(zooJobs);
    expect(await list('/api/jobs', '{"==":[{"var":"dimension"},"3d"]}')).toEqual(zooJobs);
    expect(await list('/api/jobs', '{"==":[{"var":"project_id"},null]}')).toEqual(jobsOf(3));
    expect(await list('/api/jobs', '{"in":[{"var":"task_id"},[2,3]]}')).toEqual([...jobsOf(2), ...jobsOf(3)]);
    const all = await list('/api/jobs', '{"==":[{"var":"parent_job_id"},null]}');
    expect(all).toHaveLength(4);
  });

  it("filters comments by frame_id and job_id, and issues by resolved as Django's BooleanField reads it", async () => {
    setup();
    const job = [...h.state().jobs.values()][0]?.id as number;
    for (const frame of [0, 1]) {
      const res = await h.post(
        '/api/issues',
        { frame, position: [1, 2, 3, 4], job, message: 'm' },
        { as: 'admin' },
      );
      expect(res.status).toBe(201);
    }
    expect((await h.patch('/api/issues/2', { resolved: true }, { as: 'admin' })).status).toBe(200);
    expect(await list('/api/comments', '{"==":[{"var":"frame_id"},1]}')).toEqual([2]);
    expect(await list('/api/comments', `{"==":[{"var":"job_id"},${job}]}`)).toEqual([1, 2]);
    for (const yes of ['true', '1', '1.0', '"True"', '"t"', '"1"']) {
      expect(await list('/api/issues', `{"==":[{"var":"resolved"},${yes}]}`), yes).toEqual([2]);
    }
    expect(await list('/api/issues', '{"==":[{"var":"resolved"},"f"]}')).toEqual([1]);
    // Chosen: a value Django would refuse for the column (a 500 there) matches nothing.
    expect(await list('/api/issues', '{"==":[{"var":"resolved"},"true"]}')).toEqual([]);
  });

  it('compares dates as instants, as Django converts the text, and searches their PostgreSQL text', async () => {
    setup();
    const tasks = (filter: string) => list('/api/tasks', filter);
    // 12:00:00.5 UTC is 14:00:00.5 at +02:00; a time without an offset is UTC (CVAT's TIME_ZONE).
    expect(await tasks('{"==":[{"var":"updated_date"},"2026-03-01T14:00:00.5+02:00"]}')).toEqual([1]);
    expect(await tasks('{"==":[{"var":"updated_date"},"2026-03-01 12:00:00.500"]}')).toEqual([1]);
    expect(await tasks('{"<":[{"var":"updated_date"},"2026-03-01T12:00:00.5Z"]}')).toEqual([2, 3]);
    expect(await tasks('{"<=":["2026-01-31",{"var":"updated_date"},"2026-02-01T00:00:00Z"]}')).toEqual([2]);
    expect(await tasks('{"==":[{"var":"updated_date"},"2026-02-01"]}')).toEqual([2]);
    // `__contains` casts the column to text: PostgreSQL writes `2026-03-01 12:00:00.5+00`.
    expect(await tasks('{"in":["01 12:00:00.5+00",{"var":"updated_date"}]}')).toEqual([1]);
    expect(await tasks('{"in":["T12",{"var":"updated_date"}]}')).toEqual([]);
    // Chosen: text Django cannot parse (a ValidationError there) matches nothing.
    expect(await tasks('{">":[{"var":"updated_date"},"March 2026"]}')).toEqual([]);
  });

  it('sorts by the filter fields too, dates in time order', async () => {
    setup();
    // Text order would put `…00.500000Z` before `…00Z` of the same second; time order puts it after.
    Object.assign(h.state().tasks.get(3) as object, { updated_date: '2026-03-01T12:00:00Z' });
    const sorted = await h.get('/api/tasks?sort=-updated_date', { as: 'admin' });
    expect(ids(sorted.body)).toEqual([1, 3, 2]);
    const withProject = q('{"var":"project_id"}');
    const byProject = await h.get(`/api/tasks?sort=-project_name&filter=${withProject}`, { as: 'admin' });
    expect(ids(byProject.body)).toEqual([2, 1]);
  });

  it('converts a number for an integer column as Django does: int() truncates, gte and lt round up', async () => {
    setup();
    const tasks = (filter: string) => list('/api/tasks', filter);
    expect(await tasks('{"==":[{"var":"id"},2.9]}')).toEqual([2]);
    expect(await tasks('{">=":[{"var":"id"},1.5]}')).toEqual([2, 3]);
    expect(await tasks('{"<":[{"var":"id"},2.5]}')).toEqual([1, 2]);
    // A foreign key's lookups truncate every float (no IntegerFieldFloatRounding there).
    expect(await tasks('{">=":[{"var":"project_id"},1.5]}')).toEqual([1, 2]);
    expect(await tasks('{"==":[{"var":"id"}," 3 "]}')).toEqual([3]);
  });

  it("answers `var` as a rule on the model's fields, and on a term that is not one with Django's FieldError", async () => {
    setup();
    expect(await list('/api/tasks', '{"var":"project_id"}')).toEqual([1, 2]);
    expect(await list('/api/tasks', '{"var":"updated_date"}')).toEqual([1, 2, 3]);
    for (const name of ['project_name', 'tracker_link']) {
      const res = await h.get(`/api/tasks?filter=${q(`{"var":"${name}"}`)}`, { as: 'admin' });
      expect(res.status).toBe(500);
      expect(res.headers.get('x-sim-reason')).toBe(
        `FieldError: Cannot resolve keyword '${name}' into field.`,
      );
    }
  });

  it("answers a term outside the requests list's filter_fields with the KeyError CVAT raises on a row", async () => {
    h = createHarness();
    h.seed({ ...TEAM, tasks: [{ name: 't', owner: 'alice', org: 'acme', segment_size: 2 }] });
    const created = await h.post(
      '/api/tasks/1/data/?org=acme',
      { image_quality: 70, server_files: ['a.jpg'] },
      { as: 'alice' },
    );
    expect(created.status).toBe(202);
    // `org` is one of its simple filters, not of its filter_fields.
    const res = await h.get(`/api/requests?filter=${q('{"==":[{"var":"org"},"acme"]}')}`, { as: 'alice' });
    expect([res.status, res.headers.get('x-sim-reason')]).toEqual([500, "KeyError: 'org'"]);
    const ok = await h.get(`/api/requests?filter=${q('{"==":[{"var":"target"},"task"]}')}`, { as: 'alice' });
    expect(ok.body.count).toBe(1);
  });
});
