import { execFile } from 'node:child_process';
import type { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { inject } from 'vitest';
import { AnnotationSimContainer, ClusterSimContainer } from '../../../src/index';

/** Set by the global setup when no Docker engine answers: every container test is skipped, loudly. */
export const skipReason = inject('containerSkipReason');
/** `host` on machines whose engine has no bridge network (like CI's), `bridge` (port mapping) elsewhere. */
export const network = inject('containerNetwork');

if (skipReason) console.error(skipReason);

const runLabels = inject('containerRunLabels');

/** A ClusterSimContainer labelled as this run's, so that the global teardown removes it if a test leaks it. */
export function clusterSim(): ClusterSimContainer {
  return new ClusterSimContainer().withLabels(runLabels);
}

/** An AnnotationSimContainer labelled as this run's. */
export function annotationSim(): AnnotationSimContainer {
  return new AnnotationSimContainer().withLabels(runLabels);
}

const run = promisify(execFile);

export async function docker(...args: string[]): Promise<string> {
  const { stdout } = await run('docker', args, { timeout: 30_000 });
  return stdout.trim();
}

/** Reads a (followed) log stream until a line matches; the lines read so far. */
export function readLogsUntil(stream: Readable, pattern: RegExp, timeoutMs = 5_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const done = (err?: Error) => {
      clearTimeout(timer);
      stream.destroy();
      if (err) reject(err);
      else resolve(text);
    };
    const timer = setTimeout(
      () => done(new Error(`no log line matching ${pattern} within ${timeoutMs} ms; got:\n${text}`)),
      timeoutMs,
    );
    stream.on('data', (chunk: Buffer | string) => {
      text += chunk.toString();
      if (pattern.test(text)) done();
    });
    stream.on('error', (err) => done(err));
    stream.on('end', () =>
      done(pattern.test(text) ? undefined : new Error(`log ended without ${pattern}:\n${text}`)),
    );
  });
}
