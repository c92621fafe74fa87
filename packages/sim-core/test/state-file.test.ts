import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runSimulatorCli } from '../src/cli';
import type { CliProcess } from '../src/cli-commands';
import { serve } from '../src/http/serve';
import { type AtomicWriteFs, writeFileAtomic, writeJsonFileAtomic } from '../src/state-file';
import { call } from './support/http';
import { createToySim } from './support/toy-simulator';

const tmp = () => mkdtempSync(join(tmpdir(), 'sim-state-'));

/** A snapshot of a toy simulator holding one widget, as `GET /_sim/state` gives it. */
async function snapshotWith(widget: string): Promise<string> {
  const { app, close } = createToySim();
  await call(app, 'POST', '/widgets', { name: widget, color: 'gold' });
  const text = (await call(app, 'GET', '/_sim/state')).text;
  close();
  return text;
}

/** Starts the toy simulator's CLI on `stateFile` and gives the widgets it loaded. */
async function widgetsLoadedFrom(stateFile: string): Promise<{ code?: number; widgets: string[] }> {
  let code: number | undefined;
  const err: string[] = [];
  const proc: CliProcess = {
    argv: ['--port', '0', '--state-file', stateFile, '--log', 'silent'],
    env: {},
    stdout: () => {},
    stderr: (line) => err.push(line),
    exit: (c) => {
      code = c;
    },
    onSignal: () => {},
  };
  const running = await runSimulatorCli({
    name: 'toy-sim',
    version: '1',
    defaultPort: 1,
    proc,
    start: async (options) => {
      const { app } = createToySim();
      return { ...(await serve(app, options)), app };
    },
  });
  if (!running) return { code, widgets: [] };
  try {
    const state = (await (await fetch(`${running.url}/_sim/state`)).json()) as {
      state: { widgets: { name: string }[] };
    };
    return { code, widgets: state.state.widgets.map((w) => w.name) };
  } finally {
    await running.close();
  }
}

/** node:fs, with `writeSync` or `renameSync` replaced. */
const fsWith = (over: Partial<AtomicWriteFs>): AtomicWriteFs => ({ ...fs, ...over });

