import { measureJson } from '@sims/sim-core';
import { pythonJsonDumps, renderDrfJson } from '../python-json';
import { PythonJsonError, parsePythonJson } from '../python-json-parse';
import type { EventRecord } from './record';
import { formatDrfDateTime, parseIsoDateTime } from './time';

/**
 * `POST /api/events`: CVAT's `ClientEventsSerializer` (v2.73.0) reproduced with DRF's messages, then
 * the enrichment of `to_internal_value` and the working-time events of `handle_client_events_push`.
 */

/** Scopes a client may send (`ALLOWED_SCOPES["client"]`, v2.73.0). */
const CLIENT_SCOPES: ReadonlySet<string> = new Set([
  'load:cvat',
  'load:job',
  'save:job',
  'load:workspace',
  'send:exception',
  'join:objects',
  'change:frame',
  'draw:object',
  'paste:object',
  'copy:object',
  'propagate:object',
  'drag:object',
  'resize:object',
  'delete:object',
  'merge:objects',
  'split:objects',
  'group:objects',
  'slice:object',
  'zoom:image',
  'fit:image',
  'rotate:image',
  'action:undo',
  'action:redo',
  'debug:info',
  'run:annotations_action',
  'click:element',
  'user:activity',
]);

/** Accepted, counted for working time, never stored. */
const USER_ACTIVITY_SCOPE = 'user:activity';
const WORKING_TIME_SCOPE = 'send:working_time';
/** Gaps longer than this between consecutive events are idle time (`MAX_EVENT_DURATION`). */
const MAX_EVENT_DURATION_US = 100_000_000;
/** `change:frame` events carry their own duration (`COLLAPSED_EVENT_SCOPES`). */
const COLLAPSED_SCOPES = new Set(['change:frame']);

type FieldKind = 'char' | 'int' | 'datetime';
interface FieldSpec {
  name: string;
  kind: FieldKind;
  required?: boolean;
  nullable?: boolean;
  default?: number;
}

/** `EventSerializer` fields, in declaration order (DRF reports errors and keys in this order). */
const EVENT_FIELDS: FieldSpec[] = [
  { name: 'scope', kind: 'char', required: true },
  { name: 'obj_name', kind: 'char', nullable: true },
  { name: 'obj_id', kind: 'int', nullable: true },
  { name: 'obj_val', kind: 'char', nullable: true },
  { name: 'source', kind: 'char', nullable: true },
  { name: 'timestamp', kind: 'datetime', required: true },
  { name: 'count', kind: 'int', nullable: true },
  { name: 'duration', kind: 'int', default: 0 },
  { name: 'project_id', kind: 'int', nullable: true },
  { name: 'task_id', kind: 'int', nullable: true },
  { name: 'job_id', kind: 'int', nullable: true },
  { name: 'user_id', kind: 'int', nullable: true },
  { name: 'user_name', kind: 'char', nullable: true },
  { name: 'user_email', kind: 'char', nullable: true },
  { name: 'org_id', kind: 'int', nullable: true },
  { name: 'org_slug', kind: 'char', nullable: true },
  { name: 'payload', kind: 'char', nullable: true },
];

const MSG = {
  required: 'This field is required.',
  null: 'This field may not be null.',
  blank: 'This field may not be blank.',
  string: 'Not a valid string.',
  nullChar: 'Null characters are not allowed.',
  int: 'A valid integer is required.',
  intTooLong: 'String value too large.',
  datetime:
    'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].',
};

/** Python's `type(x).__name__` for a JSON value. */
function pyTypeName(value: unknown): string {
  if (value === null) return 'NoneType';
  if (Array.isArray(value)) return 'list';
  if (typeof value === 'string') return 'str';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  return 'dict';
}

/** A validated event: values in DRF's internal types (timestamps as epoch µs), keys in field order. */
type ValidatedEvent = Map<string, string | number | null>;

type FieldResult = { ok: true; value: string | number | null } | { ok: false; message: string };

