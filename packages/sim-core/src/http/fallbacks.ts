import type { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { SimulatorDefinition } from '../definition';
import { SimInputError } from '../duration';
import { NamespaceLimitError } from '../world';
import { SimulatedConnectionFault } from './fault-phases';
import type { SimEnv } from './request-context';
import { controlError } from './responses';

/** A path under /_sim is the control plane's: its own envelope, whatever the emulated API answers. */
const CONTROL_PATH = /^(\/_ns\/[^/]+)?\/_sim(\/|$)/;

/**
 * The answers for a request no route takes and for an error a handler throws: the emulated API's own
 * (`renderNotFound`, `renderInternalError`) where the simulator has them, else the control plane's
 * envelope. Input errors are 400s, a namespace past the limit 507; connection faults go on to the server.
 */
export function installFallbacks<S>(app: Hono<SimEnv<S>>, def: SimulatorDefinition<S>): void {
  app.notFound((c) =>
    def.renderNotFound && !CONTROL_PATH.test(c.req.path)
      ? def.renderNotFound(c)
      : controlError(c, 404, `no route for ${c.req.method} ${c.req.path}`),
  );
  app.onError((err, c) => {
    if (err instanceof SimulatedConnectionFault) throw err;
    if (err instanceof HTTPException) return err.getResponse();
    if (err instanceof SimInputError) return controlError(c, 400, err.message, err.path);
    if (err instanceof NamespaceLimitError) return controlError(c, 507, err.message);
    if (def.renderInternalError) return def.renderInternalError(c, err);
    console.error(err);
    return controlError(c, 500, 'internal error in the simulator');
  });
}
