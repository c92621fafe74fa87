import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';

/** What a simulator's process holds, as the memory probe (servers/memory-probe.mjs) reports it. */
export interface ProbedMemory {
  rss: number;
  heapUsed: number;
  external: number;
}

/**
 * The simulator's memory after a full GC, from the probe preloaded into its process
 * (`node --expose-gc --import servers/memory-probe.mjs`, launched with `ipc: true`).
 */
export async function probeMemory(child: ChildProcess, timeoutMs = 30_000): Promise<ProbedMemory> {
  const reply = once(child, 'message') as Promise<[ProbedMemory & { type: string }]>;
  child.send({ type: 'measure' });
  const [m] = await Promise.race([
    reply,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no memory reply')), timeoutMs)),
  ]);
  return m;
}

/** CPU time of a process (user + system, all threads) in ms, from /proc (clock ticks of 10 ms). */
export function processCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
