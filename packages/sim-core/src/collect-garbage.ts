/**
 * Runs one full garbage collection without V8 flags, through an in-process inspector session
 * (`HeapProfiler.collectGarbage`; no port is opened). Resolves `false` where Node has no inspector.
 * The namespaces call it after a bulk delete (see `collectAfterDeletes` in world.ts).
 *
 * @example await collectGarbage();
 */
export async function collectGarbage(): Promise<boolean> {
  let inspector: typeof import('node:inspector');
  try {
    inspector = await import('node:inspector');
  } catch {
    return false;
  }
  const session = new inspector.Session();
  try {
    session.connect();
  } catch {
    return false;
  }
  return new Promise((resolve) => {
    session.post('HeapProfiler.collectGarbage', (err) => {
      // Disconnecting inside the callback leaves Node 20 unable to exit: after it, then.
      setImmediate(() => session.disconnect());
      resolve(err === null || err === undefined);
    });
  });
}
