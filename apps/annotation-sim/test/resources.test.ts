import { JobRead, PaginatedTaskReadList, ProjectRead, TaskRead } from '@sims/annotation-schema';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness, TEAM } from './support/harness';

let h: Harness;
afterEach(() => h?.close());

describe('projects and tasks', () => {
  it('creates a project in the organization context and returns ProjectRead', async () => {
    h = createHarness();
    h.seed(TEAM);
    const res = await h.post(
      '/api/projects',
      { name: 'Cats' },
      { as: 'bob', headers: { 'x-organization': 'acme' } },
    );
    expect(res.status).toBe(201);
    expect(ProjectRead.parse(res.body)).toBeTruthy();
    expect(res.body).toMatchObject({
      id: 1,
      name: 'Cats',
      organization: 1,
      organization_id: 1,
      owner: { username: 'bob' },
    });
    expect(res.body.url).toBe('http://localhost/api/projects/1');
    expect(res.body.created_date).toBe('2026-01-01T00:00:00Z');
  });

  it('links follow each request: its Host header and its namespace prefix, however requests alternate', async () => {
    // The link base is reused between consecutive requests with the same origin and Host (bench/, issue 8).
    h = createHarness();
    h.seed(TEAM);
    await h.post('/api/projects', { name: 'Cats' }, { as: 'bob' });
    const url = async (path: string, headers: Record<string, string> = {}) =>
      (await h.get(path, { as: 'bob', headers })).body.url;
    expect(await url('/api/projects/1')).toBe('http://localhost/api/projects/1');
    expect(await url('/api/projects/1', { host: 'cvat.example:8080' })).toBe(
      'http://cvat.example:8080/api/projects/1',
    );
    expect(await url('/api/projects/1', { host: 'cvat.example:8080' })).toBe(
      'http://cvat.example:8080/api/projects/1',
    );
    await h.post('/_ns/other/api/projects', { name: 'Dogs' }, { as: 'admin' });
    const other = await h.get('/_ns/other/api/projects/1', { as: 'admin' });
    expect(other.body.url).toBe('http://localhost/_ns/other/api/projects/1');
    expect(await url('/api/projects/1')).toBe('http://localhost/api/projects/1');
    expect(await url('/api/projects/1', { host: 'other.example' })).toBe(
      'http://other.example/api/projects/1',
    );
  });

  it('returns 400 "This field is required." for a project without a name', async () => {
    h = createHarness();
    const res = await h.post('/api/projects', {}, { as: 'admin' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ name: ['This field is required.'] });
  });

  it('returns 400 with the JSON parse error for a malformed body', async () => {
    h = createHarness();
    const res = await h.request('POST', '/api/projects', {
      as: 'admin',
      raw: '{"name": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: 'JSON parse error - Expecting value: line 1 column 10 (char 9)' });
    const key = await h.request('POST', '/api/projects', {
      as: 'admin',
      raw: "{'name': 1}",
      headers: { 'content-type': 'application/json' },
    });
    expect(key.body).toEqual({
      detail:
        'JSON parse error - Expecting property name enclosed in double quotes: line 1 column 2 (char 1)',
    });
  });

  it('returns 415 for a body that is not JSON', async () => {
    h = createHarness();
    const res = await h.request('POST', '/api/projects', {
      as: 'admin',
      raw: 'name=x',
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.status).toBe(415);
    expect(res.body).toEqual({ detail: 'Unsupported media type "text/plain" in request.' });
  });

  it('returns 404 "No Task matches the given query." for an unknown task and "Not found." for a non-numeric id', async () => {
    h = createHarness();
    expect((await h.get('/api/tasks/99', { as: 'admin' })).body).toEqual({
      detail: 'No Task matches the given query.',
    });
    expect((await h.get('/api/tasks/abc', { as: 'admin' })).body).toEqual({ detail: 'Not found.' });
  });

  it('derives jobs from size and segment_size when task data is attached', async () => {
    h = createHarness();
    const task = await h.post(
      '/api/tasks',
      { name: 't', segment_size: 4, labels: [{ name: 'car' }] },
      { as: 'admin' },
    );
    expect(task.status).toBe(201);
    expect(TaskRead.parse(task.body)).toBeTruthy();
    expect(task.body).toMatchObject({ size: 0, mode: '', jobs: { count: 0 } });
    const files = Array.from({ length: 10 }, (_, i) => `http://example.com/${i}.jpg`);
    const data = await h.post(
      `/api/tasks/${task.body.id}/data/`,
      { image_quality: 70, remote_files: files },
      { as: 'admin' },
    );
    expect(data.status).toBe(202);
    const jobs = await h.get(`/api/jobs?task_id=${task.body.id}&sort=id`, { as: 'admin' });
    expect(jobs.body.count).toBe(3);
    expect(
      jobs.body.results.map((j: { start_frame: number; stop_frame: number }) => [
        j.start_frame,
        j.stop_frame,
      ]),
    ).toEqual([
      [0, 3],
      [4, 7],
      [8, 9],
    ]);
    for (const j of jobs.body.results) JobRead.parse(j);
    const after = await h.get(`/api/tasks/${task.body.id}`, { as: 'admin' });
    expect(after.body).toMatchObject({
      size: 10,
      mode: 'annotation',
      segment_size: 4,
      jobs: { count: 3, completed: 0, validation: 0 },
    });
  });

  it('seeds tasks with size and overlap into overlapping segments', async () => {
    h = createHarness();
    h.seed({
      users: [{ username: 'u' }],
      tasks: [{ name: 't', owner: 'u', size: 10, segment_size: 5, overlap: 2 }],
    });
    const jobs = await h.get('/api/jobs?sort=id', { as: 'admin' });
    expect(
      jobs.body.results.map((j: { start_frame: number; stop_frame: number }) => [
        j.start_frame,
        j.stop_frame,
      ]),
    ).toEqual([
      [0, 4],
      [3, 7],
      [6, 9],
    ]);
  });

  it('paginates with count, next and previous like DRF', async () => {
    h = createHarness();
    for (let i = 0; i < 12; i++)
      await h.post('/api/tasks', { name: `t${i}`, labels: [{ name: 'car' }] }, { as: 'admin' });
    const first = await h.get('/api/tasks?page_size=5&sort=id', { as: 'admin' });
    expect(PaginatedTaskReadList.parse(first.body)).toBeTruthy();
    expect(first.body.count).toBe(12);
    expect(first.body.next).toBe('http://localhost/api/tasks?page=2&page_size=5&sort=id');
    expect(first.body.previous).toBeNull();
    const second = await h.get('/api/tasks?page=2&page_size=5&sort=id', { as: 'admin' });
    expect(second.body.previous).toBe('http://localhost/api/tasks?page_size=5&sort=id');
    expect(second.body.results.map((t: { name: string }) => t.name)).toEqual(['t5', 't6', 't7', 't8', 't9']);
    const all = await h.get('/api/tasks?page_size=all', { as: 'admin' });
    expect(all.body.results).toHaveLength(12);
    const defaults = await h.get('/api/tasks', { as: 'admin' });
    expect(defaults.body.results).toHaveLength(10);
    expect(defaults.body.results[0].name).toBe('t11');
  });

  it('returns 404 "Invalid page." for a page out of range', async () => {
    h = createHarness();
    const res = await h.get('/api/tasks?page=3', { as: 'admin' });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Invalid page.' });
  });

  it('hides other users sandbox tasks and shows org tasks to supervisors', async () => {
    h = createHarness();
    h.seed({
      ...TEAM,
      tasks: [
        { name: 'private', owner: 'outsider' },
        { name: 'orgtask', owner: 'alice', org: 'acme' },
      ],
    });
    const carol = await h.get('/api/tasks?org=acme', { as: 'carol' });
    expect(carol.body.results.map((t: { name: string }) => t.name)).toEqual(['orgtask']);
    const dave = await h.get('/api/tasks?org=acme', { as: 'dave' });
    expect(dave.body.count).toBe(0);
    expect((await h.get('/api/tasks/1', { as: 'carol' })).status).toBe(403);
  });

  it('updates a job assignee, stage and state', async () => {
    h = createHarness();
    const seeded = h.seed({ users: [{ username: 'u' }], tasks: [{ name: 't', owner: 'u', size: 3 }] });
    const jobId = seeded.tasks.t?.jobs[0] as number;
    const res = await h.patch(
      `/api/jobs/${jobId}`,
      { assignee: 2, stage: 'acceptance', state: 'completed' },
      { as: 'admin' },
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      assignee: { id: 2, username: 'u' },
      stage: 'acceptance',
      state: 'completed',
      status: 'completed',
    });
    const bad = await h.patch(`/api/jobs/${jobId}`, { stage: 'nope', assignee: 99 }, { as: 'admin' });
    expect(bad.body).toEqual({ stage: ['"nope" is not a valid choice.'] });
    const missingUser = await h.patch(`/api/jobs/${jobId}`, { assignee: 99 }, { as: 'admin' });
    expect(missingUser.body).toEqual({ assignee: ['Invalid pk "99" - object does not exist.'] });
  });

  it('creates issues with a first comment, and comments on them', async () => {
    h = createHarness();
    const seeded = h.seed({ users: [{ username: 'u' }], tasks: [{ name: 't', owner: 'u', size: 3 }] });
    const job = seeded.tasks.t?.jobs[0] as number;
    const issue = await h.post(
      '/api/issues',
      { frame: 0, position: [1, 2, 3, 4], job, message: 'fix me' },
      { as: 'u' },
    );
    expect(issue.status).toBe(201);
    expect(issue.body).toMatchObject({
      id: 1,
      job,
      frame: 0,
      position: [1, 2, 3, 4],
      resolved: false,
      comments: { count: 1 },
    });
    const comment = await h.post('/api/comments', { issue: 1, message: 'done' }, { as: 'u' });
    expect(comment.body).toMatchObject({ id: 2, issue: 1, message: 'done', owner: { username: 'u' } });
    const list = await h.get('/api/comments?issue_id=1&sort=id', { as: 'u' });
    expect(list.body.results.map((c: { message: string }) => c.message)).toEqual(['fix me', 'done']);
    const missing = await h.post(
      '/api/issues',
      { frame: 0, position: [], job: 99, message: 'x' },
      { as: 'u' },
    );
    expect(missing.body).toEqual({ job: ['Invalid pk "99" - object does not exist.'] });
  });
});

describe('organizations, memberships, invitations', () => {
  it('creates an organization whose creator is the owner member', async () => {
    h = createHarness();
    h.seed({ users: [{ username: 'u' }] });
    const org = await h.post('/api/organizations', { slug: 'team', name: 'Team' }, { as: 'u' });
    expect(org.status).toBe(201);
    expect(org.body).toMatchObject({ id: 1, slug: 'team', name: 'Team', owner: { username: 'u' } });
    const members = await h.get('/api/memberships?org=team', { as: 'u' });
    expect(members.body.results).toEqual([
      {
        id: 1,
        user: expect.objectContaining({ username: 'u' }),
        organization: 1,
        is_active: true,
        joined_date: '2026-01-01T00:00:00Z',
        role: 'owner',
        invitation: null,
      },
    ]);
    const dup = await h.post('/api/organizations', { slug: 'team' }, { as: 'u' });
    expect(dup.body).toEqual({ slug: ['organization with this slug already exists.'] });
  });

  it('invites a user, who accepts and becomes an active member', async () => {
    h = createHarness();
    h.seed(TEAM);
    const inv = await h.post(
      '/api/invitations',
      { email: 'erin@example.com', role: 'worker' },
      { as: 'alice', headers: { 'x-organization': 'acme' } },
    );
    expect(inv.status).toBe(201);
    expect(inv.body).toMatchObject({
      role: 'worker',
      user: { username: 'erin' },
      organization: 1,
      accepted: false,
      expired: false,
      organization_info: { id: 1, slug: 'acme' },
    });
    const accepted = await h.post(`/api/invitations/${inv.body.key}/accept`, undefined, { as: 'erin' });
    expect(accepted.status).toBe(200);
    const m = await h.get('/api/memberships?org=acme&user=erin', { as: 'erin' });
    expect(m.body.results[0]).toMatchObject({ is_active: true, role: 'worker', invitation: inv.body.key });
  });

  it('lets a maintainer change a member role and forbids a worker', async () => {
    h = createHarness();
    h.seed(TEAM);
    const dave = (await h.get('/api/memberships?org=acme&user=dave', { as: 'bob' })).body.results[0];
    expect(
      (await h.patch(`/api/memberships/${dave.id}`, { role: 'supervisor' }, { as: 'dave' })).status,
    ).toBe(403);
    const res = await h.patch(`/api/memberships/${dave.id}`, { role: 'supervisor' }, { as: 'bob' });
    expect(res.body.role).toBe('supervisor');
  });
});
