import * as z from 'zod';
import { inTimeRange, parseTime } from './clock';
import type { SimulatorDefinition } from './definition';
import { isDurationString, parseDuration, SimInputError } from './duration';
import { createFaultEngine } from './faults/engine';
import { lazy } from './lazy';
import { parseInput } from './validation';
import type { World } from './world-types';

/**
 * A scenario file: seed data, fault rules and clock settings, applied to one world.
 *
 * ```yaml
 * name: abort-first-update
 * clock: { mode: manual, set: 2026-01-01T00:00:00Z }
 * seed: { ... }            # the simulator's own seed shape (same as POST /_sim/seed)
 * faults:
 *   - match: { operation: nodePools.update }
 *     trigger: { times: 1 }
 *     effect: { error: { status: ABORTED } }
 * ```
 */
export const scenarioSchema = lazy(() =>
  z
    .object({
      name: z.string().optional(),
      description: z.string().optional(),
      clock: z
        .object({
          mode: z.enum(['real', 'manual']).optional(),
          speed: z.number().positive().optional(),
          set: z.union([z.string(), z.number()]).optional(),
          advance: z
            .union([
              z.string().refine(isDurationString, 'expected a duration such as "2s"'),
              z.number().nonnegative(),
            ])
            .optional(),
        })
        .strict()
        .optional(),
      seed: z.unknown().optional(),
      faults: z.array(z.unknown()).optional(),
    })
    .strict(),
);

export type Scenario = z.infer<ReturnType<typeof scenarioSchema>>;

export interface ScenarioResult {
  name?: string;
  faults: string[];
  seeded: unknown;
  clock: { mode: string; now: string };
}

/** Deepest nesting a scenario document may have (its own shape is a few levels deep). */
const MAX_SCENARIO_DEPTH = 64;

/**
 * How deep a YAML/JSON text nests, counted before parsing (a parser given thousands of levels can exhaust
 * the process): flow brackets outside quotes, and block indentation in steps of one.
 */
function nestingDepth(text: string): { depth: number; at: number } {
  let max = 0;
  let at = 0;
  let depth = 0;
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quote) {
      if (ch === '\\' && quote === '"') i++;
      else if (ch === quote) quote = undefined;
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '[' || ch === '{') {
      if (++depth > max) [max, at] = [depth, i];
    } else if (ch === ']' || ch === '}') depth = Math.max(0, depth - 1);
  }
  // Block nesting: each level indents further; a line indented 2n columns is at most n levels deep.
  let offset = 0;
  for (const line of text.split('\n')) {
    const indent = line.length - line.trimStart().length;
    const dashes = /^(\s*-\s+)+/.exec(line)?.[0].split('-').length ?? 1;
    const levels = Math.ceil(indent / 2) + dashes - 1;
    if (levels > max) [max, at] = [levels, offset + indent];
    offset += line.length + 1;
  }
  return { depth: max, at };
}

/** `line:column` (1-based) of an offset in a text. */
function lineColumn(text: string, offset: number): string {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    start = i + 1;
  }
  return `${line}:${offset - start + 1}`;
}

/**
 * The YAML parser, imported on first use: only scenario files need it, and it is a quarter of the
 * bundled CLI, so a simulator started without `--scenario` never loads it (docs/decisions/0009).
 */
let yamlModule: Promise<typeof import('yaml')> | undefined;
const loadYaml = () => {
  // yaml is CommonJS: its exports object is the default export, in Node and in the bundle's chunk alike.
  yamlModule ??= import('yaml').then((m) => (m as unknown as { default: typeof m }).default);
  return yamlModule;
};

/** Finds `line:column` of a path in a parsed YAML/JSON document (the deepest part that exists). */
async function locate(text: string, segments: (string | number)[]): Promise<string | undefined> {
  const { LineCounter, parseDocument } = await loadYaml();
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter });
  for (let n = segments.length; n >= 0; n--) {
    const node = doc.getIn(segments.slice(0, n), true) as { range?: [number, number, number] } | undefined;
    const target = n === 0 ? doc.contents : node;
    const range = (target as { range?: [number, number, number] } | null | undefined)?.range;
    if (range) {
      const pos = lineCounter.linePos(range[0]);
      return `${pos.line}:${pos.col}`;
    }
  }
  return undefined;
}

/**
 * Parses YAML or JSON text given to the control plane: bounded in nesting (checked before the parser
 * sees it) and in alias expansion, errors as SimInputErrors that start with `<source>:<line>:<column>:`.
 *
 * @example await parseYamlText('- id: slow\n  effect: {delay: 2s}', 'faults', 'a fault list')
 */
