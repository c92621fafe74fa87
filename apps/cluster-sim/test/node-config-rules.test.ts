import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLUSTER, createHarness, type Harness, POOL } from './support/harness';

let h: Harness;
beforeEach(async () => {
  h = createHarness();
  await h.seedDefault();
});
afterEach(() => h.close());

const SWAP_OFF = 'Swap is disabled, no other swapConfig fields can be set.';

describe("GKE's rules on a node config", () => {
  it('refuses swap settings without swap enabled (a linuxNodeConfig replaces the whole message), on update and create', async () => {
    const etag = await h.etagOf();
    const update = await h.put(POOL, {
      linuxNodeConfig: { swapConfig: { bootDiskProfile: { swapSizeGib: '8' } } },
    });
    expect(update.status).toBe(400);
    expect(update.body.error).toMatchObject({ status: 'INVALID_ARGUMENT', message: SWAP_OFF });
    expect(await h.etagOf()).toBe(etag);
    const create = await h.post(`${CLUSTER}/nodePools`, {
      nodePool: {
        name: 'swappy',
        config: { linuxNodeConfig: { swapConfig: { enabled: false, encryptionConfig: { disabled: true } } } },
      },
    });
    expect(create.status).toBe(400);
    expect(create.body.error.message).toBe(SWAP_OFF);
    expect((await h.get(`${CLUSTER}/nodePools/swappy`)).status).toBe(404);
  });

  it('takes swap settings with swap enabled, and swap disabled alone', async () => {
    const on = await h.put(POOL, {
      linuxNodeConfig: { swapConfig: { enabled: true, bootDiskProfile: { swapSizeGib: '8' } } },
    });
    expect(on.status, on.text).toBe(200);
    await h.advance('1h');
    const off = await h.put(POOL, { linuxNodeConfig: { swapConfig: { enabled: false } } });
    expect(off.status, off.text).toBe(200);
  });
});