function validateField(spec: FieldSpec, value: unknown): FieldResult {
  if (value === null) return spec.nullable ? { ok: true, value: null } : { ok: false, message: MSG.null };
  switch (spec.kind) {
    case 'char': {
      // CharField.run_validation checks blank before the type; trim_whitespace strips first.
      const asText =
        typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;
      if (asText !== undefined && asText.trim() === '') return { ok: false, message: MSG.blank };
      if (typeof value === 'boolean' || asText === undefined) return { ok: false, message: MSG.string };
      if (asText.includes('\0')) return { ok: false, message: MSG.nullChar };
      return { ok: true, value: asText.trim() };
    }
    case 'int': {
      if (typeof value === 'number') {
        return Number.isInteger(value) ? { ok: true, value } : { ok: false, message: MSG.int };
      }
      if (typeof value !== 'string') return { ok: false, message: MSG.int };
      if (value.length > 1000) return { ok: false, message: MSG.intTooLong };
      // int(re.sub(r'\.0*\s*$', '', str(data))): Python's int() allows spaces, a sign and underscores.
      const text = value.replace(/\.0*\s*$/, '');
      if (!/^\s*[+-]?\d+(?:_\d+)*\s*$/.test(text)) return { ok: false, message: MSG.int };
      return { ok: true, value: Number(text.replace(/_/g, '').trim()) };
    }
    case 'datetime': {
      const us = typeof value === 'string' ? parseIsoDateTime(value) : undefined;
      return us === undefined ? { ok: false, message: MSG.datetime } : { ok: true, value: us };
    }
  }
}

type Nested = Record<string, unknown>;

function validateEvent(data: unknown): { ok: true; value: ValidatedEvent } | { ok: false; errors: unknown } {
  if (data === null) return { ok: false, errors: [MSG.null] };
  if (typeof data !== 'object' || Array.isArray(data)) {
    return {
      ok: false,
      errors: { non_field_errors: [`Invalid data. Expected a dictionary, but got ${pyTypeName(data)}.`] },
    };
  }
  const input = data as Record<string, unknown>;
  const out: ValidatedEvent = new Map();
  const errors: Nested = {};
  for (const spec of EVENT_FIELDS) {
    if (!(spec.name in input)) {
      if (spec.required) errors[spec.name] = [MSG.required];
      else if (spec.default !== undefined) out.set(spec.name, spec.default);
      continue;
    }
    const r = validateField(spec, input[spec.name]);
    if (r.ok) out.set(spec.name, r.value);
    else errors[spec.name] = [r.message];
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, value: out };
}

/** Who sent the events and in which organization context (null: sandbox). */
export interface ClientEventsCaller {
  user: { id: number; username: string; email: string };
  org: { id: number; slug: string } | null;
  accessTokenId?: number | null;
}

export type ClientEventsError =
  /** 400 with DRF's body (`{"events": [{}, {"timestamp": [...]}]}`, `{"scope": "..."}`, …). */
  | { code: 'VALIDATION'; body: unknown }
  /** 400 `{"detail": "JSON parse error - …"}`. */
  | { code: 'JSON_PARSE'; detail: string }
  /** An explicit `"payload": null` makes CVAT call `json.loads(None)`: an uncaught TypeError, 500. */
  | { code: 'PAYLOAD_NULL' };

export interface ClientEventsAccepted {
  /** The 201 body: the validated data as DRF renders it. */
  body: Record<string, unknown>;
  /** Rows for the analytics store (everything except `user:activity`), then the working-time rows. */
  records: EventRecord[];
}

/**
 * Validates and enriches a client-events batch received at `receivedUs` (epoch µs).
 *
 * @example
 * processClientEvents({ timestamp: '2026-01-01T00:00:05Z', events: [{ scope: 'click:element', timestamp: '2026-01-01T00:00:04Z' }] },
 *   { user: { id: 1, username: 'admin', email: '' }, org: null }, Date.parse('2026-01-01T00:00:06Z') * 1000, { id: 'req-id' })
 */
