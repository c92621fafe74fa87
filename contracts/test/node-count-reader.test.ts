import { describe, expect, it } from 'vitest';
import {
  type ApiResult,
  createNodeCountReader,
  type ManagerPage,
  type ManagerView,
  managerRefOf,
  type NodeCountApi,
} from '../consumers/node-count-reader/src';

/** The reader's logic over a fake API: Terraform's averaging, the 404 a get skips, paging on selfLink. */
const BASE = 'https://www.googleapis.com/compute/v1/projects/p/zones';
const url = (zone: string, name: string) => `${BASE}/${zone}/instanceGroupManagers/${name}`;
const mgr = (zone: string, name: string, targetSize: number): ManagerView => ({
  selfLink: url(zone, name),
  targetSize,
  instanceGroup: url(zone, name).replace('instanceGroupManagers', 'instanceGroups'),
});
const REF = { project: 'p', location: 'us-central1', cluster: 'c', nodePool: 'np' };
const notFound = {
  ok: false as const,
  error: { httpStatus: 404, status: 'UNKNOWN', message: 'gone', reason: 'notFound' },
};

function fakeApi(urls: string[], managers: ManagerView[], pageSize = 1) {
  const calls: string[] = [];
  const api: NodeCountApi = {
    async getInstanceGroupUrls() {
      return { ok: true, value: urls };
    },
    async getManager(ref): Promise<ApiResult<ManagerView>> {
      calls.push(`get ${ref.zone}/${ref.name}`);
      const found = managers.find((m) => m.selfLink === url(ref.zone, ref.name));
      return found ? { ok: true, value: found } : notFound;
    },
    async listManagers(zone, pageToken): Promise<ApiResult<ManagerPage>> {
      calls.push(`list ${zone.zone} ${pageToken ?? '-'}`);
      const inZone = managers.filter((m) => m.selfLink.includes(`/zones/${zone.zone}/`));
      const start = Number(pageToken ?? 0);
      const next = start + pageSize < inZone.length ? String(start + pageSize) : undefined;
      return {
        ok: true,
        value: { items: inZone.slice(start, start + pageSize), ...(next ? { nextPageToken: next } : {}) },
      };
    },
  };
  return { api, calls };
}

describe('the node count reader', () => {
  it('averages the per-zone target sizes and skips a URL whose get is a 404 (provider ≤ 7.16)', async () => {
    const urls = [url('a', 'g1'), url('b', 'g2'), url('c', 'g3')];
    const { api } = fakeApi(urls, [mgr('a', 'g1', 2), mgr('b', 'g2', 5)]);
    const read = await createNodeCountReader(api, 'get').read(REF);
    expect(read).toEqual({
      ok: true,
      value: {
        nodeCount: 3,
        instanceGroupUrls: urls.slice(0, 2),
        managedInstanceGroupUrls: [mgr('a', 'g1', 2).instanceGroup, mgr('b', 'g2', 5).instanceGroup],
      },
    });
  });

  it("follows the zone's pages until the manager whose selfLink is the URL (provider ≥ 7.17)", async () => {
    const { api, calls } = fakeApi(
      [url('a', 'g3')],
      [mgr('a', 'g1', 1), mgr('a', 'g2', 1), mgr('a', 'g3', 4)],
    );
    const read = await createNodeCountReader(api, 'list').read(REF);
    expect(read).toMatchObject({ ok: true, value: { nodeCount: 4 } });
    expect(calls).toEqual(['list a -', 'list a 1', 'list a 2']);
  });

  it('fails the read on a list error and reads 0 when no manager is found', async () => {
    const { api } = fakeApi([url('a', 'g1')], []);
    expect(await createNodeCountReader(api, 'list').read(REF)).toMatchObject({
      ok: true,
      value: { nodeCount: 0 },
    });
    const failing: NodeCountApi = { ...api, listManagers: async () => notFound };
    expect(await createNodeCountReader(failing, 'list').read(REF)).toEqual(notFound);
  });

  it('splits a manager URL into project, zone and name', () => {
    expect(managerRefOf(url('us-central1-a', 'gke-c-np-1a2b3c4d-grp'))).toEqual({
      project: 'p',
      zone: 'us-central1-a',
      name: 'gke-c-np-1a2b3c4d-grp',
    });
    expect(
      managerRefOf('https://www.googleapis.com/compute/v1/projects/p/regions/r/instanceGroupManagers/x'),
    ).toBeUndefined();
  });
});
