import v8 from 'node:v8';

/**
 * For a process the simulator owns (the CLI's, the container's), called first thing in its entry module,
 * before the rest is loaded. A simulator process serves test traffic in bursts with idle spells between
 * them. On Node 20 (V8 11.3), V8's memory reducer shrank the young generation during a spell of about a
 * minute, and the next burst then cost ~40 % more CPU per request for many seconds (GET /api/tasks/{id}
 * ~21 → ~29 µs after 55 s idle; bench/ figure 3, issue 8). Node 24 does not show it. So the memory
 * reducer is put off by an hour. The flag is read whenever the reducer is armed, so setting it at run
 * time works, but only for what is armed afterwards: called after the modules were loaded, it came too
 * late. An embedding process (`startClusterSim` in a test runner) keeps its own settings. V8 11 to 13
 * have the flag.
 */
export function keepHeapThroughIdleSpells(): void {
  const major = Number(process.versions.v8.split('.')[0]);
  if (major >= 11 && major <= 13) v8.setFlagsFromString('--gc-memory-reducer-start-delay-ms=3600000');
}
