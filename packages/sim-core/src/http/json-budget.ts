/**
 * What parsing a request body may cost. JSON.parse is iterative and fast, but what it builds is not
 * bounded by the bytes it reads: `[{"a":1},{"a":1},…]` is 8 bytes an object, and 45 MB of it took
 * annotation-sim from 58 to 941 MB (issue 33). So a body is measured before it is parsed, in one pass
 * that allocates nothing, and refused past a budget of bytes, depth and values.
 *
 * Measured on Node 20 (V8 11.3, no pointer compression), the least heap (`--max-old-space-size`) in
 * which JSON.parse of 1,000,000 items survives, less the text and Node's own 4 MB, a value:
 * - numbers, `null`, strings in arrays: 8 bytes (a slot of the array; small integers are not objects);
 * - `[{"a":123},…]` (an object, a member name, a number: 3 values): 11; `[[1]]`: 32; `[[]]`: 40;
 *   `[{}]`: 48 (an empty object has room for 4 members); one object of a million members: 51;
 * - `[{"k0":1},{"k1":1},…]`, a new member name in every object: 59, the worst found (every object gets
 *   a hidden class of its own, with its descriptors and the name interned).
 * So a value is counted at 64 bytes. Strings are copied out of the text, and the text itself is in the
 * heap while it is parsed: a one-byte string if it is ASCII, else possibly two bytes a character (one
 * character outside Latin-1 is enough). The peak of a body of `b` bytes and `v` values is therefore at
 * most 2·b (the text) + 2·b (the strings copied out of it) + 64·v, less in fact, since values take
 * bytes too. Measured, the worst each budget lets through (a million values of the costliest kind, the
 * rest one string ending in `€`) parses in a heap of 93 MB at 10 MiB (cluster-sim's API), 112 MB at
 * 16 MiB (annotation-sim's), 174 MB at 32 MiB (the control plane's, `CONTROL_JSON_BUDGET` in body.ts),
 * Node's own 5 MB included; a simulator starts at ~15 MB: a 256 MB heap survives any one body
 * (fuzz/test/heap-bound.test.ts sends them). JSON.parse and the handlers that take its value run
 * without awaiting, so two requests do not parse at once.
 */

/** Limits of one parse; past `maxBytes` the text is never decoded. */
export interface JsonBudget {
  /** Largest body parsed as JSON, in bytes. */
  maxBytes: number;
  /** Deepest nesting of objects and arrays handed on (deeper: `jsonTooDeep`, as before any budget). */
  maxDepth: number;
  /** Most values: objects, arrays, member names, strings, numbers, `true`, `false`, `null`. */
  maxValues: number;
}

/** Which limit of a budget a body passes, and that limit. */
export interface JsonBudgetExcess {
  limit: 'bytes' | 'values';
  max: number;
}

/** Budget of a request body when the simulator says nothing (`limits`): a million values. */
export const DEFAULT_MAX_JSON_VALUES = 1_000_000;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The values of a JSON text and its deepest nesting of objects and arrays, counted without parsing:
 * outside strings, each `{`, `[` and string is a value, and so is each run of other characters that
 * no space, `,` or `:` breaks (a number, `true`, `false`, `null`). Text that is not JSON is measured
 * all the same (JSON.parse would build what it reads before it fails). Stops counting at `maxValues + 1`.
 *
 * @example measureJson('{"a":[1,"x]"]}', 100) // { values: 5, depth: 2 }
 */
