import type { z } from 'zod';
import { joinPath, SimInputError } from './duration';

/** Renders a zod issue path as `a.b[2].c`. */
const formatIssuePath = joinPath;

/** One line per issue: `path: message`. Unknown keys are named, so a typo says which word was wrong. */
export function describeIssues(error: z.ZodError, prefix = ''): string {
  return error.issues
    .map((issue) => {
      const path = formatIssuePath([...(prefix ? [prefix] : []), ...issue.path]);
      let message = issue.message;
      if (issue.code === 'unrecognized_keys')
        message = `unknown field(s) ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
      else if (issue.code === 'invalid_type' && /received undefined$/.test(issue.message)) {
        message = `required (${issue.expected})`;
      }
      return path ? `${path}: ${message}` : message;
    })
    .join('; ');
}

/** Issues named in a refusal's message; more are counted, not listed (a broken table has thousands). */
const ISSUES_SHOWN = 3;

/** The path segments of an issue, under `prefix`. */
function segmentsOf(issue: z.ZodError['issues'][number] | undefined, prefix: readonly (string | number)[]) {
  const own = issue ? issue.path.filter((k): k is string | number => typeof k !== 'symbol') : [];
  return [...prefix, ...own];
}

/**
 * A refused input as both simulators word it (a state snapshot, a part of one): the path of the first
 * problem under `prefix`, and a message naming the first few problems by path (`state.clusters[0].name:
 * …; state.operations: …; and 12 more`), unknown keys as `unknown field(s) "…"`.
 */
export function inputRefusal(
  error: z.ZodError,
  prefix: readonly (string | number)[] = [],
): { path: (string | number)[]; message: string } {
  const issues = error.issues.map((issue) => ({ ...issue, path: segmentsOf(issue, prefix) }));
  const shown = describeIssues({ issues: issues.slice(0, ISSUES_SHOWN) } as unknown as z.ZodError);
  const more = issues.length - ISSUES_SHOWN;
  return { path: issues[0]?.path ?? [...prefix], message: more > 0 ? `${shown}; and ${more} more` : shown };
}

/**
 * Parses `input` with `schema` or throws a SimInputError whose message lists every problem.
 *
 * @example parseInput(z.object({ n: z.number() }), { n: 'x' }, 'seed') // throws "seed.n: Invalid input…"
 */
export function parseInput<T extends z.ZodType>(schema: T, input: unknown, prefix = ''): z.output<T> {
  const result = schema.safeParse(input);
  if (!result.success) {
    const first = result.error.issues[0];
    const segments = first ? first.path.filter((k): k is string | number => typeof k !== 'symbol') : [];
    throw new SimInputError(describeIssues(result.error, prefix), prefix ? [prefix, ...segments] : segments);
  }
  return result.data;
}
