import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness, TEAM } from './support/harness';

let h: Harness;
afterEach(() => h?.close());

/** Three projects of organization acme (cats, dogs, catfish) and one of bob's in another organization. */
function setup() {
  h = createHarness();
  h.seed({
    ...TEAM,
    organizations: [...(TEAM.organizations ?? []), { slug: 'other', owner: 'outsider' }],
    projects: [
      { name: 'cats', owner: 'alice', org: 'acme' },
      { name: 'dogs', owner: 'alice', org: 'acme' },
      { name: 'catfish', owner: 'bob', org: 'acme' },
      { name: 'elsewhere', owner: 'outsider', org: 'other' },
    ],
  });
}

const q = (s: string) => encodeURIComponent(s);
const names = (body: { results: { name: string }[] }) => body.results.map((p) => p.name);

/**
 * Django's QueryDict answers `get(name)` and `[name]` with the LAST of repeated values; DRF's
 * paginator, its ordering and search filters, CVAT's JSON Logic and simple filters, its organization
 * middleware and its events API all read parameters that way.
 */
describe('a repeated query parameter is read as its last value, as Django reads it', () => {
  it('pages by the last page_size and page, and keeps every value in the next link', async () => {
    setup();
    const res = await h.get('/api/projects?org=acme&page_size=1&page_size=2', { as: 'alice' });
    expect(res.status).toBe(200);
    expect(res.body.results).toHaveLength(2);
    // DRF's replace_query_param keeps every value of the other parameters (parse_qs, urlencode doseq).
    expect(res.body.next).toBe('http://localhost/api/projects?org=acme&page=2&page_size=1&page_size=2');
    const page = await h.get('/api/projects?org=acme&page_size=1&page=1&page=3&sort=id', { as: 'alice' });
    expect(names(page.body)).toEqual(['catfish']);
  });

  it('sorts by the last sort and searches by the last search', async () => {
    setup();
    const sorted = await h.get('/api/projects?org=acme&sort=name&sort=-name', { as: 'alice' });
    expect(names(sorted.body)).toEqual(['dogs', 'cats', 'catfish']);
    const searched = await h.get('/api/projects?org=acme&search=cat&search=dog', { as: 'alice' });
    expect(names(searched.body)).toEqual(['dogs']);
  });

  it('filters by the last filter, an empty last one filtering nothing', async () => {
    setup();
    const bad = '{"no such op":1}';
    const good = '{"==":[{"var":"name"},"dogs"]}';
    const res = await h.get(`/api/projects?org=acme&filter=${q(bad)}&filter=${q(good)}`, { as: 'alice' });
    expect(res.status).toBe(200);
    expect(names(res.body)).toEqual(['dogs']);
    const emptyLast = await h.get(`/api/projects?org=acme&filter=${q(good)}&filter=`, { as: 'alice' });
    expect(emptyLast.body.count).toBe(3);
  });

  it('applies the last value of a simple filter', async () => {
    setup();
    const res = await h.get('/api/projects?org=acme&name=cats&name=dogs', { as: 'alice' });
    expect(names(res.body)).toEqual(['dogs']);
  });

  it('takes the organization context from the last org and org_id', async () => {
    setup();
    // bob is no member of `other`: its context would be refused, acme's is his.
    const org = await h.get('/api/projects?org=other&org=acme', { as: 'bob' });
    expect(org.status).toBe(200);
    expect(org.body.count).toBe(3);
    const orgId = await h.get('/api/projects?org_id=2&org_id=1', { as: 'bob' });
    expect(orgId.status).toBe(200);
    expect(orgId.body.count).toBe(3);
  });

  it('reads the last value of the events API parameters and of rq_id', async () => {
    setup();
    const first = '0d6c9f4e-2a7b-4e3c-9b1d-8f5e6a7c2b10';
    const last = '7f1e4c2a-9b3d-4e5f-8a6b-1c2d3e4f5a6b';
    const started = await h.post(`/api/events/export?query_id=${first}&query_id=${last}`, undefined, {
      as: 'admin',
    });
    expect(started.status).toBe(202);
    expect(started.body.rq_id).toBe(`action=export&target=events&id=${last}&user_id=1`);
    h.advance('2s');
    const download = await h.get(`/api/events/download?rq_id=nonsense&rq_id=${q(started.body.rq_id)}`, {
      as: 'admin',
    });
    expect(download.status).toBe(200);
    // The deprecated flow: an unknown action given first, then a valid one.
    const legacy = await h.get('/api/events?action=bogus&action=download', { as: 'admin' });
    expect(legacy.status).toBe(202);
  });

  it("reads the requests list's simple filters by their last value", async () => {
    h = createHarness();
    h.seed({ ...TEAM, tasks: [{ name: 't', owner: 'alice', org: 'acme', segment_size: 2 }] });
    const data = { image_quality: 70, server_files: ['a.jpg'] };
    expect((await h.post('/api/tasks/1/data/?org=acme', data, { as: 'alice' })).status).toBe(202);
    expect((await h.get('/api/requests?action=export&action=create', { as: 'alice' })).body.count).toBe(1);
    expect((await h.get('/api/requests?action=create&action=export', { as: 'alice' })).body.count).toBe(0);
  });
});