export function processClientEvents(
  body: unknown,
  caller: ClientEventsCaller,
  receivedUs: number,
  requestInfo: Record<string, unknown>,
): { ok: true; value: ClientEventsAccepted } | { ok: false; error: ClientEventsError } {
  if (body === null) return invalid({ non_field_errors: ['No data provided'] });
  if (typeof body !== 'object' || Array.isArray(body)) {
    return invalid({
      non_field_errors: [`Invalid data. Expected a dictionary, but got ${pyTypeName(body)}.`],
    });
  }
  const input = body as Record<string, unknown>;
  const errors: Nested = {};
  let events: ValidatedEvent[] = [];
  if ('events' in input) {
    const raw = input.events;
    if (raw === null) errors.events = [MSG.null];
    else if (!Array.isArray(raw)) {
      errors.events = { non_field_errors: [`Expected a list of items but got type "${pyTypeName(raw)}".`] };
    } else {
      const results = raw.map(validateEvent);
      if (results.some((r) => !r.ok)) errors.events = results.map((r) => (r.ok ? {} : r.errors));
      else events = results.map((r) => (r as { value: ValidatedEvent }).value);
    }
  }
  let previous: ValidatedEvent | null = null;
  if ('previous_event' in input && input.previous_event !== null) {
    const r = validateEvent(input.previous_event);
    if (r.ok) previous = r.value;
    else errors.previous_event = r.errors;
  }
  let sentUs = 0;
  if (!('timestamp' in input)) errors.timestamp = [MSG.required];
  else {
    const r = validateField({ name: 'timestamp', kind: 'datetime' }, input.timestamp);
    if (r.ok) sentUs = r.value as number;
    else errors.timestamp = [r.message];
  }
  if (Object.keys(errors).length > 0) return invalid(errors);

  const correction = receivedUs - sentUs;
  if (previous) previous.set('timestamp', (previous.get('timestamp') as number) + correction);
  let payloadValues = 0;
  for (const event of events) {
    const scope = event.get('scope') as string;
    // `event.get("source", "client")`: only a missing source defaults; an explicit null is "None".
    const source = event.has('source') ? event.get('source') : 'client';
    if (source !== 'client' || !CLIENT_SCOPES.has(scope)) {
      return invalid({
        scope: `Event scope **${scope}** is not allowed from ${source === null ? 'None' : source}`,
      });
    }
    if (event.has('payload') && event.get('payload') === null)
      return { ok: false, error: { code: 'PAYLOAD_NULL' } };
    let payload: string;
    const payloadText = (event.get('payload') as string | undefined) ?? '{}';
    // A payload is JSON inside a string, which the body's JSON budget counts as one value: its values
    // are counted before the Python-faithful parser builds them (~100 bytes each).
    payloadValues += measureJson(payloadText, MAX_PAYLOAD_VALUES - payloadValues).values;
    if (payloadValues > MAX_PAYLOAD_VALUES) return invalid({ payload: PAYLOAD_BUDGET });
    try {
      payload = pythonJsonDumps(parsePythonJson(payloadText));
    } catch (err) {
      if (err instanceof PythonJsonError)
        return invalid({ payload: 'JSON payload is not valid in passed event' });
      throw err;
    }
    event.set('timestamp', (event.get('timestamp') as number) + correction);
    event.set('source', 'client');
    event.set('payload', payload);
    event.set('org_id', caller.org?.id ?? null);
    event.set('org_slug', caller.org?.slug ?? null);
    event.set('user_id', caller.user.id);
    event.set('user_name', caller.user.username);
    event.set('user_email', caller.user.email);
  }

  const render = (e: ValidatedEvent) => {
    const out: Record<string, unknown> = {};
    for (const [k, v] of e) out[k] = k === 'timestamp' ? formatDrfDateTime(v as number) : v;
    return out;
  };
  const records: EventRecord[] = [];
  for (const e of events) if (e.get('scope') !== USER_ACTIVITY_SCOPE) records.push(toRecord(e));
  records.push(...workingTimeRecords(events, previous, caller, requestInfo));
  return {
    ok: true,
    value: {
      body: {
        events: events.map(render),
        previous_event: previous ? render(previous) : null,
        timestamp: formatDrfDateTime(sentUs),
      },
      records,
    },
  };
}

/**
 * Most values in the event payloads of one request (chosen, FIDELITY.md Limits: CVAT parses any): at
 * ~100 bytes and 3 µs each when parsed, 20 MB and 0.6 s at most.
 */
const MAX_PAYLOAD_VALUES = 200_000;
const PAYLOAD_BUDGET = `JSON payloads with more than ${MAX_PAYLOAD_VALUES} values in one request are not supported (the simulator's limit)`;

