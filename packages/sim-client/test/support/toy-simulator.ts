import {
  createSimKernel,
  type KernelOptions,
  parseInput,
  type SimEnv,
  SimInputError,
  type SimulatorDefinition,
  serve,
} from '@sims/sim-core';
import type { Context } from 'hono';
import * as z from 'zod';

/**
 * A tiny simulator on the real kernel (widgets with a slow "paint"), served over HTTP on 127.0.0.1,
 * so the client is tested against the real control plane and not against a mock of it.
 */
interface ToyState {
  widgets: Map<string, { name: string; color: string }>;
}

const widgetSchema = z.object({ name: z.string().min(1), color: z.string() }).strict();
const seedSchema = z.object({ widgets: z.array(widgetSchema) }).strict();

const toyDefinition: SimulatorDefinition<ToyState> = {
  name: 'toy-sim',
  version: '0.0.0',
  createState: () => ({ widgets: new Map() }),
  exportState: (w) => ({ widgets: [...w.state.widgets.values()] }),
  importState(w, snapshot) {
    const s = parseInput(seedSchema, snapshot, 'state');
    w.state = { widgets: new Map(s.widgets.map((x) => [x.name, x])) };
  },
  seed(w, input) {
    const s = parseInput(seedSchema, input);
    for (const x of s.widgets) {
      if (w.state.widgets.has(x.name)) throw new SimInputError(`widget "${x.name}" exists`, ['widgets']);
    }
    for (const x of s.widgets) w.state.widgets.set(x.name, { ...x });
    return { widgets: s.widgets.map((x) => x.name) };
  },
  renderFaultError: (c, error) => c.json({ fault: error.status, message: error.message ?? 'injected' }, 503),
  domainEffects: { paintFails: z.object({ reason: z.string() }).strict() },
  // A simulator-specific control route, reached through the client's generic request().
  controlRoutes(control) {
    control.get('/widgets/kinds', (c) => c.json({ kinds: ['round', 'square'] }));
    control.post('/widgets/:name/repaint', async (c) => {
      const body = (await c.req.json()) as { color?: string };
      return c.json({ name: c.req.param('name'), color: body.color ?? 'grey' }, 202);
    });
  },
  renderNotFound: (c) => c.json({ toyError: 'no such route' }, 404),
};

function createToySim(options: KernelOptions = {}) {
  const kernel = createSimKernel(toyDefinition, options);
  const { app, operation } = kernel;
  const widget = (c: Context<SimEnv<ToyState>>) => `widgets/${c.req.param('name')}`;
  app.get('/widgets/:name', operation('widgets.get', widget), (c) => {
    const w = c.var.sim.world.state.widgets.get(c.req.param('name'));
    return w ? c.json(w) : c.json({ toyError: 'not found' }, 404);
  });
  app.post('/widgets', operation('widgets.create'), (c) => {
    const sim = c.var.sim;
    const body = (sim.json ?? {}) as { name?: string; color?: string };
    const created = { name: body.name ?? 'unnamed', color: body.color ?? 'grey' };
    sim.world.state.widgets.set(created.name, created);
    return c.json(created, 201);
  });
  app.post('/widgets/:name/paint', operation('widgets.paint', widget), (c) => {
    const sim = c.var.sim;
    const fails = sim.takeEffect<{ reason: string }>('paintFails');
    if (fails) return c.json({ toyError: fails.reason }, 500);
    return c.json({ painting: true }, 202);
  });
  return kernel;
}

/** Starts the toy simulator on a free port of 127.0.0.1. */
export async function startToySim(options: KernelOptions = {}) {
  const kernel = createToySim({
    seed: 1,
    clock: { mode: 'manual', start: '2026-01-01T00:00:00.000Z' },
    ...options,
  });
  const server = await serve(kernel.app, { port: 0 });
  return {
    url: server.url,
    kernel,
    async close() {
      await server.close();
      kernel.close();
    },
  };
}