describe('writeFileAtomic', () => {
  it('replaces the file whole, keeps its mode, and leaves no temporary file', () => {
    const dir = tmp();
    const file = join(dir, 'state.json');
    writeFileSync(file, 'old', { mode: 0o640 });
    writeFileAtomic(file, 'new ✓');
    expect(readFileSync(file, 'utf8')).toBe('new ✓');
    expect(statSync(file).mode & 0o777).toBe(0o640);
    expect(readdirSync(dir)).toEqual(['state.json']);
    writeFileAtomic(join(dir, 'fresh.json'), '{}');
    expect(readFileSync(join(dir, 'fresh.json'), 'utf8')).toBe('{}');
  });

  it('fsyncs the data before the rename, and the directory after it', () => {
    const dir = tmp();
    const file = join(dir, 'state.json');
    const steps: string[] = [];
    const fds = new Map<number, string>();
    writeFileAtomic(
      file,
      'text',
      fsWith({
        openSync: ((path: string, flags: string, mode?: number) => {
          const fd = fs.openSync(path, flags, mode);
          fds.set(fd, path === dir ? 'dir' : 'temp');
          return fd;
        }) as typeof fs.openSync,
        fsyncSync: (fd) => {
          steps.push(`fsync ${fds.get(fd as number)}`);
          fs.fsyncSync(fd);
        },
        renameSync: (from, to) => {
          steps.push('rename');
          fs.renameSync(from, to);
        },
      }),
    );
    expect(steps).toEqual(['fsync temp', 'rename', 'fsync dir']);
  });

  it('a write that fails midway (disk full) leaves the previous file as it was, and no temporary file', () => {
    const dir = tmp();
    const file = join(dir, 'state.json');
    writeFileSync(file, 'previous');
    const failing = fsWith({
      writeSync: ((fd: number, buffer: Uint8Array, offset: number) => {
        fs.writeSync(fd, buffer, offset, 3);
        throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
      }) as unknown as typeof fs.writeSync,
    });
    expect(() => writeFileAtomic(file, 'the new snapshot', failing)).toThrow(/ENOSPC/);
    expect(readFileSync(file, 'utf8')).toBe('previous');
    expect(readdirSync(dir)).toEqual(['state.json']);
  });

  it('a failed rename leaves the previous file, which the next start loads', async () => {
    const dir = tmp();
    const file = join(dir, 'state.json');
    writeFileSync(file, await snapshotWith('before'));
    const failing = fsWith({
      renameSync: () => {
        throw Object.assign(new Error('EIO: i/o error, rename'), { code: 'EIO' });
      },
    });
    const next = await snapshotWith('after');
    expect(() => writeFileAtomic(file, next, failing)).toThrow(/EIO/);
    expect(readdirSync(dir)).toEqual(['state.json']);
    expect(await widgetsLoadedFrom(file)).toEqual({ code: undefined, widgets: ['before'] });
  });

  it('a process SIGKILLed between the write and the rename leaves the previous snapshot loadable', async () => {
    const dir = tmp();
    const file = join(dir, 'state.json');
    writeFileSync(file, await snapshotWith('before'));
    const next = await snapshotWith('after');
    // The child writes the new snapshot with an fs that, once the temporary file is written and
    // fsynced, says so and stops just before the rename, until the test kills it.
    const module = pathToFileURL(fileURLToPath(new URL('../src/state-file.ts', import.meta.url))).href;
    const script = `
      import * as fs from 'node:fs';
      import { writeFileAtomic } from '${module}';
      const text = fs.readFileSync(0, 'utf8');
      writeFileAtomic(${JSON.stringify(file)}, text, {
        ...fs,
        renameSync() {
          fs.writeSync(1, 'before rename\\n');
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60_000);
          process.exit(3);
        },
      });
    `;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.on('exit', (_code, signal) => resolve(signal)),
    );
    child.stdin.end(next);
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        if (d.toString().includes('before rename')) resolve();
      });
      child.on('exit', () => reject(new Error(`child exited early: ${stderr}`)));
    });
    // The new snapshot is on disk, whole, under the temporary name only.
    const temp = readdirSync(dir).filter((name) => name !== 'state.json');
    expect(temp).toEqual([expect.stringMatching(/^\.state\.json\.\d+\.\d+\.tmp$/)]);
    expect(readFileSync(join(dir, temp[0] as string), 'utf8')).toBe(next);
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    expect(readFileSync(file, 'utf8')).not.toBe(next);
    expect(await widgetsLoadedFrom(file)).toEqual({ code: undefined, widgets: ['before'] });
  }, 30_000);

  it('follows a symlink at the path and replaces its target', () => {
    const dir = tmp();
    const target = join(dir, 'real.json');
    writeFileSync(target, 'old');
    fs.symlinkSync(target, join(dir, 'link.json'));
    writeFileAtomic(join(dir, 'link.json'), 'new');
    expect(fs.lstatSync(join(dir, 'link.json')).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, 'utf8')).toBe('new');
  });
});

describe('writeJsonFileAtomic', () => {
  const world = {
    state: {
      rows: Array.from({ length: 3000 }, (_, i) => ({ id: i, name: `row ✓ ${i}`, tags: ['a', 'b'] })),
    },
  };

  it("writes JSON.stringify(value) byte for byte, in many writes, keeping the file's mode", () => {
    const dir = tmp();
    const file = join(dir, 'state.json');
    writeFileSync(file, 'old', { mode: 0o600 });
    let writes = 0;
    const counting = fsWith({
      writeSync: ((fd: number, buffer: Uint8Array, offset: number, length: number) => {
        writes++;
        return fs.writeSync(fd, buffer, offset, length);
      }) as unknown as typeof fs.writeSync,
    });
    writeJsonFileAtomic(file, world, counting, { chunkChars: 8192, wholeChars: 512 });
    expect(readFileSync(file, 'utf8')).toBe(JSON.stringify(world));
    expect(writes).toBeGreaterThan(10);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['state.json']);
  });

  it('a write that fails after some chunks leaves the previous file as it was, and no temporary file', () => {
    const dir = tmp();
    const file = join(dir, 'state.json');
    writeFileSync(file, 'previous');
    let writes = 0;
    const failing = fsWith({
      writeSync: ((fd: number, buffer: Uint8Array, offset: number, length: number) => {
        if (++writes === 5)
          throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
        return fs.writeSync(fd, buffer, offset, length);
      }) as unknown as typeof fs.writeSync,
    });
    expect(() => writeJsonFileAtomic(file, world, failing, { chunkChars: 8192 })).toThrow(/ENOSPC/);
    expect(writes).toBe(5);
    expect(readFileSync(file, 'utf8')).toBe('previous');
    expect(readdirSync(dir)).toEqual(['state.json']);
  });
});
