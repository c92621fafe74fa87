import type { Send } from './control-dialect';

/**
 * Snapshot refusals, one way in both simulators: the same damaged `PUT /_sim/state` bodies get the same
 * kind of answer — the control plane's 400 `{ error: { status, reason: INVALID_INPUT, message, path } }`
 * with the path of the first problem (the message starting `path: `), and the world as it was — and a part
 * of `state` left out starts as a new world has it. Each app's `test/snapshot-refusals.test.ts` calls
 * {@link checkSnapshotRefusals} on a world with something in every part and expects no violations.
 */

// biome-ignore lint/suspicious/noExplicitAny: snapshots are arbitrary JSON, read and changed freely
type Json = any;

export interface SnapshotRefusalOptions {
  /** Sends to the simulator under test (see `appSender`). */
  send: Send;
  /**
   * A namespace nothing has touched, for what a new world has (`/_ns/{fresh}/_sim/state`); it is read
   * only, never written.
   */
  fresh: string;
  /**
   * Parts of `state` a request changes by itself (what a world learns from each request, such as the
   * base URL it answers under): compared by their type only when a left-out part is checked.
   */
  volatile?: readonly string[];
}

export interface SnapshotRefusalReport {
  violations: string[];
  /** The damaged bodies sent (a name each), so a test can tell a walk that checked nothing. */
  refused: string[];
  /** The parts of `state` left out one at a time and imported. */
  leftOut: string[];
  /**
   * The parts whose absence the import refused: another part names what it held (a dangling reference,
   * a counter behind its ids), so the refusal is at that other part's path.
   */
  leftOutRefused: string[];
}

interface Damage {
  name: string;
  /** The body sent: the snapshot changed, or a raw text. */
  body: (before: Json) => Json | { raw: string };
  /** The path the refusal names (exactly, or a prefix when it ends with `*`); none for a whole-body problem. */
  path?: string;
  /** A text the message must contain. */
  says?: string;
}

const STATE_PARTS_ONLY = (before: Json) => Object.keys(before.state ?? {});

/** Damage every simulator refuses the same way. */
function damages(before: Json): Damage[] {
  const list: Damage[] = [
    { name: 'malformed JSON', body: () => ({ raw: '{"state":' }), says: 'malformed JSON' },
    { name: 'an array', body: () => ({ raw: '[]' }) },
    { name: 'no state', body: (b) => withoutKey(b, 'state'), path: 'state' },
    { name: 'state a number', body: (b) => ({ ...b, state: 5 }), path: 'state' },
    { name: 'state an array', body: (b) => ({ ...b, state: [] }), path: 'state' },
    { name: 'version a number', body: (b) => ({ ...b, version: 99 }), path: 'version' },
    { name: 'clock a string', body: (b) => ({ ...b, clock: 'noon' }), path: 'clock' },
    { name: 'faults not a list', body: (b) => ({ ...b, faults: 'none' }), path: 'faults' },
    { name: 'a fault rule without an effect', body: (b) => ({ ...b, faults: [{}] }), path: 'faults[0]*' },
    {
      name: "another simulator's snapshot",
      body: (b) => ({ ...b, simulator: 'not-this-simulator' }),
      path: 'simulator',
      says: 'not-this-simulator',
    },
    {
      name: 'an unknown top-level field',
      body: (b) => ({ ...b, extra: 1 }),
      says: 'unknown field(s) "extra"',
    },
    {
      name: 'an unknown part of state',
      body: (b) => ({ ...b, state: { ...b.state, bogus: [] } }),
      path: 'state',
      says: 'unknown field(s) "bogus"',
    },
  ];
  for (const part of STATE_PARTS_ONLY(before)) {
    const value = before.state[part];
    const wrong = Array.isArray(value) || (value !== null && typeof value === 'object') ? 5 : { not: 'this' };
    list.push({
      name: `state.${part} of the wrong type`,
      body: (b) => ({ ...b, state: { ...b.state, [part]: wrong } }),
      path: `state.${part}*`,
    });
  }
  return list;
}

function withoutKey(o: Json, key: string): Json {
  const { [key]: _, ...rest } = o;
  return rest;
}

const JSON_TYPE = { contentType: 'application/json' };

async function exported(send: Send, prefix = ''): Promise<Json> {
  return (await send('GET', `${prefix}/_sim/state`)).json();
}

