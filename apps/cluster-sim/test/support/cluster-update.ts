import { expect } from 'vitest';
import { CLUSTER, type Harness, LOC } from './harness';

/**
 * The clusters.update (ClusterUpdate) tests' helpers: an update applied as one UPDATE_CLUSTER operation
 * aimed at the cluster, landing when it is DONE, or refused with nothing started and the cluster unchanged.
 */

/** The fixture's cluster c1 on the v1 surface (`CLUSTER` is the v1beta1 one). */
export const V1_CLUSTER = '/v1/projects/p1/locations/us-central1-a/clusters/c1';

/** Authorized networks for the tests: a public office range and a single public address. */
export const OFFICE = { displayName: 'office', cidrBlock: '35.190.0.0/24' };
export const HOME = { cidrBlock: '35.247.165.143/32' };

/** What `applyUpdate` checks besides a 200, an UPDATE_CLUSTER operation PENDING, then DONE, the cluster RUNNING. */
export interface ClusterUpdateChecks {
  /** More fields the operation answered must have (`{ zone: 'us-central1-a' }`). */
  operation?: Record<string, unknown>;
  /** The operation's targetLink. Default: one ending in `/zones/us-central1-a/clusters/c1` or `c2`. */
  targetLink?: RegExp;
  /** Whether the cluster must read as before, but for its RECONCILING status, until DONE. Default true. */
  unchangedUntilDone?: boolean;
  /** Whether the DONE operation must have no progress (as recorded for cluster updates). Default false. */
  noProgress?: boolean;
}

/**
 * The helpers for a file's harness, read when they are called (`clusterUpdates(() => h)`, with `h` set in
 * `beforeEach`), with the checks `applyUpdate` makes in that file.
 */
export function clusterUpdates(harness: () => Harness, checks: ClusterUpdateChecks = {}) {
  const {
    operation = {},
    targetLink = /\/zones\/us-central1-a\/clusters\/c[12]$/,
    unchangedUntilDone = true,
    noProgress = false,
  } = checks;

  /** The operations listed at the fixture's location. */
  async function operations() {
    return (await harness().get(`${LOC}/operations`)).body.operations ?? [];
  }

  /** Sends the update, checks its operation and what it leaves until DONE; the cluster before and after. */
  async function applyUpdate(update: Record<string, unknown>, cluster = CLUSTER) {
    const h = harness();
    const before = (await h.get(cluster)).body;
    const res = await h.put(cluster, { update });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ operationType: 'UPDATE_CLUSTER', status: 'PENDING', ...operation });
    expect(res.body.targetLink).toMatch(targetLink);
    // Nothing changes before the operation is DONE; the cluster reconciles meanwhile.
    const during = (await h.get(cluster)).body;
    expect(during.status).toBe('RECONCILING');
    if (unchangedUntilDone) {
      const { status: _s, ...duringRest } = during;
      const { status: _b, ...beforeRest } = before;
      expect(duringRest).toEqual(beforeRest);
    }
    await h.advance('2s');
    const op = (await h.get(`${LOC}/operations/${res.body.name}`)).body;
    expect(op.status).toBe('DONE');
    if (noProgress) expect(op.progress).toBeUndefined();
    const after = (await h.get(cluster)).body;
    expect(after.status).toBe('RUNNING');
    return { before, after };
  }

  /** Sends the update and expects the refusal, nothing started and the cluster unchanged; the error. */
  async function refused(update: Record<string, unknown>, status: number, cluster = CLUSTER) {
    const h = harness();
    const before = (await h.get(cluster)).body;
    const ops = (await operations()).length;
    const res = await h.put(cluster, { update });
    expect(res.status, res.text).toBe(status);
    expect((await operations()).length).toBe(ops);
    expect((await h.get(cluster)).body).toEqual(before);
    return res.body.error;
  }

  return { operations, applyUpdate, refused };
}

/** The authorized networks in both places GKE keeps them. */
interface Networks {
  masterAuthorizedNetworksConfig: Record<string, unknown>;
  controlPlaneEndpointsConfig: { ipEndpointsConfig: { authorizedNetworksConfig: Record<string, unknown> } };
}
export function networks(cluster: Networks): Record<string, unknown>[] {
  return [
    cluster.masterAuthorizedNetworksConfig,
    cluster.controlPlaneEndpointsConfig.ipEndpointsConfig.authorizedNetworksConfig,
  ];
}

/** The field of a refusal's BadRequest. */
export function violation(error: {
  details: { fieldViolations?: { field: string }[] }[];
}): string | undefined {
  return error.details.find((d) => d.fieldViolations)?.fieldViolations?.[0]?.field;
}
