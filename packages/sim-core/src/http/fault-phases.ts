import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { Context } from 'hono';
import type { SimulatorDefinition } from '../definition';
import type { FaultRule } from '../faults/engine';
import type { RequestSim, SimEnv } from './request-context';

/** A simulated connection fault, thrown when there is no socket to act on (`app.request()` tests). */
export class SimulatedConnectionFault extends Error {
  override readonly name = 'SimulatedConnectionFault';
  constructor(readonly kind: 'reset' | 'hang' | 'truncate') {
    super(`simulated connection fault: ${kind}`);
  }
}

/**
 * The fault rules' part of an emulated-API request: a phase's matching rules fire (recorded, their
 * delays slept), and the rule that ends the request answers it, with the API's error, an HTTP answer
 * of its own, or a connection fault on the socket itself.
 */
export class FaultPhases<S> {
  /** Requests a connection fault answered on the socket itself (RESPONSE_ALREADY_SENT). */
  readonly #answeredOnSocket = new WeakSet<Context<SimEnv<S>>>();

  constructor(
    private readonly def: SimulatorDefinition<S>,
    /** Longest a `hang` holds a request, in wall ms. */
    private readonly hangLimit: number,
  ) {}

  /** Whether a connection fault answered this request on the socket. */
  answeredOnSocket(c: Context<SimEnv<S>>): boolean {
    return this.#answeredOnSocket.has(c);
  }

  /** Fires a phase's matching rules (recorded, delays slept) and gives the one that ends the request. */
  async run(sim: RequestSim<S>, phase: 'before' | 'after'): Promise<FaultRule | undefined> {
    const faults = sim.world.faults;
    const rules = faults.evaluate(sim.facts(), phase);
    for (const rule of rules) sim.fired.push(rule.id);
    const delay = rules.reduce((sum, rule) => sum + faults.delayOf(rule), 0);
    if (delay > 0) await sim.world.clock.sleep(delay);
    return rules.find((r) => r.effect.error || r.effect.http || r.effect.connection);
  }

  /** The answer of the rule that ends a request (from `run`). */
  async answer(c: Context<SimEnv<S>>, rule: FaultRule, phase: 'before' | 'after'): Promise<Response> {
    const e = rule.effect;
    if (e.error !== undefined) {
      // Said on every answer a rule made, so a test (and the fuzz suite) tells a fault from a bug.
      const res = await this.def.renderFaultError(c, e.error);
      if (!res.headers.has('x-sim-reason')) res.headers.set('x-sim-reason', `fault:${rule.id}`);
      return res;
    }
    if (e.http !== undefined) {
      const body = e.http.body;
      const headers = new Headers(e.http.headers ?? {});
      if (!headers.has('x-sim-reason')) headers.set('x-sim-reason', `fault:${rule.id}`);
      if (body !== undefined && typeof body !== 'string' && !headers.has('content-type')) {
        headers.set('content-type', 'application/json');
      }
      const text = body === undefined ? null : typeof body === 'string' ? body : JSON.stringify(body);
      return new Response(text, { status: e.http.status, headers });
    }
    return this.#connectionFault(c, e.connection as 'reset' | 'hang' | 'truncate', phase);
  }

  async #connectionFault(
    c: Context<SimEnv<S>>,
    kind: 'reset' | 'hang' | 'truncate',
    phase: 'before' | 'after',
  ) {
    const incoming = c.env?.incoming;
    const outgoing = c.env?.outgoing;
    if (!incoming || !outgoing) throw new SimulatedConnectionFault(kind);
    this.#answeredOnSocket.add(c);
    const socket = incoming.socket;
    if (kind === 'reset') {
      socket.resetAndDestroy?.() ?? socket.destroy();
    } else if (kind === 'hang') {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.hangLimit);
        socket.once('close', () => {
          clearTimeout(timer);
          resolve();
        });
      });
      socket.destroy();
    } else {
      // Headers promise a body that never fully arrives: clients see a premature close mid-body.
      const full =
        phase === 'after' && c.res.body
          ? await c.res.clone().text()
          : JSON.stringify({ truncated: true, padding: 'x'.repeat(64) });
      const bytes = Buffer.from(full);
      const headers: Record<string, string> = {
        'content-type': c.res.headers.get('content-type') ?? 'application/json',
        'content-length': String(bytes.length),
      };
      outgoing.writeHead(phase === 'after' ? c.res.status : 200, headers);
      outgoing.write(bytes.subarray(0, Math.max(1, Math.floor(bytes.length / 2))), () => socket.destroy());
    }
    return RESPONSE_ALREADY_SENT;
  }
}
