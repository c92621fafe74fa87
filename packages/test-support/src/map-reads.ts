type Method = (...args: unknown[]) => unknown;

/**
 * Counts the entries read from every Map while `run` runs (through `values`, `keys`, `entries`, `forEach`
 * and iteration): a deterministic measure of the work a domain function does, for tests that check it
 * grows no faster than its input, without timing anything. The prototype is restored afterwards.
 * `sets`: entries read from Sets count too (an index of child ids is a Set: its reads are work as well).
 */
export function countMapReads<T>(
  run: () => T,
  options: { sets?: boolean } = {},
): { result: T; reads: number } {
  const names: PropertyKey[] = ['values', 'keys', 'entries', Symbol.iterator, 'forEach'];
  const protos = [Map.prototype, ...(options.sets ? [Set.prototype] : [])] as unknown as Record<
    PropertyKey,
    Method
  >[];
  const patched = protos.flatMap((proto) => names.map((name) => ({ proto, name })));
  const saved = patched.map(({ proto, name }) => proto[name] as Method);
  let reads = 0;
  patched.forEach(({ proto, name }, i) => {
    const original = saved[i] as Method;
    proto[name] =
      name === 'forEach'
        ? function (this: unknown, callback: unknown, thisArg: unknown) {
            return original.call(this, (...args: unknown[]) => {
              reads++;
              return (callback as Method).apply(thisArg, args);
            });
          }
        : function (this: unknown) {
            const inner = original.call(this) as Iterator<unknown>;
            const counted: IterableIterator<unknown> = {
              next() {
                const step = inner.next();
                if (!step.done) reads++;
                return step;
              },
              [Symbol.iterator]: () => counted,
            };
            return counted;
          };
  });
  try {
    return { result: run(), reads };
  } finally {
    patched.forEach(({ proto, name }, i) => {
      proto[name] = saved[i] as Method;
    });
  }
}
