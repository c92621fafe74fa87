import { useState } from 'hono/jsx/dom';
import type { FaultRuleSpec, FaultRuleView } from './api';
import { act, type Section, type SectionProps, useResource } from './shell';

type EffectKind = 'error' | 'http' | 'delay' | 'connection';

interface Draft {
  id: string;
  operation: string;
  method: string;
  path: string;
  times: string;
  kind: EffectKind;
  status: string;
  message: string;
  delay: string;
  connection: 'reset' | 'hang' | 'truncate';
}

/** A rule from the form's fields, in the control plane's own rule shape. */
function ruleOf(d: Draft): Partial<FaultRuleSpec> & { id?: string } {
  const match: FaultRuleSpec['match'] = {};
  if (d.operation) match.operation = d.operation;
  if (d.method) match.method = d.method;
  if (d.path) match.path = d.path;
  const effect: Record<string, unknown> =
    d.kind === 'error'
      ? {
          error: {
            status: /^\d+$/.test(d.status) ? Number(d.status) : d.status,
            ...(d.message ? { message: d.message } : {}),
          },
        }
      : d.kind === 'http'
        ? { http: { status: Number(d.status), ...(d.message ? { body: d.message } : {}) } }
        : d.kind === 'delay'
          ? { delay: d.delay }
          : { connection: d.connection };
  return {
    ...(d.id ? { id: d.id } : {}),
    match,
    ...(d.times ? { trigger: { times: Number(d.times) } } : {}),
    effect: effect as FaultRuleSpec['effect'],
  };
}

const brief = (value: unknown) => (value === undefined ? '' : JSON.stringify(value));

function FaultsPanel({ api, hints, live, say }: SectionProps) {
  const rules = useResource(
    () => api.get<{ faults: FaultRuleView[] }>('/faults').then((r) => r.faults),
    [api, live.version],
  );
  const [draft, setDraft] = useState<Draft>({
    id: '',
    operation: '',
    method: '',
    path: '',
    times: '1',
    kind: 'error',
    status: '',
    message: '',
    delay: '2s',
    connection: 'reset',
  });
  const [snippet, setSnippet] = useState('');
  const set = (name: keyof Draft) => (e: Event) =>
    setDraft({ ...draft, [name]: (e.target as HTMLInputElement | HTMLSelectElement).value });
  const text = (name: keyof Draft, label: string, hint = '') => (
    <label>
      {label}
      <input name={name} value={draft[name]} placeholder={hint} onInput={set(name)} />
    </label>
  );
  const add = async (body: unknown, contentType?: string) => {
    if (await act(say, 'Fault rule added', () => api.send('POST', '/faults', body, contentType)))
      rules.reload();
  };

  return (
    <div>
      <h2>Faults</h2>
      {rules.error && <p role="alert">{rules.error}</p>}
      <div class="scroll">
        <table aria-label="Fault rules">
          <thead>
            <tr>
              <th scope="col">Rule</th>
              <th scope="col">Match</th>
              <th scope="col">Trigger</th>
              <th scope="col">Effect</th>
              <th scope="col">Matched</th>
              <th scope="col">Fired</th>
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {(rules.data ?? []).map((r) => (
              <tr key={r.id} data-rule={r.id} class={r.fired === 0 ? 'unfired' : ''}>
                <th scope="row">
                  {r.id}
                  {r.fired === 0 && <span class="tag">never fired</span>}
                  {r.exhausted && <span class="tag">exhausted</span>}
                  {r.description && <div class="muted">{r.description}</div>}
                </th>
                <td>
                  <code>{brief(r.match)}</code>
                </td>
                <td>
                  <code>{brief(r.trigger)}</code>
                </td>
                <td>
                  <code>{brief(r.effect)}</code>
                </td>
                <td>{r.matched}</td>
                <td>{r.fired}</td>
                <td>
                  <button
                    type="button"
                    aria-label={`Delete fault rule ${r.id}`}
                    onClick={async () => {
                      if (
                        await act(say, `Fault rule ${r.id} deleted`, () =>
                          api.send('DELETE', `/faults/${encodeURIComponent(r.id)}`),
                        )
                      )
                        rules.reload();
                    }}
                  >
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {rules.data?.length === 0 && <p>No fault rules in this namespace.</p>}
      </div>
      <p>
        <button
          type="button"
          onClick={async () => {
            if (await act(say, 'All fault rules removed', () => api.send('DELETE', '/faults')))
              rules.reload();
          }}
        >
          Remove all fault rules
        </button>
      </p>
      <div class="columns">
        <form
          aria-labelledby="add-fault"
          onSubmit={(e: Event) => {
            e.preventDefault();
            void add(ruleOf(draft));
          }}
        >
          <h3 id="add-fault">Add a fault rule</h3>
          {text('id', 'Rule id (optional)', 'e.g. abort-once')}
          {text('operation', 'Operation', `e.g. ${hints.operation}`)}
          {text('method', 'Method', 'e.g. PUT')}
          {text('path', 'Path', `e.g. ${hints.path}`)}
          {text('times', 'Fire this many times (empty: always)')}
          <label>
            Effect
            <select name="kind" value={draft.kind} onChange={set('kind')}>
              <option value="error">error (the API's own envelope)</option>
              <option value="http">http (any status and body)</option>
              <option value="delay">delay</option>
              <option value="connection">connection</option>
            </select>
          </label>
          {(draft.kind === 'error' || draft.kind === 'http') &&
            text('status', 'Status', `e.g. ${hints.status}`)}
          {(draft.kind === 'error' || draft.kind === 'http') &&
            text('message', draft.kind === 'error' ? 'Message' : 'Body')}
          {draft.kind === 'delay' && text('delay', 'Delay', 'e.g. 2s')}
          {draft.kind === 'connection' && (
            <label>
              Connection
              <select name="connection" value={draft.connection} onChange={set('connection')}>
                <option value="reset">reset</option>
                <option value="hang">hang</option>
                <option value="truncate">truncate</option>
              </select>
            </label>
          )}
          <button type="submit">Add rule</button>
        </form>
        <form
          aria-labelledby="add-snippet"
          onSubmit={(e: Event) => {
            e.preventDefault();
            const trimmed = snippet.trim();
            // JSON is YAML too, but the control plane's JSON path gives JSON's own error messages.
            const json = trimmed.startsWith('{') || trimmed.startsWith('[');
            let body: unknown = trimmed;
            try {
              if (json) body = JSON.parse(trimmed);
            } catch (err) {
              say(`That is not JSON: ${(err as Error).message}`, true);
              return;
            }
            void add(body, json ? undefined : 'application/yaml');
          }}
        >
          <h3 id="add-snippet">Add from JSON or YAML</h3>
          <label>
            A rule or a list of rules
            <textarea
              name="snippet"
              rows={8}
              value={snippet}
              placeholder={hints.snippet}
              onInput={(e: Event) => setSnippet((e.target as HTMLTextAreaElement).value)}
            />
          </label>
          <button type="submit">Add from snippet</button>
        </form>
      </div>
    </div>
  );
}

export const faultsSection: Section = { id: 'faults', title: 'Faults', Panel: FaultsPanel };
