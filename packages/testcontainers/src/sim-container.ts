import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { basename, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { createSimClient, type SimClient, type SimClientOptions } from '@sims/sim-client';
import {
  AbstractStartedContainer,
  GenericContainer,
  type StartedTestContainer,
  type StopOptions,
  type StoppedTestContainer,
  Wait,
} from 'testcontainers';

/** `SIMS_TESTCONTAINERS_NETWORK=host` makes every simulator container use host networking. */
export const NETWORK_ENV = 'SIMS_TESTCONTAINERS_NETWORK';

/** The line both binaries print once they listen: `<name> <version> ready at http://…`. */
export const READY_LINE = / ready at https?:\/\//;

/** Where `withScenario` puts scenario files inside the container. */
export const SCENARIO_DIR = '/tmp/sims-scenarios';

export type SimClockMode = 'real' | 'manual';

/** Which namespace a `client()` acts on (`default` when absent). */
export interface SimClientChoice {
  namespace?: string;
}

/** Signals sent to the container on stop: SIGTERM first, a kill only after this many ms (docker stop -t). */
const DEFAULT_STOP_TIMEOUT_MS = 10_000;
/** How long `start()` polls `/_sim/health` after the ready line before giving up. */
const HEALTH_TIMEOUT_MS = 15_000;
/** Host networking picks a free port on the host; a port taken in between is retried this often. */
const HOST_PORT_ATTEMPTS = 3;

/** What a started container knows about the simulator inside it. */
export interface SimEndpoint {
  /** `http://127.0.0.1:<port>` (or the mapped host and port), no trailing slash. */
  baseUrl: string;
  /** The port on the host where the simulator answers. */
  port: number;
  hostNetwork: boolean;
  adminToken?: string;
}

/**
 * The common part of `ClusterSimContainer` and `AnnotationSimContainer`: a GenericContainer that starts one
 * simulator image, passes its options as `SIM_*` environment variables, waits for the ready line and then
 * for `GET /_sim/health` to answer 200.
 *
 * Networking: by default the simulator's port is exposed and mapped (the usual testcontainers setup). With
 * `withHostNetwork()` (or `SIMS_TESTCONTAINERS_NETWORK=host`) the container shares the host's network: a free
 * port is chosen on the host, passed as `SIM_PORT`, and the simulator binds 127.0.0.1 only.
 */
export abstract class SimContainer<TStarted extends StartedSimContainer> extends GenericContainer {
  private hostNetwork: boolean | undefined;
  private readonly scenarioPaths: string[] = [];

  protected constructor(
    image: string,
    simulator: string,
    /** The port the simulator listens on inside the container when its port is mapped. */
    protected readonly containerPort: number,
  ) {
    super(image);
    this.withWaitStrategy(Wait.forLogMessage(READY_LINE));
    this.withLabels({ 'org.sims.simulator': simulator });
  }

  /**
   * Loads a scenario at start (`SIM_SCENARIO`): a path to a YAML/JSON file on this machine, scenario text
   * (YAML or JSON), or a scenario object. Repeatable; applied in order.
   *
   * @example new ClusterSimContainer().withScenario('scenarios/abort-first-update.yaml')
   * @example new ClusterSimContainer().withScenario('faults:\n  - match: { operation: nodePools.update }\n ...')
   */
  withScenario(pathOrText: string | Record<string, unknown>): this {
    const index = this.scenarioPaths.length + 1;
    let target: string;
    if (typeof pathOrText === 'object') {
      target = `${SCENARIO_DIR}/${index}.json`;
      this.withCopyContentToContainer([{ content: JSON.stringify(pathOrText), target, mode: 0o644 }]);
    } else if (looksLikeScenarioText(pathOrText)) {
      target = `${SCENARIO_DIR}/${index}.yaml`;
      this.withCopyContentToContainer([{ content: pathOrText, target, mode: 0o644 }]);
    } else {
      const source = resolve(pathOrText);
      if (!existsSync(source)) {
        throw new Error(
          `withScenario: "${pathOrText}" is neither an existing file nor scenario text (YAML/JSON)`,
        );
      }
      target = `${SCENARIO_DIR}/${index}-${basename(source).replace(/[^\w.-]/g, '_')}`;
      this.withCopyFilesToContainer([{ source, target, mode: 0o644 }]);
    }
    this.scenarioPaths.push(target);
    return this.withEnvironment({ SIM_SCENARIO: this.scenarioPaths.join(',') });
  }

  /** Seed for generated ids and probabilistic fault decisions (`SIM_SEED`). */
  withSeed(seed: string | number): this {
    return this.withEnvironment({ SIM_SEED: String(seed) });
  }

  /** World clock: `manual` moves only through the control plane; `real` runs at `speed` (default 1). */
  withClock(mode: SimClockMode, speed?: number): this {
    if (mode !== 'real' && mode !== 'manual')
      throw new Error(`withClock: expected real or manual, got "${mode}"`);
    this.withEnvironment({ SIM_CLOCK: mode });
    if (speed !== undefined) {
      if (!Number.isFinite(speed) || speed <= 0)
        throw new Error(`withClock: speed must be > 0, got ${speed}`);
      this.withEnvironment({ SIM_SPEED: String(speed) });
    }
    return this;
  }

  /**
   * Protects the control plane (`/_sim`, health excepted) with this token; `client()` sends it. Without
   * this call the container gets a random token (`getAdminToken()` on the started container).
   */
  withAdminToken(token: string): this {
    this.openControlPlane = false;
    return this.withEnvironment({ SIM_ADMIN_TOKEN: token });
  }

  /**
   * Starts with an open control plane, as the bare image does: anyone who reaches the published port can
   * change the simulator. Only for a host nobody else reaches.
   */
  withoutAdminToken(): this {
    this.openControlPlane = true;
    delete this.environment.SIM_ADMIN_TOKEN;
    return this;
  }

  private openControlPlane = false;

  /**
   * What `start()` adds before the container runs: a random admin token unless one was given or
   * `withoutAdminToken()` was called, so a published port is never an open control plane.
   */
  protected applySecureDefaults(): void {
    if (!this.openControlPlane && !this.environment.SIM_ADMIN_TOKEN)
      this.withEnvironment({ SIM_ADMIN_TOKEN: randomSecret() });
  }

  /**
   * Host networking instead of a mapped port: the container shares the host's network and listens on
   * 127.0.0.1 at a free port. Also selected by `SIMS_TESTCONTAINERS_NETWORK=host`; `withHostNetwork(false)`
   * forces port mapping whatever the environment says.
   */
  withHostNetwork(enabled = true): this {
    this.hostNetwork = enabled;
    return this;
  }

  /** True when `start()` will use host networking (the method, `withNetworkMode('host')` or the env var). */
  usesHostNetwork(): boolean {
    if (this.hostNetwork !== undefined) return this.hostNetwork;
    if (this.networkMode === 'host') return true;
    return process.env[NETWORK_ENV]?.trim().toLowerCase() === 'host';
  }

  protected abstract createStarted(started: StartedTestContainer, endpoint: SimEndpoint): TStarted;

  override async start(): Promise<TStarted> {
    this.applySecureDefaults();
    const output = new OutputTail();
    const userConsumer = this.logConsumer;
    this.withLogConsumer((stream) => {
      output.follow(stream);
      userConsumer?.(stream);
    });
    try {
      const { started, endpoint } = this.usesHostNetwork()
        ? await this.startOnHostNetwork(output)
        : await this.startWithMappedPort(output);
      try {
        await waitForHealth(endpoint.baseUrl, HEALTH_TIMEOUT_MS);
      } catch (err) {
        await started.stop({ timeout: 0 }).catch(() => undefined);
        throw withOutput(err, output);
      }
      return this.createStarted(started, endpoint);
    } finally {
      this.logConsumer = userConsumer;
    }
  }

  private async startWithMappedPort(output: OutputTail) {
    if (!this.exposedPorts.includes(this.containerPort)) this.withExposedPorts(this.containerPort);
    this.withEnvironment({ SIM_HOST: '0.0.0.0', SIM_PORT: String(this.containerPort) });
    let started: StartedTestContainer;
    try {
      started = await super.start();
    } catch (err) {
      await output.settled();
      throw withOutput(err, output);
    }
    const port = started.getMappedPort(this.containerPort);
    const endpoint: SimEndpoint = {
      baseUrl: `http://${urlHost(started.getHost())}:${port}`,
      port,
      hostNetwork: false,
      ...adminToken(this.environment),
    };
    return { started, endpoint };
  }

  private async startOnHostNetwork(output: OutputTail) {
    // No port mapping in host mode: a fixed port chosen here, and never withExposedPorts (it hangs there).
    this.withNetworkMode('host');
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      this.withEnvironment({ SIM_HOST: '127.0.0.1', SIM_PORT: String(port) });
      output.clear();
      let started: StartedTestContainer;
      try {
        started = await super.start();
      } catch (err) {
        await output.settled();
        if (attempt < HOST_PORT_ATTEMPTS && /EADDRINUSE|address already in use/i.test(output.text()))
          continue;
        throw withOutput(err, output);
      }
      const host = started.getHost();
      const endpoint: SimEndpoint = {
        baseUrl: `http://${host === 'localhost' ? '127.0.0.1' : urlHost(host)}:${port}`,
        port,
        hostNetwork: true,
        ...adminToken(this.environment),
      };
      return { started, endpoint };
    }
  }
}