export function measureJson(text: string, maxValues: number): { values: number; depth: number } {
  const n = text.length;
  let values = 0;
  let depth = 0;
  let deepest = 0;
  let inScalar = false;
  for (let i = 0; i < n; i++) {
    const ch = text.charCodeAt(i);
    if (ch === QUOTE) {
      inScalar = false;
      if (++values > maxValues) break;
      i = closingQuote(text, i);
    } else if (ch === 0x7b || ch === 0x5b) {
      // { [
      inScalar = false;
      if (++values > maxValues) break;
      if (++depth > deepest) deepest = depth;
    } else if (ch === 0x7d || ch === 0x5d) {
      // } ]
      inScalar = false;
      depth--;
    } else if (ch === 0x2c || ch === 0x3a || ch === 0x20 || ch === 0x0a || ch === 0x0d || ch === 0x09) {
      // , : and JSON's whitespace
      inScalar = false;
    } else if (!inScalar) {
      inScalar = true;
      if (++values > maxValues) break;
    }
  }
  return { values, depth: deepest };
}

/** Index of the quote that closes the string opened at `open` (the text's end if none does). */
function closingQuote(text: string, open: number): number {
  let at = text.indexOf('"', open + 1);
  while (at !== -1) {
    // Escaped when an odd number of backslashes stands before it: a run is walked once, so the whole
    // text is still read in linear time.
    let backslashes = 0;
    for (let k = at - 1; text.charCodeAt(k) === BACKSLASH; k--) backslashes++;
    if (backslashes % 2 === 0) return at;
    at = text.indexOf('"', at + 1);
  }
  return text.length;
}

/**
 * Whether a JSON text is within `budget` in values (its bytes are checked before it is decoded), and
 * how deep it nests: `tooDeep` only says the walk for the place (`jsonTooDeep`) is worth making. A text
 * too short to hold more values or levels than allowed is not read at all.
 */
export function checkJsonBudget(
  text: string,
  budget: Pick<JsonBudget, 'maxDepth' | 'maxValues'>,
): { excess?: JsonBudgetExcess; tooDeep: boolean } {
  // A value takes a character at least; a level of valid JSON two.
  if (text.length <= budget.maxValues && text.length <= 2 * budget.maxDepth) return { tooDeep: false };
  const { values, depth } = measureJson(text, budget.maxValues);
  if (values > budget.maxValues)
    return { excess: { limit: 'values', max: budget.maxValues }, tooDeep: false };
  return { tooDeep: depth > budget.maxDepth };
}

/**
 * The reason a body past its budget is refused, for the API's parse error to carry (annotation-sim:
 * `JSON parse error - …`; cluster-sim: `Invalid JSON payload received. …`; the control plane's 400).
 *
 * @example jsonBudgetMessage({ limit: 'values', max: 1000000 }) // 'JSON body with more than 1000000 values (the simulator's limit)'
 */
export function jsonBudgetMessage(excess: JsonBudgetExcess, whose = "the simulator's limit"): string {
  return excess.limit === 'bytes'
    ? `JSON body larger than ${excess.max} bytes (${whose})`
    : `JSON body with more than ${excess.max} values (${whose})`;
}

/**
 * An upper bound of the nodes the YAML parser builds from a text: its words (runs of characters that
 * whitespace, `,`, `:`, `[`, `]`, `{`, `}` break, quotes or not) and its `[` and `{`. The YAML parser
 * keeps ~240 bytes a node (a node, its range, a pair), 30 times JSON.parse, so control-plane YAML
 * (fault rules, scenarios) has a budget of its own. Stops counting at `max + 1`.
 *
 * @example yamlTokens('- id: a\n  effect: {delay: 2s}', 100) // 7
 */
export function yamlTokens(text: string, max: number): number {
  const n = text.length;
  let tokens = 0;
  let inWord = false;
  for (let i = 0; i < n && tokens <= max; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 0x7b || ch === 0x5b) {
      tokens++;
      inWord = false;
    } else if (
      ch === 0x20 ||
      ch === 0x0a ||
      ch === 0x0d ||
      ch === 0x09 ||
      ch === 0x2c ||
      ch === 0x3a ||
      ch === 0x7d ||
      ch === 0x5d
    ) {
      inWord = false;
    } else if (!inWord) {
      inWord = true;
      tokens++;
    }
  }
  return tokens;
}
