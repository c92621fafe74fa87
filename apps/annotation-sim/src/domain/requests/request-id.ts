/**
 * CVAT 2.73's request ids as `RequestId.parse` reads them (`cvat/apps/redis_handler/rq.py`): the
 * `key=value&…` form, and with `legacy` the forms of earlier releases (`export:task-1-backup-by-3`,
 * `create:task-5`, …) that its subclasses' `LEGACY_FORMAT_PATTERNS` match. A parsed id renders back to
 * the one form RQ keeps the job under, so any spelling of an id finds the same request.
 */
import { normalizeUuid } from '../events/export';

/** The request id classes of CVAT's queues (`PARSED_JOB_ID_CLASS` of each queue in its settings). */
type IdClass = 'export' | 'import' | 'quality' | 'consensus';

interface IdClassSpec {
  /** The attrs fields in their order (the order `render` writes them). */
  fields: readonly string[];
  actions: readonly string[];
  /** `ACTION_DEFAULT_VALUE`, when the class has one. */
  defaultAction?: string;
  /** Allowed subresources; `optional` when it may be left out. */
  subresources?: { allowed: readonly string[]; optional: boolean; default?: string };
  legacy: readonly RegExp[];
}

const SUBRESOURCES = ['backup', 'dataset', 'annotations'] as const;

/**
 * `ExportRequestId`, `ImportRequestId`, `QualityRequestId`, `ConsensusRequestId`. Legacy patterns are
 * anchored at the start only, as Python's `re.match` is.
 */
const CLASSES: Record<IdClass, IdClassSpec> = {
  export: {
    fields: ['action', 'target', 'target_id', 'id', 'user_id', 'lightweight', 'format', 'subresource'],
    actions: ['export'],
    defaultAction: 'export',
    subresources: { allowed: SUBRESOURCES, optional: true },
    legacy: [
      /^export:(?<target>(task|project))-(?<target_id>\d+)-(?<subresource>backup)-by-(?<user_id>\d+)/,
      /^export:(?<target>(project|task|job))-(?<target_id>\d+)-(?<subresource>(annotations|dataset))-in-(?<format>[\p{L}\p{N}_@]+)-format-by-(?<user_id>\d+)/u,
    ],
  },
  import: {
    fields: ['action', 'target', 'target_id', 'id', 'user_id', 'format', 'subresource'],
    actions: ['create', 'import'],
    subresources: { allowed: SUBRESOURCES, optional: true },
    legacy: [
      /^(?<action>create):(?<target>task)-(?<target_id>\d+)/,
      /^(?<action>import):(?<target>(task|project|job))-(?<target_id>\d+)-(?<subresource>(annotations|dataset))/,
      /^(?<action>import):(?<target>(task|project))-(?<id>[a-fA-F0-9]{8}-[a-fA-F0-9]{4}-[a-fA-F0-9]{4}-[a-fA-F0-9]{4}-[a-fA-F0-9]{12})-(?<subresource>backup)/,
    ],
  },
  quality: {
    fields: ['action', 'target', 'target_id', 'id', 'user_id', 'subresource'],
    actions: ['calculate'],
    defaultAction: 'calculate',
    subresources: { allowed: ['quality'], optional: false, default: 'quality' },
    legacy: [/^quality-check-(?<target>task)-(?<target_id>\d+)-user-(\d+)/],
  },
  consensus: {
    fields: ['action', 'target', 'target_id', 'id', 'user_id'],
    actions: ['merge'],
    defaultAction: 'merge',
    legacy: [],
  },
};

/** `SELECTOR_TO_QUEUE`: by action first, then by (action, subresource). */
function classOf(action: string, subresource: string | undefined): IdClass | undefined {
  if (action === 'export') return 'export';
  if (action === 'create' || action === 'import') return 'import';
  if (action === 'merge') return 'consensus';
  return action === 'calculate' && subresource === 'quality' ? 'quality' : undefined;
}

/** A parsed request id: its class (the queue) and its fields as the attrs instance holds them. */
export interface ParsedRequestId {
  kind: IdClass;
  action: string;
  target: string;
  target_id: number | null;
  id: string | null;
  user_id: number | null;
  lightweight: boolean | null;
  format: string | null;
  subresource: string | null;
}

/**
 * Python's `urllib.parse.unquote_plus` as `parse_qsl` applies it: `+` a space, `%XX` bytes decoded as
 * UTF-8 with U+FFFD for what is not, a `%` without two hex digits kept.
 */
function unquotePlus(text: string): string {
  const s = text.replace(/\+/g, ' ');
  if (!s.includes('%')) return s;
  const bytes: number[] = [];
  for (let i = 0; i < s.length; ) {
    if (s[i] === '%' && /^[0-9a-fA-F]{2}$/.test(s.slice(i + 1, i + 3))) {
      bytes.push(Number.parseInt(s.slice(i + 1, i + 3), 16));
      i += 3;
      continue;
    }
    const cp = s.codePointAt(i) as number;
    bytes.push(...Buffer.from(String.fromCodePoint(cp), 'utf8'));
    i += cp > 0xffff ? 2 : 1;
  }
  return new TextDecoder('utf-8').decode(Uint8Array.from(bytes));
}

/** `dict(urllib.parse.parse_qsl(text))`: `&`-separated pairs, those without `=` or a value dropped, the last of a key kept. */
function parseQsl(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const pair of text.split('&')) {
    const eq = pair.indexOf('=');
    if (eq < 0 || eq === pair.length - 1) continue;
    out.set(unquotePlus(pair.slice(0, eq)), unquotePlus(pair.slice(eq + 1)));
  }
  return out;
}

