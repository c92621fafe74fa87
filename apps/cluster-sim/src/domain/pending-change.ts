import { Cluster, NodePool } from '@sims/cluster-schema';
import { lazy } from '@sims/sim-core';
import * as z from 'zod';

/**
 * What an operation does to its target when it completes, one entry per kind of change. The type
 * (`PendingChange`, which state.ts's OperationRecord holds) is read from this schema, and a snapshot's
 * operations are checked against it (snapshot-operations.ts): a new kind is written here once, with its
 * applier beside the rule that starts it (change-applier.ts). Built on first use (docs/decisions/0009).
 */
export const pendingChangeSchema = lazy(() =>
  z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('updatePool'), desired: NodePool }).strict(),
    // Fields of the pool replaced when the operation is DONE (setSize, setManagement, setAutoscaling).
    z.object({ kind: z.literal('setPool'), fields: NodePool }).strict(),
    // A rollback: the pool's nodes are all back on `restore` when DONE.
    z.object({ kind: z.literal('rollbackPool'), restore: NodePool }).strict(),
    z.object({ kind: z.literal('upgradeMaster'), version: z.string() }).strict(),
    // The cluster's node zones (desiredLocations): every pool moves to them when DONE.
    z.object({ kind: z.literal('setLocations'), locations: z.array(z.string()), hash: z.string() }).strict(),
    // Top-level fields of the cluster replaced when DONE (the cluster setters: labels, policies,
    // services); `recreatesNodes`: every pool's nodes are recreated by the change (network policy on or
    // off), so their etags move when DONE.
    z
      .object({ kind: z.literal('setCluster'), fields: Cluster, recreatesNodes: z.boolean().optional() })
      .strict(),
    // startIpRotation: the control plane serves on `endpoint` too when DONE.
    z.object({ kind: z.literal('startIpRotation'), credentials: z.boolean(), endpoint: z.string() }).strict(),
    z.object({ kind: z.literal('createPool') }).strict(),
    z.object({ kind: z.literal('deletePool') }).strict(),
    z.object({ kind: z.literal('createCluster') }).strict(),
    z.object({ kind: z.literal('deleteCluster') }).strict(),
    // completeIpRotation: the previous endpoint and credentials stop when DONE.
    z.object({ kind: z.literal('completeIpRotation') }).strict(),
    z.object({ kind: z.literal('none') }).strict(),
  ]),
);

/** What an operation does to its target when it completes. */
export type PendingChange = z.infer<ReturnType<typeof pendingChangeSchema>>;