/** A running simulator container: its base URL and a typed control-plane client. */
export class StartedSimContainer extends AbstractStartedContainer {
  constructor(
    startedTestContainer: StartedTestContainer,
    private readonly endpoint: SimEndpoint,
  ) {
    super(startedTestContainer);
  }

  /** Where the simulator answers, e.g. `http://127.0.0.1:41234` (no trailing slash). */
  getBaseUrl(): string {
    return this.endpoint.baseUrl;
  }

  /** The port on the host where the simulator answers (mapped, or chosen for host networking). */
  getPort(): number {
    return this.endpoint.port;
  }

  usesHostNetwork(): boolean {
    return this.endpoint.hostNetwork;
  }

  getAdminToken(): string | undefined {
    return this.endpoint.adminToken;
  }

  /** The typed control-plane client (`@sims/sim-client`), with the admin token when one was set. */
  client(options: SimClientChoice = {}): SimClient {
    return createSimClient(this.clientOptions(options));
  }

  protected clientOptions(options: SimClientChoice): SimClientOptions {
    return {
      baseUrl: this.endpoint.baseUrl,
      ...(options.namespace !== undefined && { namespace: options.namespace }),
      ...(this.endpoint.adminToken !== undefined && { adminToken: this.endpoint.adminToken }),
    };
  }