/** What is wrong with a refusal, if anything. */
function refusalProblem(status: number, text: string, d: Damage): string | undefined {
  if (status !== 400) return `answered ${status}, not 400: ${text.slice(0, 200)}`;
  let error: Json;
  try {
    error = JSON.parse(text).error;
  } catch {
    return `not JSON: ${text.slice(0, 200)}`;
  }
  if (error?.status !== 400 || error.reason !== 'INVALID_INPUT' || typeof error.message !== 'string')
    return `not the control envelope's 400 INVALID_INPUT: ${text.slice(0, 200)}`;
  if (d.says && !error.message.includes(d.says))
    return `the message does not say ${d.says}: ${error.message}`;
  if (d.path === undefined) return undefined;
  const prefix = d.path.endsWith('*');
  const want = prefix ? d.path.slice(0, -1) : d.path;
  if (typeof error.path !== 'string' || !(prefix ? error.path.startsWith(want) : error.path === want))
    return `path ${String(error.path)}, not ${d.path}: ${error.message}`;
  if (!error.message.startsWith(`${error.path}: `))
    return `the message does not start with its path: ${error.message}`;
  return undefined;
}

/** JSON text with every object's keys sorted: two exports that differ only in key order are the same. */
function canonical(value: Json): string {
  return JSON.stringify(value, (_key, v) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, v[k]]),
        )
      : v,
  );
}

/** The parts two exports differ in (`clock`, `state.jobs`, …), for a violation's message. */
function difference(a: Json, b: Json): string {
  const keys = (o: Json) => Object.keys(o ?? {});
  const top = [...new Set([...keys(a), ...keys(b)])].filter((k) => k !== 'state');
  const parts = [...new Set([...keys(a?.state), ...keys(b?.state)])].map((k) => `state.${k}`);
  const at = (o: Json, k: string) => (k.startsWith('state.') ? o?.state?.[k.slice(6)] : o?.[k]);
  return [...top, ...parts].filter((k) => canonical(at(a, k)) !== canonical(at(b, k))).join(', ');
}

/** Same JSON type (object, array, string, number, boolean, null). */
const kind = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/**
 * Sends every damage to `PUT /_sim/state` of the default namespace and checks each refusal and that the
 * world is unchanged after it; then leaves each part of `state` out in turn and checks the import starts
 * that part as a new world has it, importing the original again after each.
 */
export async function checkSnapshotRefusals(options: SnapshotRefusalOptions): Promise<SnapshotRefusalReport> {
  const { send } = options;
  const report: SnapshotRefusalReport = { violations: [], refused: [], leftOut: [], leftOutRefused: [] };
  const before = await exported(send);
  const put = (body: Json) =>
    send('PUT', '/_sim/state', {
      body: 'raw' in Object(body) ? body.raw : JSON.stringify(body),
      ...JSON_TYPE,
    });
  for (const d of damages(before)) {
    report.refused.push(d.name);
    const res = await put(d.body(structuredClone(before)));
    const problem = refusalProblem(res.status, await res.text(), d);
    if (problem) report.violations.push(`${d.name}: ${problem}`);
    const now = await exported(send);
    if (canonical(now) !== canonical(before))
      report.violations.push(`${d.name}: the refused import changed ${difference(before, now)}`);
  }
  const fresh = (await exported(send, `/_ns/${options.fresh}`)).state;
  for (const part of STATE_PARTS_ONLY(before)) {
    const res = await put({ ...before, state: withoutKey(before.state, part) });
    if (res.status !== 200) {
      // Another part names what this one held (a dangling reference, a counter behind its ids).
      report.leftOutRefused.push(part);
      const asRefusal = { name: part, body: () => 0, path: 'state.*' };
      const problem = refusalProblem(res.status, await res.text(), asRefusal);
      if (problem) report.violations.push(`state.${part} left out: ${problem}`);
      const now = await exported(send);
      if (canonical(now) !== canonical(before))
        report.violations.push(
          `state.${part} left out: the refused import changed ${difference(before, now)}`,
        );
      continue;
    }
    report.leftOut.push(part);
    const after = (await exported(send)).state;
    const same = options.volatile?.includes(part)
      ? kind(after[part]) === kind(fresh[part])
      : canonical(after[part]) === canonical(fresh[part]);
    if (!same)
      report.violations.push(
        `state.${part} left out: starts as ${JSON.stringify(after[part]).slice(0, 200)}, a new world has ${JSON.stringify(fresh[part]).slice(0, 200)}`,
      );
    // Back to the original before the next part is left out.
    const back = await put(before);
    if (back.status !== 200)
      report.violations.push(`the original did not import again: ${await back.text()}`);
  }
  return report;
}