export async function parseYamlText(
  text: string,
  source: string,
  what: string,
): Promise<{ doc: import('yaml').Document.Parsed; value: unknown }> {
  const { LineCounter, parseDocument, visit } = await loadYaml();
  const { depth, at } = nestingDepth(text);
  if (depth > MAX_SCENARIO_DEPTH)
    throw new SimInputError(
      `${source}:${lineColumn(text, at)}: nested ${depth} levels deep; ${what} nests at most ${MAX_SCENARIO_DEPTH}`,
    );
  const lineCounter = new LineCounter();
  try {
    const doc = parseDocument(text, { lineCounter, prettyErrors: false });
    if (doc.errors.length > 0) {
      const err = doc.errors[0] as { message: string; pos: [number, number] };
      const pos = lineCounter.linePos(err.pos[0]);
      throw new SimInputError(`${source}:${pos.line}:${pos.col}: ${err.message.split('\n')[0]}`);
    }
    // Expanding aliases is bounded by the parser (an alias bomb throws): a 400, not a crash.
    try {
      return { doc, value: doc.toJS({ maxAliasCount: 100 }) };
    } catch (err) {
      // The parser does not say where: point at the first alias, where the expansion starts.
      let where = 0;
      visit(doc, {
        Alias(_key, node) {
          where = node.range?.[0] ?? 0;
          return visit.BREAK;
        },
      });
      throw new SimInputError(`${source}:${lineColumn(text, where)}: ${(err as Error).message}`);
    }
  } catch (err) {
    if (err instanceof SimInputError) throw err;
    throw new SimInputError(`${source}:1:1: ${(err as Error).message}`);
  }
}

/**
 * Parses scenario text (YAML or JSON). Errors are SimInputErrors whose message starts with
 * `<source>:<line>:<column>:` so a user sees exactly where the file is wrong.
 *
 * @example parseScenario('faults: []', 'empty.yaml')
 */
export async function parseScenario(text: string, source = 'scenario'): Promise<Scenario> {
  const { isMap, isSeq } = await loadYaml();
  const { doc, value } = await parseYamlText(text, source, 'a scenario');
  if (!isMap(doc.contents) && !(value !== null && typeof value === 'object' && !isSeq(doc.contents))) {
    throw new SimInputError(`${source}:1:1: a scenario is a mapping with seed, faults and clock`);
  }
  try {
    return parseInput(scenarioSchema(), value);
  } catch (err) {
    throw await withLocation(err, text, source, []);
  }
}

async function withLocation(
  err: unknown,
  text: string | undefined,
  source: string,
  prefix: (string | number)[],
): Promise<unknown> {
  if (!(err instanceof SimInputError)) return err;
  const segments = [...prefix, ...err.segments];
  const where = text === undefined ? undefined : await locate(text, segments);
  const message = where ? `${source}:${where}: ${err.message}` : `${source}: ${err.message}`;
  return new SimInputError(message, segments);
}

/**
 * Applies a scenario to a world: validates every fault rule first (nothing is applied if one is
 * wrong), then seeds, adds the rules, and sets the clock.
 */
export async function applyScenario<S>(
  def: SimulatorDefinition<S>,
  world: World<S>,
  scenario: Scenario,
  options: { text?: string; source?: string } = {},
): Promise<ScenarioResult> {
  const source = options.source ?? 'scenario';
  const faults = scenario.faults ?? [];
  // Dry run of the rules on a scratch engine so a bad rule leaves the world untouched.
  const scratch = createFaultEngine({
    clock: world.clock,
    random: world.random,
    errorEffect: def.errorEffect,
    domainEffects: def.domainEffects,
  });
  const taken = new Set(world.faults.list().map((r) => r.id));
  for (const [i, rule] of faults.entries()) {
    try {
      const added = scratch.add(rule);
      if (taken.has(added.id))
        throw new SimInputError(`a fault rule with id "${added.id}" already exists`, 'id');
    } catch (err) {
      throw await withLocation(err, options.text, source, ['faults', i]);
    }
  }
  if (scenario.clock?.set !== undefined) {
    try {
      parseTime(scenario.clock.set);
    } catch (err) {
      throw await withLocation(err, options.text, source, ['clock', 'set']);
    }
  }
  if (scenario.clock?.advance !== undefined) {
    const from = scenario.clock.set !== undefined ? parseTime(scenario.clock.set) : world.clock.now();
    if (!inTimeRange(from + parseDuration(scenario.clock.advance))) {
      const err = new SimInputError(
        'advancing that far would pass 9999-12-31T23:59:59.999Z, the latest time the API can write',
      );
      throw await withLocation(err, options.text, source, ['clock', 'advance']);
    }
  }
  let seeded: unknown;
  if (scenario.seed !== undefined) {
    try {
      seeded = def.seed(world, scenario.seed);
    } catch (err) {
      throw await withLocation(err, options.text, source, ['seed']);
    }
  }
  const ids = faults.map((rule) => world.faults.add(rule).id);
  const clock = scenario.clock;
  if (clock?.mode !== undefined || clock?.speed !== undefined)
    world.clock.configure({ mode: clock.mode, speed: clock.speed });
  if (clock?.set !== undefined) world.clock.set(clock.set);
  if (clock?.advance !== undefined) world.clock.advance(parseDuration(clock.advance));
  return {
    name: scenario.name,
    faults: ids,
    seeded,
    clock: { mode: world.clock.mode, now: world.clock.iso() },
  };
}

/** Parses and applies scenario text in one step. */
export async function loadScenario<S>(
  def: SimulatorDefinition<S>,
  world: World<S>,
  text: string,
  source = 'scenario',
): Promise<ScenarioResult> {
  return applyScenario(def, world, await parseScenario(text, source), { text, source });
}
