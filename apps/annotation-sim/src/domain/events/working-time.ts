import { renderDrfJson } from '../python-json';
import type { EventRecord } from './record';
import type { ValidatedEvent } from './validated-event';

/**
 * The `send:working_time` rows of `handle_client_events_push` (CVAT v2.73.0) for a client-events
 * batch: per (job, task, project) of the events, the sum of gaps shorter than 100 s between consecutive
 * events plus the duration of `change:frame` events, in whole milliseconds.
 */

const WORKING_TIME_SCOPE = 'send:working_time';
/** Gaps longer than this between consecutive events are idle time (`MAX_EVENT_DURATION`). */
const MAX_EVENT_DURATION_US = 100_000_000;
/** `change:frame` events carry their own duration (`COLLAPSED_EVENT_SCOPES`). */
const COLLAPSED_SCOPES = new Set(['change:frame']);

/** Who sent the batch, as the working-time rows name them. */
export interface WorkingTimeCaller {
  user: { id: number; username: string; email: string };
  org: { id: number; slug: string } | null;
  accessTokenId?: number | null;
}

interface Group {
  value: number;
  timestamp: number;
  sample: ValidatedEvent;
}

const groupKey = (e: ValidatedEvent) => `${e.job_id}|${e.task_id}|${e.project_id}`;
const sameIds = (a: ValidatedEvent, b: ValidatedEvent) =>
  a.job_id === b.job_id && a.task_id === b.task_id && a.project_id === b.project_id;
const end = (e: ValidatedEvent) => e.us + (COLLAPSED_SCOPES.has(e.scope) ? e.duration * 1000 : 0);

/**
 * The rows for `events` (enriched, times corrected), after `previous` (the last event of the batch
 * before, if the client sent it), in the order their groups first appear.
 */
export function workingTimeRecords(
  events: readonly ValidatedEvent[],
  previous: ValidatedEvent | null,
  caller: WorkingTimeCaller,
  requestInfo: Record<string, unknown>,
): EventRecord[] {
  if (events.length === 0) return [];
  const first = events[0] as ValidatedEvent;
  let previousEnd = previous ? end(previous) : first.us;
  let previousEvent = previous ?? first;
  const groups = new Map<string, Group>();
  // The group of `previousEvent`'s ids, looked up again only when the ids change: consecutive events
  // mostly share them, and a key string an event made 190,000 of them for one batch.
  let group: Group | undefined;
  for (const event of events) {
    let working = 0;
    const ts = event.us;
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
    if (group === undefined) {
      const key = groupKey(previousEvent);
      group = groups.get(key);
      if (!group) {
        group = { value: 0, timestamp: ts, sample: previousEvent };
        groups.set(key, group);
      }
    }
    group.value += working;
    if (!sameIds(event, previousEvent)) group = undefined;
    previousEvent = event;
  }
  const out: EventRecord[] = [];
  for (const g of groups.values()) {
    const ms = Math.floor(g.value / 1000);
    if (ms === 0) continue;
    out.push({
      scope: WORKING_TIME_SCOPE,
      obj_name: null,
      obj_id: null,
      obj_val: null,
      source: 'server',
      timestamp: Math.floor(g.timestamp / 1000),
      count: 1,
      duration: ms,
      project_id: g.sample.project_id,
      task_id: g.sample.task_id,
      job_id: g.sample.job_id,
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
