import { useEffect, useRef, useState } from 'hono/jsx/dom';
import type { JournalEntry, JournalList, StreamEvents } from './api';
import { act, pretty, type Section, type SectionProps, time } from './shell';

type Row = StreamEvents['request'];
interface Filter {
  operation: string;
  status: string;
  path: string;
}

/** Rows kept on the page; older ones stay in the journal (`GET /_sim/journal`). */
const KEEP = 500;

function query(filter: Filter, since?: number): string {
  const q = new URLSearchParams();
  if (filter.operation) q.set('operation', filter.operation);
  if (filter.status) q.set('status', filter.status);
  if (filter.path) q.set('path', filter.path);
  if (since !== undefined) q.set('since', String(since));
  q.set('limit', String(KEEP));
  return q.toString();
}

const rowOf = (e: JournalEntry): Row => ({
  seq: e.seq,
  requestId: e.requestId,
  time: e.time,
  method: e.method,
  path: e.path,
  status: e.status,
  ...(e.operation === undefined ? {} : { operation: e.operation }),
  durationMs: e.durationMs,
  faults: e.faults,
});

function Detail(props: { api: SectionProps['api']; seq: number; close(): void }) {
  const [entry, setEntry] = useState<JournalEntry | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const heading = useRef<HTMLHeadingElement | null>(null);
  useEffect(() => {
    props.api.get<{ entry: JournalEntry }>(`/journal/${props.seq}`).then(
      (r) => {
        setEntry(r.entry);
        setTimeout(() => heading.current?.focus(), 0);
      },
      (err: Error) => setError(err.message),
    );
  }, [props.seq, props.api]);
  return (
    <section class="detail" aria-labelledby="request-detail">
      <h3 id="request-detail" tabindex={-1} ref={heading}>
        Request {props.seq}
        {entry ? `: ${entry.method} ${entry.path} → ${entry.status}` : ''}
      </h3>
      <button type="button" onClick={props.close}>
        Close details
      </button>
      {error && <p role="alert">{error}</p>}
      {entry && (
        <div class="detail-body">
          <dl class="facts">
            <dt>Time</dt>
            <dd>{time(entry.time)}</dd>
            <dt>Operation</dt>
            <dd>{entry.operation ?? '—'}</dd>
            <dt>Resource</dt>
            <dd>{entry.resource ?? '—'}</dd>
            <dt>Request id</dt>
            <dd>{entry.requestId}</dd>
            <dt>Faults</dt>
            <dd>{entry.faults.length > 0 ? entry.faults.join(', ') : 'none'}</dd>
            <dt>Took</dt>
            <dd>{entry.durationMs} ms</dd>
          </dl>
          <h4>Query</h4>
          <pre>{pretty(entry.query)}</pre>
          <h4>Request headers</h4>
          <pre>{pretty(entry.headers)}</pre>
          <h4>Request body</h4>
          <pre>{entry.requestBody === undefined ? '(none)' : pretty(entry.requestBody)}</pre>
          <h4>Response body</h4>
          <pre>{entry.responseBody === undefined ? '(none)' : pretty(entry.responseBody)}</pre>
        </div>
      )}
    </section>
  );
}

/** The journal, live: rows arrive as the stream announces them; filters are the journal's own. */
function RequestsPanel({ api, hints, live, say }: SectionProps) {
  const [filter, setFilter] = useState<Filter>({ operation: '', status: '', path: '' });
  const [draft, setDraft] = useState<Filter>(filter);
  const [rows, setRows] = useState<Row[]>([]);
  const [error, setError] = useState<string | undefined>(undefined);
  const [open, setOpen] = useState<number | undefined>(undefined);
  const last = useRef(0);
  const fetching = useRef(false);
  const again = useRef(false);

  useEffect(() => {
    last.current = 0;
    setRows([]);
    api.get<JournalList>(`/journal?${query(filter)}`).then(
      (r) => {
        setError(undefined);
        last.current = r.entries.at(-1)?.seq ?? 0;
        setRows(r.entries.map(rowOf).reverse());
      },
      (err: Error) => setError(err.message),
    );
  }, [api, filter, live.changes]);

  // New entries: read what came after the last one shown, with the filter applied by the journal.
  useEffect(() => {
    const readNew = async () => {
      if (fetching.current) {
        again.current = true;
        return;
      }
      fetching.current = true;
      try {
        do {
          again.current = false;
          const r = await api.get<JournalList>(`/journal?${query(filter, last.current)}`);
          const fresh = r.entries.filter((e) => e.seq > last.current);
          if (fresh.length > 0) {
            last.current = fresh.at(-1)?.seq ?? last.current;
            setRows((old) => [...fresh.map(rowOf).reverse(), ...old].slice(0, KEEP));
          }
        } while (again.current);
      } catch (err) {
        setError((err as Error).message);
      } finally {
        fetching.current = false;
      }
    };
    return live.onRequest(() => void readNew());
  }, [api, filter, live.onRequest]);

  const field = (name: keyof Filter, label: string, hint: string) => (
    <label>
      {label}
      <input
        name={name}
        value={draft[name]}
        placeholder={hint}
        onInput={(e: Event) => setDraft({ ...draft, [name]: (e.target as HTMLInputElement).value })}
      />
    </label>
  );
  return (
    <div>
      <h2>Requests</h2>
      <form
        class="filters"
        aria-label="Filter requests"
        onSubmit={(e: Event) => {
          e.preventDefault();
          setFilter(draft);
        }}
      >
        {field('operation', 'Operation', `e.g. ${hints.operation}`)}
        {field('status', 'Status', 'e.g. 404')}
        {field('path', 'Path', `e.g. ${hints.path}`)}
        <button type="submit">Filter</button>
        <button
          type="button"
          onClick={() => {
            const empty = { operation: '', status: '', path: '' };
            setDraft(empty);
            setFilter(empty);
          }}
        >
          Show all
        </button>
        <button
          type="button"
          onClick={() => act(say, 'Journal cleared', () => api.send('DELETE', '/journal'))}
        >
          Clear journal
        </button>
      </form>
      {error && <p role="alert">{error}</p>}
      {open !== undefined && <Detail api={api} seq={open} close={() => setOpen(undefined)} />}
      <div class="scroll">
        <table aria-label="Requests received">
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">Time</th>
              <th scope="col">Request</th>
              <th scope="col">Status</th>
              <th scope="col">Operation</th>
              <th scope="col">Faults</th>
              <th scope="col">ms</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.seq} data-seq={r.seq} class={r.status >= 400 ? 'bad' : ''}>
                <td>{r.seq}</td>
                <td>{time(r.time)}</td>
                <td>
                  <button type="button" class="link" onClick={() => setOpen(r.seq)}>
                    {r.method} {r.path}
                  </button>
                </td>
                <td>{r.status}</td>
                <td>{r.operation ?? '—'}</td>
                <td>{r.faults.join(', ')}</td>
                <td>{r.durationMs}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {rows.length === 0 && (
          <p>No requests yet{filter.operation || filter.status || filter.path ? ' match' : ''}.</p>
        )}
      </div>
    </div>
  );
}

export const requestsSection: Section = { id: 'requests', title: 'Requests', Panel: RequestsPanel };
