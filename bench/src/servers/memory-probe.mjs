// Preloaded into a simulator's process by figure 9 (`node --expose-gc --import <this file>`): on the IPC
// message `{ type: 'measure' }` it collects garbage twice and answers with `process.memoryUsage()`, so the
// bench reads what the simulator's heap and buffers hold after a full GC, without code in the simulator.
process.on('message', (message) => {
  if (message?.type !== 'measure') return;
  globalThis.gc?.();
  globalThis.gc?.();
  process.send?.({ type: 'memory', ...process.memoryUsage() });
});
// The channel does not keep the process alive: the simulator exits on SIGTERM as it always does.
process.channel?.unref();
