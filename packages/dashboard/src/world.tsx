import { useState } from 'hono/jsx/dom';
import type { ClockState } from './api';
import { act, type Section, type SectionProps, time, useResource } from './shell';

function ClockPanel({ api, live, say }: SectionProps) {
  const clock = useResource(() => api.get<ClockState>('/clock'), [api, live.version]);
  const [by, setBy] = useState('1m');
  const advance = async (amount: string) => {
    if (
      await act(say, `Clock advanced by ${amount}`, () => api.send('POST', '/clock/advance', { by: amount }))
    )
      clock.reload();
  };
  const setMode = async (mode: 'manual' | 'real') => {
    if (await act(say, `Clock mode is now ${mode}`, () => api.send('PATCH', '/clock', { mode })))
      clock.reload();
  };
  const c = clock.data;
  return (
    <div>
      <h2>Clock</h2>
      {clock.error && <p role="alert">{clock.error}</p>}
      {c && (
        <dl class="facts">
          <dt>World time</dt>
          <dd data-testid="clock-now">{time(c.now)}</dd>
          <dt>Mode</dt>
          <dd>{c.mode}</dd>
          <dt>Speed</dt>
          <dd>{c.speed}×</dd>
          <dt>Timers waiting</dt>
          <dd>{c.pendingTimers}</dd>
        </dl>
      )}
      <form
        aria-labelledby="advance-clock"
        onSubmit={(e: Event) => {
          e.preventDefault();
          void advance(by);
        }}
      >
        <h3 id="advance-clock">Advance the clock</h3>
        <label>
          By (a duration: 500ms, 30s, 5m, 1h)
          <input name="by" value={by} onInput={(e: Event) => setBy((e.target as HTMLInputElement).value)} />
        </label>
        <button type="submit">Advance</button>
        <span class="quick">
          {['1s', '10s', '1m', '10m', '1h'].map((d) => (
            <button type="button" onClick={() => advance(d)}>
              +{d}
            </button>
          ))}
        </span>
      </form>
      <p>
        <button type="button" disabled={c?.mode === 'manual'} onClick={() => setMode('manual')}>
          Use a manual clock
        </button>{' '}
        <button type="button" disabled={c?.mode === 'real'} onClick={() => setMode('real')}>
          Use the real clock
        </button>
      </p>
    </div>
  );
}

interface MemoryBudgetView {
  kinds: { kind: string; maxBytes: number; usedBytes: number; evicted: number }[];
  namespace: { name: string; kinds: Record<string, { bytes: number; evicted: number }> };
}

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

/**
 * The process's memory budget (docs/decisions/0019): per kind of store, what all namespaces hold of its
 * share and what was evicted, and the shown namespace's part.
 */
function MemoryTable({ api, live }: Pick<SectionProps, 'api' | 'live'>) {
  const memory = useResource(() => api.get<MemoryBudgetView>('/memory'), [api, live.version]);
  const m = memory.data;
  if (!m) return memory.error ? <p role="alert">{memory.error}</p> : null;
  return (
    <div class="scroll">
      <table aria-label="Memory budget">
        <thead>
          <tr>
            <th scope="col">Kept</th>
            <th scope="col">All namespaces</th>
            <th scope="col">Evicted (all)</th>
            <th scope="col">In {m.namespace.name}</th>
            <th scope="col">Evicted there</th>
          </tr>
        </thead>
        <tbody>
          {m.kinds.map((k) => (
            <tr key={k.kind} data-kind={k.kind}>
              <th scope="row">{k.kind}</th>
              <td>
                {mib(k.usedBytes)} of {mib(k.maxBytes)}
              </td>
              <td>{k.evicted}</td>
              <td>{mib(m.namespace.kinds[k.kind]?.bytes ?? 0)}</td>
              <td>{m.namespace.kinds[k.kind]?.evicted ?? 0}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function NamespacesPanel({ api, live, say, switchNamespace }: SectionProps) {
  const list = useResource(
    () => api.get<{ namespaces: string[] }>('/namespaces').then((r) => r.namespaces),
    [api, live.changes],
  );
  const [name, setName] = useState('');
  return (
    <div>
      <h2>Namespaces</h2>
      {list.error && <p role="alert">{list.error}</p>}
      <ul class="namespaces" aria-label="Namespaces">
        {(list.data ?? []).map((n) => (
          <li key={n}>
            <span class="name">{n}</span>
            {n === api.namespace ? (
              <span class="tag">shown</span>
            ) : (
              <button
                type="button"
                aria-label={`Switch to namespace ${n}`}
                onClick={() => switchNamespace(n)}
              >
                Switch
              </button>
            )}
            <button
              type="button"
              aria-label={`Reset namespace ${n}`}
              onClick={async () => {
                if (await act(say, `Namespace ${n} reset`, () => api.in(n).send('POST', '/reset')))
                  list.reload();
              }}
            >
              Reset
            </button>
            <button
              type="button"
              aria-label={`Delete namespace ${n}`}
              onClick={async () => {
                // Leave the namespace first: the page's own reads in it would create it again.
                if (n === api.namespace) switchNamespace('default');
                if (
                  await act(say, `Namespace ${n} deleted`, () =>
                    api.in('default').send('DELETE', `/namespaces/${encodeURIComponent(n)}`),
                  )
                )
                  list.reload();
              }}
            >
              Delete
            </button>
          </li>
        ))}
      </ul>
      <MemoryTable api={api} live={live} />
      <form
        aria-labelledby="create-namespace"
        onSubmit={async (e: Event) => {
          e.preventDefault();
          const wanted = name.trim();
          if (
            await act(say, `Namespace ${wanted} created`, () =>
              api.send('PUT', `/namespaces/${encodeURIComponent(wanted)}`),
            )
          ) {
            setName('');
            list.reload();
            switchNamespace(wanted);
          }
        }}
      >
        <h3 id="create-namespace">Create a namespace</h3>
        <label>
          Name
          <input
            name="namespace"
            value={name}
            required
            pattern="[A-Za-z0-9][A-Za-z0-9._\-]{0,62}"
            onInput={(e: Event) => setName((e.target as HTMLInputElement).value)}
          />
        </label>
        <button type="submit">Create and switch</button>
      </form>
    </div>
  );
}

export const clockSection: Section = { id: 'clock', title: 'Clock', Panel: ClockPanel };
export const namespacesSection: Section = { id: 'namespaces', title: 'Namespaces', Panel: NamespacesPanel };
