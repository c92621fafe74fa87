/**
 * A value built on first use and kept: `const bodySchema = lazy(() => z.object({ ... }))`, then
 * `parseInput(bodySchema(), body)`. Zod schemas cost time to build, and a module that builds them at
 * import makes every process start pay for schemas most runs never use (docs/decisions/0009).
 *
 * @example const schema = lazy(() => z.object({ by: z.string() })); schema().parse({ by: '1s' });
 */
export function lazy<T>(build: () => T): () => T {
  let built = false;
  let value: T;
  return () => {
    if (!built) {
      value = build();
      built = true;
    }
    return value;
  };
}
