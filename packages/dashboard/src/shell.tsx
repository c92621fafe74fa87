import type { Child } from 'hono/jsx';
import { render, useCallback, useEffect, useMemo, useRef, useState } from 'hono/jsx/dom';
import { type Api, controlRoot, createApi, namespaceOf, type StreamEvents } from './api';

/** What the page's live stream tells the sections. */
interface Live {
  /** Bumped on every stream event: views of timed things re-read on it. */
  version: number;
  /** Bumped when something changed through the control plane or the world was replaced. */
  changes: number;
  /** Subscribes to new journal entries (the stream's `request` events). */
  onRequest(listener: (e: StreamEvents['request']) => void): () => void;
  connected: boolean;
}

/** Examples in form placeholders, in the simulator's own vocabulary. */
export interface Hints {
  operation: string;
  path: string;
  status: string;
  snippet: string;
}

export interface SectionProps {
  api: Api;
  hints: Hints;
  live: Live;
  /** Announces the outcome of an action in the page's status line (a polite live region). */
  say(message: string, error?: boolean): void;
  /** Switches the page to another namespace (the Namespaces section's doing). */
  switchNamespace(name: string): void;
}

/** One tab of the dashboard. */
export interface Section {
  id: string;
  title: string;
  Panel: (props: SectionProps) => Child;
}

/**
 * Loads `load()` now and whenever `deps` change; `reload()` loads again. Errors are kept, not thrown, so a
 * section shows what the control plane said.
 */
export function useResource<T>(load: () => Promise<T>, deps: unknown[]) {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [nonce, setNonce] = useState(0);
  useEffect(() => {
    let current = true;
    load().then(
      (value) => {
        if (!current) return;
        setData(() => value);
        setError(undefined);
      },
      (err: Error) => current && setError(err.message),
    );
    return () => {
      current = false;
    };
  }, [...deps, nonce]);
  return { data, error, reload: () => setNonce((n) => n + 1) };
}

/** Runs an action, announcing its outcome; returns whether it worked. */
export async function act(say: SectionProps['say'], done: string, action: () => Promise<unknown>) {
  try {
    await action();
    say(done);
    return true;
  } catch (err) {
    say((err as Error).message, true);
    return false;
  }
}

export const pretty = (value: unknown): string =>
  value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value, null, 2);

export const time = (iso: string | null | undefined): string =>
  iso ? iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, 'Z') : '';

function Tabs(props: { sections: Section[]; selected: string; select(id: string): void }) {
  const refs = useRef<Record<string, HTMLButtonElement | null>>({});
  const onKeyDown = (e: KeyboardEvent) => {
    const ids = props.sections.map((s) => s.id);
    const at = ids.indexOf(props.selected);
    const to =
      e.key === 'ArrowRight'
        ? (at + 1) % ids.length
        : e.key === 'ArrowLeft'
          ? (at - 1 + ids.length) % ids.length
          : e.key === 'Home'
            ? 0
            : e.key === 'End'
              ? ids.length - 1
              : -1;
    if (to < 0) return;
    e.preventDefault();
    const id = ids[to] as string;
    props.select(id);
    refs.current[id]?.focus();
  };
  return (
    <div class="tabs" role="tablist" aria-label="Sections" onKeyDown={onKeyDown}>
      {props.sections.map((s) => (
        <button
          type="button"
          role="tab"
          id={`tab-${s.id}`}
          aria-controls={`panel-${s.id}`}
          aria-selected={s.id === props.selected ? 'true' : 'false'}
          tabindex={s.id === props.selected ? 0 : -1}
          ref={(el: HTMLButtonElement | null) => {
            refs.current[s.id] = el;
          }}
          onClick={() => props.select(s.id)}
        >
          {s.title}
        </button>
      ))}
    </div>
  );
}

