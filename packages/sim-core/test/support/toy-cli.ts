import { runSimulatorCli } from '../../src/cli';
import type { CliProcess } from '../../src/cli-commands';
import { cliKernelOptions } from '../../src/cli-options';
import type { KernelOptions, SimKernel } from '../../src/http/kernel';
import { serve } from '../../src/http/serve';
import { createToySim, type ToyState } from './toy-simulator';

/**
 * A simulator's CLI run in-process as the apps run theirs (the kernel handed over, so the state file is
 * streamed), with its output, exit code and SIGTERM at hand. The toy simulator unless `create` says.
 */
export async function startToyCli<S = ToyState>(
  argv: string[],
  create = createToySim as unknown as (options: KernelOptions) => SimKernel<S>,
) {
  const err: string[] = [];
  let code: number | undefined;
  let exited: () => void = () => {};
  const exit = new Promise<void>((resolve) => {
    exited = resolve;
  });
  const signals = new Map<string, () => void>();
  const proc: CliProcess = {
    argv: ['--port', '0', '--log', 'silent', ...argv],
    env: {},
    stdout: () => {},
    stderr: (line) => err.push(line),
    exit: (c) => {
      code = c;
      exited();
    },
    onSignal: (signal, handler) => signals.set(signal, handler),
  };
  const running = await runSimulatorCli({
    name: 'toy-sim',
    version: '1',
    defaultPort: 1,
    proc,
    start: async (options) => {
      const kernel = create(cliKernelOptions(options));
      const server = await serve(kernel.app, options);
      return {
        ...server,
        app: kernel.app,
        kernel,
        close: async () => {
          await server.close();
          kernel.close();
        },
      };
    },
  });
  return {
    running,
    err,
    code: () => code,
    /** SIGTERM, then the exit code. */
    async stop() {
      signals.get('SIGTERM')?.();
      await exit;
      return code;
    },
  };
}
