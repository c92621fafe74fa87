import type { Context } from 'hono';
import * as z from 'zod';
import type { SimulatorDefinition } from '../../src/definition';
import { SimInputError } from '../../src/duration';
import { defineDomainEffects } from '../../src/faults/domain-effects';
import { createSimKernel, type KernelOptions } from '../../src/http/kernel';
import type { SimEnv } from '../../src/http/request-context';
import { parseInput } from '../../src/validation';

/** The toy's domain fault effect: the next paint takes `by` instead of a second. */
const toyEffects = defineDomainEffects({ slowPaint: () => z.object({ by: z.string() }).strict() });

/** A tiny emulated API (widgets with a slow "paint" operation) used to exercise the kernel. */
export interface ToyState {
  widgets: Map<string, { name: string; color: string; painting?: boolean }>;
  nextWidget: number;
}

const seedSchema = z
  .object({ widgets: z.array(z.object({ name: z.string().min(1), color: z.string() }).strict()) })
  .strict();

export const toyDefinition: SimulatorDefinition<ToyState> = {
  name: 'toy-sim',
  version: '0.0.0',
  createState: () => ({ widgets: new Map(), nextWidget: 1 }),
  exportState: (w) => ({ widgets: [...w.state.widgets.values()], nextWidget: w.state.nextWidget }),
  importState(w, snapshot) {
    const s = parseInput(seedSchema.extend({ nextWidget: z.number().int() }), snapshot, 'state');
    w.state = { widgets: new Map(s.widgets.map((x) => [x.name, x])), nextWidget: s.nextWidget };
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
  domainEffects: toyEffects.schemas,
  renderNotFound: (c) => c.json({ toyError: 'no such route' }, 404),
  controlRoutes(control, tools) {
    // A simulator-specific control route: paint a widget instantly in the selected namespace.
    control.post('/widgets/:name/finish-paint', (c) => {
      const w = tools.world(c).state.widgets.get(c.req.param('name'));
      if (!w) return c.json({ error: { status: 404, message: 'no such widget' } }, 404);
      w.painting = false;
      return c.json(w);
    });
  },
};

export function createToySim(options: KernelOptions = {}) {
  const kernel = createSimKernel(toyDefinition, options);
  const { app, operation } = kernel;
  const widget = (c: Context<SimEnv<ToyState>>) => `widgets/${c.req.param('name')}`;
  app.get('/widgets/:name', operation('widgets.get', widget), (c) => {
    const w = c.var.sim.world.state.widgets.get(c.req.param('name'));
    return w ? c.json(w) : c.json({ toyError: 'not found' }, 404);
  });
  app.post('/widgets', operation('widgets.create'), (c) => {
    const sim = c.var.sim;
    if (sim.jsonError) return c.json({ toyError: 'bad json' }, 400);
    const body = sim.json as { name?: string; color?: string };
    const name = body.name ?? `w${sim.world.state.nextWidget++}`;
    const created = { name, color: body.color ?? 'grey' };
    sim.world.state.widgets.set(name, created);
    return c.json(created, 201);
  });
  app.post('/widgets/:name/paint', operation('widgets.paint', widget), (c) => {
    const sim = c.var.sim;
    const w = sim.world.state.widgets.get(c.req.param('name'));
    if (!w) return c.json({ toyError: 'not found' }, 404);
    const slow = toyEffects.takeEffect(sim, 'slowPaint');
    w.painting = true;
    sim.world.clock.after(slow?.by ?? '1s', () => {
      w.painting = false;
      w.color = (sim.json as { color: string }).color;
    });
    return c.json({ painting: true, id: sim.world.ids.hex(8) }, 202);
  });
  return kernel;
}