function App(props: { simulator: string; version: string; sections: Section[]; hints: Hints }) {
  const root = useMemo(() => controlRoot(window.location), []);
  const [namespace, setNamespace] = useState(() => namespaceOf(window.location));
  const initialTab = new URLSearchParams(window.location.hash.slice(1)).get('tab');
  const [selected, setSelected] = useState(
    props.sections.some((s) => s.id === initialTab) ? (initialTab as string) : (props.sections[0]?.id ?? ''),
  );
  const [status, setStatus] = useState<{ message: string; error: boolean } | undefined>(undefined);
  const [version, setVersion] = useState(0);
  const [changes, setChanges] = useState(0);
  const [connected, setConnected] = useState(false);
  const listeners = useRef(new Set<(e: StreamEvents['request']) => void>());
  const api = useMemo(() => createApi(root, namespace), [root, namespace]);

  useEffect(() => {
    const url = new URL(window.location.href);
    if (namespace === 'default') url.searchParams.delete('namespace');
    else url.searchParams.set('namespace', namespace);
    url.hash = `tab=${selected}`;
    window.history.replaceState(null, '', url);
  }, [namespace, selected]);

  useEffect(() => {
    const source = new EventSource(api.streamUrl());
    let pending: ReturnType<typeof setTimeout> | undefined;
    // Many events in a burst make one re-read, not one each.
    const bump = (changed: boolean) => {
      if (changed) setChanges((n) => n + 1);
      if (pending !== undefined) return;
      pending = setTimeout(() => {
        pending = undefined;
        setVersion((n) => n + 1);
      }, 150);
    };
    source.addEventListener('open', () => setConnected(true));
    source.addEventListener('error', () => setConnected(false));
    source.addEventListener('request', (e) => {
      const data = JSON.parse((e as MessageEvent).data) as StreamEvents['request'];
      for (const l of listeners.current) l(data);
      bump(false);
    });
    source.addEventListener('gap', () => bump(true));
    source.addEventListener('changed', () => bump(true));
    source.addEventListener('reset', (e) => {
      const data = JSON.parse((e as MessageEvent).data) as StreamEvents['reset'];
      // Re-reading a namespace that was deleted would create it again: show the default one instead.
      if (!data.exists && api.namespace !== 'default') {
        setNamespace('default');
        setStatus({
          message: `Namespace ${api.namespace} was deleted; now showing namespace default`,
          error: false,
        });
        return;
      }
      bump(true);
    });
    source.addEventListener('tick', () => bump(false));
    return () => {
      clearTimeout(pending);
      source.close();
    };
  }, [api]);

  const live: Live = {
    version,
    changes,
    connected,
    onRequest: useCallback((listener: (e: StreamEvents['request']) => void) => {
      listeners.current.add(listener);
      return () => listeners.current.delete(listener);
    }, []),
  };
  const say = useCallback((message: string, error = false) => setStatus({ message, error }), []);
  const switchNamespace = useCallback((name: string) => {
    setNamespace(name);
    setStatus({ message: `Now showing namespace ${name}`, error: false });
  }, []);
  const section = props.sections.find((s) => s.id === selected);

  return (
    <div class="page">
      <header class="top">
        <h1>{props.simulator} dashboard</h1>
        <p class="meta">
          <span>version {props.version}</span>
          <span>
            namespace <strong data-testid="namespace">{namespace}</strong>
          </span>
          <span class={connected ? 'live on' : 'live off'}>{connected ? 'live' : 'reconnecting…'}</span>
        </p>
      </header>
      <nav aria-label="Dashboard sections">
        <Tabs sections={props.sections} selected={selected} select={setSelected} />
      </nav>
      <p class={status?.error ? 'status error' : 'status'} role="status" aria-live="polite">
        {status?.message ?? ''}
      </p>
      <main>
        {section && (
          <section
            class="panel"
            role="tabpanel"
            id={`panel-${section.id}`}
            aria-labelledby={`tab-${section.id}`}
            tabindex={0}
          >
            <section.Panel
              api={api}
              hints={props.hints}
              live={live}
              say={say}
              switchNamespace={switchNamespace}
            />
          </section>
        )}
      </main>
    </div>
  );
}

/** Mounts the dashboard on `#app` with the simulator's sections after the shared ones. */
export function mount(sections: Section[], hints: Hints): void {
  const host = document.getElementById('app');
  if (!host) return;
  const simulator = host.dataset.simulator ?? 'simulator';
  const version = host.dataset.version ?? '';
  host.textContent = '';
  render(<App simulator={simulator} version={version} sections={sections} hints={hints} />, host);
}
