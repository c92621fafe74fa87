import { measureJson } from '@sims/sim-core';
import { formatDrfDateTime } from '../dates';
import { pythonJsonDumps } from '../python-json';
import { PythonJsonError, parsePythonJson } from '../python-json-parse';
import type { EventRecord } from './record';
import {
  EventErrors,
  type EventIdentity,
  MSG,
  pyTypeName,
  type ValidatedEvent,
  validateDateTime,
  validateEvent,
} from './validated-event';
import { workingTimeRecords } from './working-time';

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
  const errors: Record<string, unknown> = {};
  let events: ValidatedEvent[] = [];
  if ('events' in input) {
    const raw = input.events;
    if (raw === null) errors.events = [MSG.null];
    else if (!Array.isArray(raw)) {
      errors.events = { non_field_errors: [`Expected a list of items but got type "${pyTypeName(raw)}".`] };
    } else {
      const results = raw.map(validateEvent);
      if (results.some((r) => r instanceof EventErrors))
        errors.events = results.map((r) => (r instanceof EventErrors ? r.errors : {}));
      else events = results as ValidatedEvent[];
    }
  }
  let previous: ValidatedEvent | null = null;
  if ('previous_event' in input && input.previous_event !== null) {
    const r = validateEvent(input.previous_event);
    if (r instanceof EventErrors) errors.previous_event = r.errors;
    else previous = r;
  }
  let sentUs = 0;
  if (!('timestamp' in input)) errors.timestamp = [MSG.required];
  else {
    const r = validateDateTime(input.timestamp);
    if (typeof r === 'number') sentUs = r;
    else errors.timestamp = [r];
  }
  if (Object.keys(errors).length > 0) return invalid(errors);

  const correction = receivedUs - sentUs;
  previous?.correct(correction);
  const who: EventIdentity = {
    org_id: caller.org?.id ?? null,
    org_slug: caller.org?.slug ?? null,
    user_id: caller.user.id,
    user_name: caller.user.username,
    user_email: caller.user.email,
  };
  let payloadValues = 0;
  for (const event of events) {
    const scope = event.scope;
    // `event.get("source", "client")`: only a missing source defaults; an explicit null is "None".
    const source = event.has('source') ? event.source : 'client';
    if (source !== 'client' || !CLIENT_SCOPES.has(scope)) {
      return invalid({
        scope: `Event scope **${scope}** is not allowed from ${source === null ? 'None' : source}`,
      });
    }
    let payload: string;
    if (!event.has('payload')) {
      // `json.dumps(json.loads("{}"))`, the same for every event that has none: one value of the budget.
      payloadValues += 1;
      if (payloadValues > MAX_PAYLOAD_VALUES) return invalid({ payload: PAYLOAD_BUDGET });
      payload = EMPTY_PAYLOAD;
    } else {
      const payloadText = event.payload;
      if (payloadText === null) return { ok: false, error: { code: 'PAYLOAD_NULL' } };
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
    }
    event.correct(correction);
    event.enrich(payload, who);
  }

  const records: EventRecord[] = [];
  for (const e of events) if (e.scope !== USER_ACTIVITY_SCOPE) records.push(e);
  // One push a row: spreading the working-time rows into push overflowed the stack past ~120,000 of
  // them (a batch whose events each name another job).
  for (const r of workingTimeRecords(events, previous, caller, requestInfo)) records.push(r);
  return {
    ok: true,
    value: {
      // The events render themselves (`toJSON`) as DRF renders the validated data.
      body: { events, previous_event: previous, timestamp: formatDrfDateTime(sentUs) },
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
/** The stored payload of an event without one. */
const EMPTY_PAYLOAD = pythonJsonDumps(parsePythonJson('{}'));

function invalid(body: unknown): { ok: false; error: ClientEventsError } {
  return { ok: false, error: { code: 'VALIDATION', body } };
}
