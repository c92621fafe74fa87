import type { ResourceChange } from './changes';
import { pythonFloatRepr, pythonJsonDumps } from './python-json';

/** A webhook payload as a JSON value with CVAT's key order. */
export type Payload = Record<string, unknown>;

/** `sender` of a payload: BasicUser for API changes, `{id, username, email}` for worker changes. */
export function senderOf(
  change: ResourceChange,
  basicUser: (id: number) => Record<string, unknown> | null,
): unknown {
  const a = change.actor;
  if (a === null) return null;
  if (a.kind === 'worker') return { id: a.id, username: a.username, email: a.email };
  return basicUser(a.id);
}

/**
 * The payload for one webhook, CVAT 2.73 key order:
 * create `event, webhook_id, <resource>, sender`; update the same + `before_update`, `changes`;
 * delete `event, <resource>, sender, webhook_id`.
 *
 * @example createEventPayload(change, 7, { id: 1, username: 'admin', ... })
 */
export function createEventPayload(
  change: ResourceChange,
  webhookId: number,
  sender: unknown,
  event: string = change.scope,
): Payload {
  const key = change.kind;
  switch (eventAction(event)) {
    case 'create':
      return { event, webhook_id: webhookId, [key]: change.resource, sender };
    case 'update':
      return {
        event,
        webhook_id: webhookId,
        [key]: change.resource,
        sender,
        before_update: change.beforeUpdate ?? {},
        changes: change.changes ?? {},
      };
    default:
      return { event, [key]: change.resource, sender, webhook_id: webhookId };
  }
}

function eventAction(event: string): string {
  return event.slice(0, event.indexOf(':'));
}

/** The ping payload: `event, webhook, sender` and no `webhook_id`. */
export function createPingPayload(webhook: Record<string, unknown>, sender: unknown): Payload {
  return { event: 'ping', webhook, sender };
}

/** `changed_fields` of a delivery row: the `before_update` keys joined with commas ("" otherwise). */
export function changedFieldsOf(payload: Payload): string {
  const before = payload.before_update;
  return before && typeof before === 'object' ? Object.keys(before).join(',') : '';
}

/** Printable ASCII without `"` and `\\`: Python's `json.dumps` writes such a string as is, in quotes. */
const PLAIN_STRING = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** `pythonJsonDumps`'s float keys (its default): lists of Python floats under these keys. */
const FLOAT_KEYS: ReadonlySet<string> = new Set(['position']);

/** Rendered keys (`"name": `): payloads repeat the same few dozen field names. */
const KEYS = new Map<string, string>();
const KEYS_MAX = 4096;

function keyText(k: string): string {
  let text = KEYS.get(k);
  if (text === undefined) {
    text = `${PLAIN_STRING.test(k) ? `"${k}"` : pythonJsonDumps(k)}: `;
    if (KEYS.size < KEYS_MAX) KEYS.set(k, text);
  }
  return text;
}

/**
 * The body CVAT sends for a payload: exactly `pythonJsonDumps(payload)` (Python's `json.dumps` with
 * its defaults), built in one pass. Strings that need no escaping (nearly all of them) are copied as
 * they are; the rest go through `pythonJsonDumps`, which stays the reference for escaping and floats.
 * A property test pins `payloadBody(v) === pythonJsonDumps(v)`.
 */
export function payloadBody(payload: unknown): string {
  return encode(payload, false);
}

function encode(v: unknown, asFloat: boolean): string {
  switch (typeof v) {
    case 'string':
      return PLAIN_STRING.test(v) ? `"${v}"` : pythonJsonDumps(v);
    case 'number':
      if (asFloat) return pythonFloatRepr(v);
      return Number.isInteger(v) && Math.abs(v) < 1e21 ? v.toFixed(0) : pythonFloatRepr(v);
    case 'boolean':
      return v ? 'true' : 'false';
    case 'object': {
      if (v === null) return 'null';
      if (Array.isArray(v)) {
        let out = '[';
        for (let i = 0; i < v.length; i++) {
          if (i > 0) out += ', ';
          // `Array.prototype.map` skips holes and `join` renders them as "" (as pythonJsonDumps does).
          if (i in v) out += encode(v[i], asFloat);
        }
        return `${out}]`;
      }
      const o = v as Record<string, unknown>;
      let out = '{';
      let sep = '';
      // Own enumerable keys in `Object.entries` order (for-in lists own keys first, in that order).
      for (const k in o) {
        if (!Object.hasOwn(o, k)) continue;
        const x = o[k];
        if (x === undefined) continue;
        out += sep + keyText(k) + encode(x, asFloat || FLOAT_KEYS.has(k));
        sep = ', ';
      }
      return `${out}}`;
    }
    default:
      // undefined, functions, symbols and bigints: what pythonJsonDumps writes for them.
      return 'null';
  }
}
