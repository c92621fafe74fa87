import { formatDrfDateTime } from '../dates';
import type { EventRecord } from './record';
import { parseIsoDateTime } from './time';

/**
 * CVAT's `EventSerializer` (v2.73.0) with DRF's messages: what `POST /api/events` makes of each event
 * (and of `previous_event`). A validated event is one object: DRF's validated dict (the fields it holds,
 * in its order; `JSON.stringify` writes it as the 201 body does) and, once enriched, the row the
 * analytics store gets. A batch of 190,000 events used to make four objects an event (a Map of 17
 * entries, the row, the rendered dict, a result): ~450 bytes an event kept, and half the request's CPU.
 */

type FieldKind = 'char' | 'int' | 'datetime';
interface FieldSpec {
  name: FieldName;
  kind: FieldKind;
  required?: boolean;
  nullable?: boolean;
  default?: number;
}

type FieldName = Exclude<keyof EventRecord, 'access_token_id'>;

/** `EventSerializer` fields, in declaration order (DRF reports errors and keys in this order). */
const EVENT_FIELDS: readonly FieldSpec[] = [
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

/** Field `i` is bit `1 << i` of an event's `present` and `added`. */
const FIELD_NAMES = EVENT_FIELDS.map((f) => f.name);
const TIMESTAMP = FIELD_NAMES.indexOf('timestamp');
const BIT = Object.fromEntries(FIELD_NAMES.map((name, i) => [name, 1 << i])) as Record<FieldName, number>;

/**
 * What `to_internal_value` sets on every client event, in its order: a key the event did not have
 * comes after the validated ones, in this order (a Python dict's `update`).
 */
const ENRICHED: readonly FieldName[] = [
  'timestamp',
  'source',
  'payload',
  'org_id',
  'org_slug',
  'user_id',
  'user_name',
  'user_email',
];
const ENRICHED_INDICES = ENRICHED.map((name) => FIELD_NAMES.indexOf(name));
const ENRICHED_BITS = ENRICHED_INDICES.reduce((bits, i) => bits | (1 << i), 0);

export const MSG = {
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
export function pyTypeName(value: unknown): string {
  if (value === null) return 'NoneType';
  if (Array.isArray(value)) return 'list';
  if (typeof value === 'string') return 'str';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  return 'dict';
}

/** A field's refusal: one instance a message, so a valid field allocates nothing. */
class FieldError {
  constructor(readonly message: string) {}
}
const REFUSED = Object.fromEntries(Object.entries(MSG).map(([k, m]) => [k, new FieldError(m)])) as Record<
  keyof typeof MSG,
  FieldError
>;

type FieldValue = string | number | null;

function validateField(spec: FieldSpec, value: unknown): FieldValue | FieldError {
  if (value === null) return spec.nullable ? null : REFUSED.null;
  switch (spec.kind) {
    case 'char': {
      // CharField.run_validation checks blank before the type; trim_whitespace strips first.
      const asText =
        typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;
      if (asText !== undefined && asText.trim() === '') return REFUSED.blank;
      if (typeof value === 'boolean' || asText === undefined) return REFUSED.string;
      if (asText.includes('\0')) return REFUSED.nullChar;
      return asText.trim();
    }
    case 'int': {
      if (typeof value === 'number') return Number.isInteger(value) ? value : REFUSED.int;
      if (typeof value !== 'string') return REFUSED.int;
      if (value.length > 1000) return REFUSED.intTooLong;
      // int(re.sub(r'\.0*\s*$', '', str(data))): Python's int() allows spaces, a sign and underscores.
      const text = value.replace(/\.0*\s*$/, '');
      if (!/^\s*[+-]?\d+(?:_\d+)*\s*$/.test(text)) return REFUSED.int;
      return Number(text.replace(/_/g, '').trim());
    }
    case 'datetime': {
      const us = typeof value === 'string' ? parseIsoDateTime(value) : undefined;
      return us === undefined ? REFUSED.datetime : us;
    }
  }
}

/** `ClientEventsSerializer.timestamp`: epoch µs, or DRF's message. */
export function validateDateTime(value: unknown): number | string {
  const v = validateField({ name: 'timestamp', kind: 'datetime' }, value);
  return v instanceof FieldError ? v.message : (v as number);
}

/** Who the enrichment writes into a client event. */
export interface EventIdentity {
  org_id: number | null;
  org_slug: string | null;
  user_id: number;
  user_name: string;
  user_email: string;
}

/**
 * An event as `EventSerializer` validated it: the fields it holds are `present` (a default counts), the
 * others are null. After {@link ValidatedEvent.enrich} it is also the analytics store's row.
 */
export class ValidatedEvent implements EventRecord {
  scope = '';
  obj_name: string | null = null;
  obj_id: number | null = null;
  obj_val: string | null = null;
  source: string | null = null;
  /** The row's time (epoch ms, truncated: ClickHouse's `DateTime64(3)`), set by `enrich`. */
  timestamp = 0;
  count: number | null = null;
  duration = 0;
  project_id: number | null = null;
  task_id: number | null = null;
  job_id: number | null = null;
  user_id: number | null = null;
  user_name: string | null = null;
  user_email: string | null = null;
  org_id: number | null = null;
  org_slug: string | null = null;
  payload: string | null = null;
  access_token_id: number | null = null;
  /** DRF's datetime (epoch µs): the response echoes microseconds the row drops. */
  #us = 0;
  /** The fields DRF's validated dict holds (bit `1 << i`: field `i` of `EVENT_FIELDS`). */
  #present = 0;
  /** The keys `enrich` added after them (not in the validated dict), by the same bits. */
  #added = 0;

  /** The event's time in epoch µs (corrected once enriched). */
  get us(): number {
    return this.#us;
  }

  /** Sets field `i` of {@link EVENT_FIELDS} to its validated value (the timestamp in epoch µs). */
  set(i: number, value: FieldValue): void {
    this.#present |= 1 << i;
    // Monomorphic fields rather than a Map an event: 190,000 Maps of 17 entries took 170 MB.
    if (i === TIMESTAMP) this.#us = value as number;
    else (this as unknown as Record<string, FieldValue>)[FIELD_NAMES[i] as string] = value;
  }

  has(name: FieldName): boolean {
    return (this.#present & BIT[name]) !== 0;
  }

  /** Shifts the time by the client's clock skew (`previous_event` gets only this). */
  correct(byUs: number): void {
    this.#us += byUs;
  }

  /** `to_internal_value`'s update of a client event, after `correct`: source, payload and identity. */
  enrich(payload: string, who: EventIdentity): void {
    this.timestamp = Math.floor(this.#us / 1000);
    this.source = 'client';
    this.payload = payload;
    this.org_id = who.org_id;
    this.org_slug = who.org_slug;
    this.user_id = who.user_id;
    this.user_name = who.user_name;
    this.user_email = who.user_email;
    this.#added = ENRICHED_BITS & ~this.#present;
  }

  /** DRF's rendering of the validated dict: its keys in order, then those `enrich` added. */
  toJSON(): Record<string, FieldValue> {
    const out: Record<string, FieldValue> = {};
    const present = this.#present;
    for (let i = 0; i < FIELD_NAMES.length; i++) if (present & (1 << i)) this.#render(out, i);
    const added = this.#added;
    if (added !== 0) for (const i of ENRICHED_INDICES) if (added & (1 << i)) this.#render(out, i);
    return out;
  }

  #render(out: Record<string, FieldValue>, i: number): void {
    out[FIELD_NAMES[i] as FieldName] = i === TIMESTAMP ? formatDrfDateTime(this.#us) : this.#valueAt(i);
  }

  #valueAt(i: number): FieldValue {
    return (this as unknown as Record<string, FieldValue>)[FIELD_NAMES[i] as string] as FieldValue;
  }
}

/** An event's errors as DRF reports them (`{"timestamp": [...]}`, `["This field may not be null."]`). */
export class EventErrors {
  constructor(readonly errors: unknown) {}
}

/** `errors` (made on the first) with a field's message. */
function withError(errors: Record<string, string[]> | undefined, name: string, message: string) {
  const out = errors ?? {};
  out[name] = [message];
  return out;
}

/** `EventSerializer(data).is_valid()`: the validated event, or its errors. */
export function validateEvent(data: unknown): ValidatedEvent | EventErrors {
  if (data === null) return new EventErrors([MSG.null]);
  if (typeof data !== 'object' || Array.isArray(data)) {
    return new EventErrors({
      non_field_errors: [`Invalid data. Expected a dictionary, but got ${pyTypeName(data)}.`],
    });
  }
  const input = data as Record<string, unknown>;
  const event = new ValidatedEvent();
  let errors: Record<string, string[]> | undefined;
  for (let i = 0; i < EVENT_FIELDS.length; i++) {
    const spec = EVENT_FIELDS[i] as FieldSpec;
    if (!(spec.name in input)) {
      if (spec.required) errors = withError(errors, spec.name, MSG.required);
      else if (spec.default !== undefined) event.set(i, spec.default);
      continue;
    }
    const v = validateField(spec, input[spec.name]);
    if (v instanceof FieldError) errors = withError(errors, spec.name, v.message);
    else event.set(i, v);
  }
  return errors ? new EventErrors(errors) : event;
}
