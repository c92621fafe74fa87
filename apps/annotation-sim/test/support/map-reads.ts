type Method = (...args: unknown[]) => unknown;

/**
 * Counts the entries read from every Map while `run` runs (through `values`, `keys`, `entries`, `forEach`
 * and iteration): a deterministic measure of the work a domain function does, for tests that check it
 * grows no faster than its input, without timing anything. The prototype is restored afterwards.
 */
export function countMapReads<T>(run: () => T): { result: T; reads: number } {
  const proto = Map.prototype as unknown as Record<PropertyKey, Method>;
  const names: PropertyKey[] = ['values', 'keys', 'entries', Symbol.iterator, 'forEach'];
  const saved = names.map((name) => proto[name] as Method);
  let reads = 0;
  names.forEach((name, i) => {
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
    names.forEach((name, i) => {
      proto[name] = saved[i] as Method;
    });
  }
}