/** Python's `int(text)` of a str (ASCII digits): white space around, an optional sign. */
function pythonInt(text: string): number | undefined {
  const m = /^[\s]*([+-]?)(\d+)[\s]*$/.exec(text);
  if (!m) return undefined;
  const n = Number(m[2]);
  return Number.isSafeInteger(n) ? (m[1] === '-' ? -n : n) : undefined;
}

/** The fields given to the class's constructor, checked and converted as its attrs fields do; undefined when one raises. */
function construct(kind: IdClass, given: Map<string, string>): ParsedRequestId | undefined {
  const spec = CLASSES[kind];
  for (const key of given.keys()) if (!spec.fields.includes(key)) return undefined;
  const action = given.get('action') ?? spec.defaultAction;
  const target = given.get('target');
  if (action === undefined || !spec.actions.includes(action) || target === undefined) return undefined;
  const int = (key: string): number | null | undefined => {
    const raw = given.get(key);
    return raw === undefined ? null : pythonInt(raw);
  };
  const targetId = int('target_id');
  const userId = int('user_id');
  if (targetId === undefined || userId === undefined) return undefined;
  const rawUuid = given.get('id');
  const uuid = rawUuid === undefined ? null : normalizeUuid(rawUuid);
  if (uuid === undefined) return undefined;
  let subresource = given.get('subresource') ?? spec.subresources?.default ?? null;
  if (subresource !== null && !spec.subresources?.allowed.includes(subresource)) return undefined;
  if (subresource === null && spec.subresources && !spec.subresources.optional) return undefined;
  // "Only one of target_id or id should be set" (truthy: a target_id of 0 is not set).
  if ((targetId ? 1 : 0) + (uuid ? 1 : 0) !== 1) return undefined;
  subresource ??= null;
  return {
    kind,
    action,
    target,
    target_id: targetId,
    id: uuid,
    user_id: userId,
    // attrs' converter `bool(x)`: any non-empty string is True.
    lightweight: given.has('lightweight') ? true : null,
    format: given.get('format') ?? null,
    subresource,
  };
}

/** `ENCODE_MAPPING` undone on a value: `~` → `.`, `_` → space. */
const decodeValue = (v: string) => v.replace(/~/g, '.').replace(/_/g, ' ');

/**
 * `RequestId.parse(text, try_legacy_format=legacy)`, of any class, or `ExportRequestId.parse` when
 * `only` is `'export'` (an id of another queue is then refused, as `parse_and_validate_queue` does).
 * Undefined for what CVAT refuses (`IncorrectRequestIdError`, or the assertion a class raises).
 */
export function parseRequestId(
  text: string,
  options: { legacy: boolean; only?: 'export' },
): ParsedRequestId | undefined {
  const fragments = parseQsl(text);
  let kind: IdClass | undefined;
  if (fragments.size === 0) {
    if (!options.legacy) return undefined;
    const kinds: IdClass[] = options.only ? [options.only] : ['export', 'import', 'quality', 'consensus'];
    for (const k of kinds) {
      const match = CLASSES[k].legacy.map((p) => p.exec(text)).find((m) => m !== null);
      if (!match?.groups) continue;
      kind = k;
      for (const [key, value] of Object.entries(match.groups)) {
        // `.` was written `@` in the legacy format.
        if (value !== undefined) fragments.set(key, key === 'format' ? value.replace(/@/g, '~') : value);
      }
      break;
    }
    if (kind === undefined) return undefined;
  }
  const decoded = new Map([...fragments].map(([k, v]) => [k, decodeValue(v)] as const));
  if (kind === undefined) {
    const action = decoded.get('action');
    kind = action === undefined ? undefined : classOf(action, decoded.get('subresource'));
    if (kind === undefined) return undefined;
  }
  if (options.only !== undefined && kind !== options.only) return undefined;
  return construct(kind, decoded);
}

/**
 * A value as `RequestId.normalize` writes it: it must start as `[\w.-]+` does (`re.match`), then `.`
 * becomes `~` and a space `_`.
 */
function normalizeValue(value: string): string | undefined {
  if (!/^[\p{L}\p{N}_.-]/u.test(value)) return undefined;
  return value.replace(/\./g, '~').replace(/ /g, '_');
}

/**
 * `RequestId.render()`: the fields that are set (truthy), in the class's order; undefined when a value
 * does not pass `normalize` (CVAT raises, and the requests API answers as for an unknown id).
 *
 * @example renderRequestId(parseRequestId('create:task-5', { legacy: true })!) // 'action=create&target=task&target_id=5'
 */
export function renderRequestId(p: ParsedRequestId): string | undefined {
  const parts: string[] = [];
  for (const key of CLASSES[p.kind].fields) {
    const v = p[key as keyof ParsedRequestId];
    if (v === null || v === '' || v === 0 || v === false) continue;
    const text = normalizeValue(v === true ? 'True' : String(v));
    if (text === undefined) return undefined;
    parts.push(`${key}=${text}`);
  }
  return parts.join('&');
}

/**
 * The id RQ keeps a request under, from any spelling `GET /api/requests/{id}` and its cancel take
 * (legacy forms included), or undefined when CVAT cannot parse it (404 there).
 */
export function canonicalRequestId(text: string): string | undefined {
  const parsed = parseRequestId(text, { legacy: true });
  return parsed && renderRequestId(parsed);
}
