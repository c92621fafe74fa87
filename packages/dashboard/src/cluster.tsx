import type { ClusterView, OperationView } from '@sims/cluster-sim';
import { faultsSection } from './faults';
import { requestsSection } from './requests';
import { act, mount, type Section, type SectionProps, time, useResource } from './shell';
import { clockSection, namespacesSection } from './world';

const shortTarget = (link: string) => link.replace(/^https?:\/\/[^/]+\/v1(beta1)?\//, '');

function OperationsPanel({ api, live, say }: SectionProps) {
  const ops = useResource(
    () => api.get<{ operations: OperationView[] }>('/operations').then((r) => r.operations),
    [api, live.version],
  );
  const settle = async (op: OperationView, fail: boolean) => {
    const done = fail ? `Operation ${op.name} failed` : `Operation ${op.name} completed`;
    const path = `/operations/${encodeURIComponent(op.id)}/${fail ? 'fail' : 'complete'}`;
    if (
      await act(say, done, () =>
        api.send(
          'POST',
          path,
          fail ? { status: 'INTERNAL', message: 'Failed from the dashboard.' } : undefined,
        ),
      )
    )
      ops.reload();
  };
  const list = ops.data ?? [];
  return (
    <div>
      <h2>Operations</h2>
      {ops.error && <p role="alert">{ops.error}</p>}
      <div class="scroll">
        <table aria-label="Operations">
          <thead>
            <tr>
              <th scope="col">Operation</th>
              <th scope="col">Type</th>
              <th scope="col">Status</th>
              <th scope="col">Progress</th>
              <th scope="col">Target</th>
              <th scope="col">Started</th>
              <th scope="col">Ended</th>
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.map((op) => (
              <tr key={op.id} data-operation={op.name} class={op.error ? 'bad' : ''}>
                <th scope="row">
                  <code>{op.name}</code>
                  {op.detail && <div class="muted">{op.detail}</div>}
                  {op.error && <div class="error">{op.error.message}</div>}
                </th>
                <td>{op.operationType}</td>
                <td data-testid="operation-status">{op.status}</td>
                <td>
                  {op.percent === null ? (
                    ''
                  ) : (
                    <span>
                      <meter min={0} max={100} value={op.percent} aria-label={`Progress of ${op.name}`} />{' '}
                      {Math.round(op.percent)}%
                    </span>
                  )}
                </td>
                <td>
                  <code>{shortTarget(op.targetLink)}</code>
                </td>
                <td>{time(op.startTime)}</td>
                <td>{time(op.endTime)}</td>
                <td>
                  {op.status !== 'DONE' && (
                    <span>
                      <button
                        type="button"
                        aria-label={`Complete operation ${op.name} now`}
                        onClick={() => settle(op, false)}
                      >
                        Complete now
                      </button>{' '}
                      <button
                        type="button"
                        aria-label={`Fail operation ${op.name} now`}
                        onClick={() => settle(op, true)}
                      >
                        Fail now
                      </button>
                    </span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {ops.data && list.length === 0 && <p>No operations in this namespace.</p>}
      </div>
    </div>
  );
}

function PoolsPanel({ api, live }: SectionProps) {
  const clusters = useResource(
    () => api.get<{ clusters: ClusterView[] }>('/node-pools').then((r) => r.clusters),
    [api, live.version],
  );
  const list = clusters.data ?? [];
  return (
    <div>
      <h2>Node pools</h2>
      {clusters.error && <p role="alert">{clusters.error}</p>}
      {clusters.data && list.length === 0 && <p>No clusters in this namespace.</p>}
      {list.map((c) => (
        <section
          class="card"
          key={`${c.project}/${c.location}/${c.name}`}
          aria-labelledby={`cluster-${c.name}`}
        >
          <h3 id={`cluster-${c.name}`}>
            Cluster {c.name} <span class="muted">{`projects/${c.project}/locations/${c.location}`}</span>
          </h3>
          <p class="muted">
            {c.status ?? ''} · control plane {c.currentMasterVersion ?? '—'} · {c.currentNodeCount} nodes
          </p>
          <div class="scroll">
            <table aria-label={`Node pools of cluster ${c.name}`}>
              <thead>
                <tr>
                  <th scope="col">Pool</th>
                  <th scope="col">Status</th>
                  <th scope="col">Version</th>
                  <th scope="col">Nodes</th>
                  <th scope="col">Autoscaling</th>
                  <th scope="col">Upgrade</th>
                  <th scope="col">Etag</th>
                </tr>
              </thead>
              <tbody>
                {c.pools.map((p) => (
                  <tr key={p.name} data-pool={p.name}>
                    <th scope="row">{p.name}</th>
                    <td>{p.status ?? ''}</td>
                    <td>{p.version ?? ''}</td>
                    <td>
                      {p.nodeCount}
                      <div class="muted">
                        {Object.entries(p.nodesPerZone)
                          .map(([zone, n]) => `${zone}: ${n}`)
                          .join(', ')}
                      </div>
                    </td>
                    <td>
                      {p.autoscaling
                        ? `${p.autoscaling.minNodeCount ?? p.autoscaling.totalMinNodeCount ?? 0}–${p.autoscaling.maxNodeCount ?? p.autoscaling.totalMaxNodeCount ?? 0}`
                        : 'off'}
                    </td>
                    <td>
                      {p.rollout
                        ? `${p.rollout.kind} ${p.rollout.strategy.toLowerCase()} ${p.rollout.phase ?? (p.rollout.batch !== null ? `batch ${p.rollout.batch}/${p.rollout.batches}` : '')} · ${p.rollout.nodesUpgraded}/${p.rollout.nodesTotal} nodes${p.rollout.stalled ? ' · stalled' : ''}`
                        : ''}
                    </td>
                    <td>
                      <code>{p.etag}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>
      ))}
    </div>
  );
}

const sections: Section[] = [
  requestsSection,
  faultsSection,
  { id: 'operations', title: 'Operations', Panel: OperationsPanel },
  { id: 'pools', title: 'Node pools', Panel: PoolsPanel },
  clockSection,
  namespacesSection,
];

mount(sections, {
  operation: 'nodePools.update',
  path: '/v1beta1/**/nodePools/*',
  status: 'ABORTED or 503',
  snippet:
    '- id: abort-once\n  match: {operation: nodePools.update}\n  trigger: {times: 1}\n  effect: {error: {status: ABORTED}}',
});