function invalid(body: unknown): { ok: false; error: ClientEventsError } {
  return { ok: false, error: { code: 'VALIDATION', body } };
}

function num(e: ValidatedEvent, key: string): number | null {
  const v = e.get(key);
  return typeof v === 'number' ? v : null;
}
function str(e: ValidatedEvent, key: string): string | null {
  const v = e.get(key);
  return typeof v === 'string' ? v : null;
}

/** ClickHouse keeps milliseconds (`DateTime64(3)`): microseconds are truncated on the way in. */
function toRecord(e: ValidatedEvent): EventRecord {
  return {
    scope: e.get('scope') as string,
    obj_name: str(e, 'obj_name'),
    obj_id: num(e, 'obj_id'),
    obj_val: str(e, 'obj_val'),
    source: str(e, 'source'),
    timestamp: Math.floor((e.get('timestamp') as number) / 1000),
    count: num(e, 'count'),
    duration: num(e, 'duration') ?? 0,
    project_id: num(e, 'project_id'),
    task_id: num(e, 'task_id'),
    job_id: num(e, 'job_id'),
    user_id: num(e, 'user_id'),
    user_name: str(e, 'user_name'),
    user_email: str(e, 'user_email'),
    org_id: num(e, 'org_id'),
    org_slug: str(e, 'org_slug'),
    payload: str(e, 'payload'),
    access_token_id: null,
  };
}

/**
 * `send:working_time` rows: per (job, task, project) of the events, the sum of gaps shorter than 100 s
 * between consecutive events plus the duration of `change:frame` events, in whole milliseconds.
 */
function workingTimeRecords(
  events: ValidatedEvent[],
  previous: ValidatedEvent | null,
  caller: ClientEventsCaller,
  requestInfo: Record<string, unknown>,
): EventRecord[] {
  if (events.length === 0) return [];
  const ids = (e: ValidatedEvent) => `${num(e, 'job_id')}|${num(e, 'task_id')}|${num(e, 'project_id')}`;
  const end = (e: ValidatedEvent) =>
    (e.get('timestamp') as number) +
    (COLLAPSED_SCOPES.has(e.get('scope') as string) ? (num(e, 'duration') ?? 0) * 1000 : 0);
  const first = events[0] as ValidatedEvent;
  let previousEnd = previous ? end(previous) : (first.get('timestamp') as number);
  let previousIds = previous ? ids(previous) : ids(first);
  let previousEvent = previous ?? first;
  const groups = new Map<string, { value: number; timestamp: number; sample: ValidatedEvent }>();
  for (const event of events) {
    let working = 0;
    const ts = event.get('timestamp') as number;
    if (ts > previousEnd) {
      const gap = ts - previousEnd;
      if (gap < MAX_EVENT_DURATION_US) working += gap;
      previousEnd = ts;
    }
    const eventEnd = end(event);
    if (eventEnd > previousEnd) {
      working += eventEnd - previousEnd;
      previousEnd = eventEnd;
    }
    let group = groups.get(previousIds);
    if (!group) {
      group = { value: 0, timestamp: ts, sample: previousEvent };
      groups.set(previousIds, group);
    }
    group.value += working;
    previousIds = ids(event);
    previousEvent = event;
  }
  const out: EventRecord[] = [];
  for (const group of groups.values()) {
    const ms = Math.floor(group.value / 1000);
    if (ms === 0) continue;
    out.push({
      scope: WORKING_TIME_SCOPE,
      obj_name: null,
      obj_id: null,
      obj_val: null,
      source: 'server',
      timestamp: Math.floor(group.timestamp / 1000),
      count: 1,
      duration: ms,
      project_id: num(group.sample, 'project_id'),
      task_id: num(group.sample, 'task_id'),
      job_id: num(group.sample, 'job_id'),
      user_id: caller.user.id,
      user_name: caller.user.username,
      // `request.user.email or None`: an empty e-mail is NULL here, unlike in the client rows.
      user_email: caller.user.email || null,
      org_id: caller.org?.id ?? null,
      org_slug: caller.org?.slug ?? null,
      // record_server_event renders with DRF's JSONRenderer (compact), unlike client payloads.
      payload: renderDrfJson({ working_time: ms, request: requestInfo }),
      access_token_id: caller.accessTokenId ?? null,
    });
  }
  return out;
}