  /**
   * Stops the container with SIGTERM, so the simulator shuts down cleanly (and writes its state file if it
   * has one); docker kills it only if it is still running after `timeout` ms (default 10 s).
   */
  override stop(options: Partial<StopOptions> = {}): Promise<StoppedTestContainer> {
    return super.stop({ timeout: DEFAULT_STOP_TIMEOUT_MS, ...options });
  }
}

/** Scenario text rather than a path: several lines, or JSON, or a `key: value` YAML mapping. */
function looksLikeScenarioText(value: string): boolean {
  if (existsSync(value)) return false;
  const text = value.trim();
  return text.includes('\n') || text.startsWith('{') || /^[\w-]+:\s/.test(text);
}

/** 24 random bytes, URL-safe: an admin token or an API password nobody can guess. */
export function randomSecret(): string {
  return randomBytes(24).toString('base64url');
}

/** The token the simulator will require: from withAdminToken() or a SIM_ADMIN_TOKEN set directly. */
function adminToken(environment: Record<string, string>): { adminToken?: string } {
  const token = environment.SIM_ADMIN_TOKEN;
  return token ? { adminToken: token } : {};
}

function urlHost(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/** A port that was free on 127.0.0.1 a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port ? resolvePort(port) : reject(new Error('could not pick a free port'))));
    });
  });
}

/** Polls `GET <baseUrl>/_sim/health` until it answers 200. */
export async function waitForHealth(baseUrl: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  for (;;) {
    try {
      const response = await fetch(`${baseUrl}/_sim/health`, { signal: AbortSignal.timeout(2_000) });
      await response.arrayBuffer();
      if (response.status === 200) return;
      last = `status ${response.status}`;
    } catch (err) {
      last = (err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : String(err);
    }
    if (Date.now() >= deadline) {
      throw new Error(`${baseUrl}/_sim/health did not answer 200 within ${timeoutMs} ms (last: ${last})`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The last lines a container wrote, for error messages. */
class OutputTail {
  private lines: string[] = [];
  private ended: Promise<void> = Promise.resolve();

  /** Resolves when the followed stream has ended (the container is gone), or after at most `ms`. */
  async settled(ms = 500): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.ended, new Promise<void>((r) => (timer = setTimeout(r, ms)))]);
    clearTimeout(timer);
  }

  follow(stream: Readable): void {
    this.ended = new Promise((r) => {
      stream.once('end', r);
      stream.once('close', r);
      stream.once('error', r);
    });
    let partial = '';
    stream.on('data', (chunk: Buffer | string) => {
      const parts = (partial + chunk.toString()).split('\n');
      partial = parts.pop() ?? '';
      this.lines.push(...parts);
      if (this.lines.length > 50) this.lines.splice(0, this.lines.length - 50);
    });
    stream.on('end', () => {
      if (partial) this.lines.push(partial);
      partial = '';
    });
  }

  clear(): void {
    this.lines = [];
  }

  text(): string {
    return this.lines.join('\n');
  }
}

function withOutput(err: unknown, output: OutputTail): Error {
  const error = err instanceof Error ? err : new Error(String(err));
  const text = output.text().trim();
  if (text) error.message += `\ncontainer output:\n${text.replace(/^/gm, '  | ')}`;
  return error;
}
