import type { EventsControlView, RedeliverResult, WebhooksView } from '@sims/annotation-sim';
import { annotationsSection } from './annotations-panel';
import { faultsSection } from './faults';
import { requestsSection } from './requests';
import { act, mount, type Section, type SectionProps, time, useResource } from './shell';
import { clockSection, namespacesSection } from './world';

const cut = (text: string, n = 120) => (text.length > n ? `${text.slice(0, n)}…` : text);

function DeliveriesPanel({ api, live, say }: SectionProps) {
  const hooks = useResource(() => api.get<WebhooksView>('/webhooks?limit=20'), [api, live.version]);
  const webhooks = hooks.data?.webhooks ?? [];
  return (
    <div>
      <h2>Deliveries</h2>
      {hooks.error && <p role="alert">{hooks.error}</p>}
      {hooks.data && webhooks.length === 0 && <p>No webhooks in this namespace.</p>}
      {webhooks.map((w) => (
        <section class="card" aria-labelledby={`webhook-${w.id}`} key={w.id} data-webhook={w.id}>
          <h3 id={`webhook-${w.id}`}>
            Webhook {w.id}: {w.target_url}
          </h3>
          <p class="muted">
            {w.type} {w.type === 'project' ? w.project_id : w.organization} ·{' '}
            {w.is_active ? 'active' : 'inactive'} · {w.events.join(', ')} · {w.delivery_count} deliveries
          </p>
          <div class="scroll">
            <table aria-label={`Deliveries of webhook ${w.id}`}>
              <thead>
                <tr>
                  <th scope="col">Delivery</th>
                  <th scope="col">Event</th>
                  <th scope="col">Status</th>
                  <th scope="col">Response</th>
                  <th scope="col">When</th>
                  <th scope="col">
                    <span class="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {w.deliveries.map((d) => (
                  <tr
                    key={d.id}
                    data-delivery={d.id}
                    class={d.status_code !== null && d.status_code < 300 ? '' : 'bad'}
                  >
                    <th scope="row">
                      {d.id}
                      {d.redelivery && <span class="tag">redelivery</span>}
                    </th>
                    <td>{d.event}</td>
                    <td>{d.status_code ?? '—'}</td>
                    <td>
                      <code>{cut(d.response)}</code>
                    </td>
                    <td>{time(d.updated_date)}</td>
                    <td>
                      <button
                        type="button"
                        aria-label={`Redeliver delivery ${d.id}`}
                        onClick={async () => {
                          if (
                            await act(say, `Delivery ${d.id} queued for redelivery`, () =>
                              api.send<RedeliverResult>(
                                'POST',
                                `/webhooks/${w.id}/deliveries/${d.id}/redeliver`,
                              ),
                            )
                          )
                            hooks.reload();
                        }}
                      >
                        Redeliver
                      </button>
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

function ExportsPanel({ api, live, say }: SectionProps) {
  const events = useResource(() => api.get<EventsControlView>('/events'), [api, live.version]);
  const settle = async (rqId: string, fail?: string) => {
    const done = fail ? `Export ${rqId} failed` : `Export ${rqId} completed`;
    if (
      await act(say, done, () =>
        api.send(
          'POST',
          `/events/exports/${encodeURIComponent(rqId)}/${fail ? 'fail' : 'complete'}`,
          fail ? { message: fail } : undefined,
        ),
      )
    )
      events.reload();
  };
  const jobs = events.data?.jobs ?? [];
  return (
    <div>
      <h2>Export jobs</h2>
      {events.error && <p role="alert">{events.error}</p>}
      {events.data && (
        <p class="muted">
          {events.data.stored} events stored
          {events.data.dropped > 0 ? `, ${events.data.dropped} dropped` : ''}
          {events.data.evicted > 0 ? `, ${events.data.evicted} oldest evicted (maxEvents)` : ''}
        </p>
      )}
      <div class="scroll">
        <table aria-label="Events export jobs">
          <thead>
            <tr>
              <th scope="col">Request id</th>
              <th scope="col">Status</th>
              <th scope="col">Owner</th>
              <th scope="col">Due</th>
              <th scope="col">Rows</th>
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {jobs.map((j) => (
              <tr key={j.rq_id} data-job={j.rq_id}>
                <th scope="row">
                  <code>{j.rq_id}</code>
                  {j.expired && <span class="tag">file expired</span>}
                </th>
                <td>{j.status}</td>
                <td>{j.owner.username}</td>
                <td>{j.finishAt ? time(j.finishAt) : j.pollsLeft !== null ? `${j.pollsLeft} polls` : ''}</td>
                <td>{j.rows ?? ''}</td>
                <td>
                  {(j.status === 'queued' || j.status === 'started') && (
                    <span>
                      <button
                        type="button"
                        aria-label={`Complete export ${j.rq_id} now`}
                        onClick={() => settle(j.rq_id)}
                      >
                        Complete now
                      </button>{' '}
                      <button
                        type="button"
                        aria-label={`Fail export ${j.rq_id} now`}
                        onClick={() => settle(j.rq_id, 'Export failed (from the dashboard)')}
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
        {events.data && jobs.length === 0 && <p>No export jobs in this namespace.</p>}
      </div>
    </div>
  );
}

const sections: Section[] = [
  requestsSection,
  faultsSection,
  { id: 'deliveries', title: 'Deliveries', Panel: DeliveriesPanel },
  { id: 'exports', title: 'Export jobs', Panel: ExportsPanel },
  annotationsSection,
  clockSection,
  namespacesSection,
];

mount(sections, {
  operation: 'tasks.partial_update',
  path: '/api/tasks/*',
  status: '503',
  snippet:
    '- id: refuse-next-delivery\n  match: {}\n  trigger: {times: 1}\n  effect: {deliveryRefused: true}',
});
