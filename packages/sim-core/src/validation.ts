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
