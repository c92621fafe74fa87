import { CVAT_OPERATIONS, type CvatOperation } from '@sims/annotation-schema';
import { routeEntries } from '@sims/sim-core';
import type { Context, Handler } from 'hono';
import { type ApiRequest, api, type RouteDeps } from './api';
import { journalOperation, rowOperations } from './cvat-operations';
import type { Kernel } from './deps';
import { cvatJson, renderApiError } from './respond';
import type { RouteRow } from './route-table';

/**
 * Every operation of CVAT's OpenAPI schema that no route row answers is refused with a 501 naming it
 * (docs/decisions/0018), not Django's 404 page, which a client reads as "this task does not exist".
 * Paths that are no operation of CVAT's keep the kernel's fallbacks (Django's 404, DRF's 405).
 */

/**
 * Operations CVAT serves to anyone although the schema's `security` lists credentials: the schema document
 * (CVAT's test_server.py, `test_can_get_schema_unauthenticated`).
 */
const ANYONE_MAY_CALL = new Set(['schema_retrieve']);

/**
 * A CVAT path its schema leaves out that clients call: django-health-check's page (`cvat/urls.py`,
 * `api/server/health/`), which readiness probes poll. A plain Django view (no DRF negotiation, no
 * credentials): refused with the same 501 under this name; the simulator's own readiness is
 * `GET /_sim/health`.
 */
const HEALTH_CHECK: CvatOperation = {
  operationId: 'server_health_check',
  method: 'get',
  path: '/api/server/health/',
  summary: "django-health-check's page (not in CVAT's schema)",
  anonymous: true,
};

interface Candidate {
  re: RegExp;
  op: CvatOperation;
  /** Literal segments: `/api/users/self` is tried before `/api/users/{id}`. */
  literals: number;
}

/** The operations no row answers, by method, each path template a regular expression. */
function buildMatcher(rows: readonly RouteRow[]): Map<string, Candidate[]> {
  const routed = rowOperations(routeEntries(rows));
  const byMethod = new Map<string, Candidate[]>();
  for (const op of [...CVAT_OPERATIONS, HEALTH_CHECK]) {
    if (routed.has(op.operationId)) continue;
    const trailing = op.path.endsWith('/');
    const body = (trailing ? op.path.slice(0, -1) : op.path)
      .split('/')
      .map((s) => (s.startsWith('{') ? '[^/]+' : s.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&')))
      .join('/');
    const re = new RegExp(`^${body}${trailing ? '/?' : ''}$`);
    const literals = op.path.split('/').filter((s) => s !== '' && !s.startsWith('{')).length;
    const list = byMethod.get(op.method) ?? [];
    list.push({ re, op, literals });
    byMethod.set(op.method, list);
  }
  for (const list of byMethod.values()) list.sort((a, b) => b.literals - a.literals);
  return byMethod;
}

/** The 501 of an operation the simulator does not simulate: DRF's `{"detail": …}` naming it. */
function refuse(c: Context, op: CvatOperation): Response {
  const detail =
    `${op.operationId} (${op.method.toUpperCase()} ${op.path}) is not simulated by annotation-sim, so the ` +
    `request is refused rather than answered wrongly. See annotation-sim's FIDELITY.md.`;
  return cvatJson(c, { detail }, 501, { 'X-Sim-Reason': `not-simulated: ${op.operationId}` });
}

/**
 * The answer of the operations no row answers, for the kernel's unmatched-route fallback (Hono reaches
 * it only for a request no row took; a catch-all route would cost the whole app its RegExpRouter,
 * docs/decisions/0008). It matches the request against those operations (the matcher is built on the
 * first such request); a match runs as a row would: journaled and matched by fault rules under its name,
 * behind the `api()` wrapper (CVAT's Accept negotiation, then credentials unless anyone may call the
 * operation), then the 501. Another method of such an operation's path is DRF's 405; anything else is
 * undefined: the kernel's fallbacks (Django's 404, the 405 of a row's path).
 */
export function unsimulatedFallback(
  kernel: Kernel,
  deps: RouteDeps,
  rows: readonly RouteRow[],
): (c: Context) => Promise<Response> | undefined {
  let matcher: Map<string, Candidate[]> | undefined;
  const chains = new Map<CvatOperation, { named: ReturnType<Kernel['operation']>; handle: Handler }>();
  const chainOf = (op: CvatOperation) => {
    let chain = chains.get(op);
    if (!chain) {
      chain = {
        named: kernel.operation(journalOperation(op.operationId)),
        handle:
          op === HEALTH_CHECK
            ? (c) => refuse(c, op)
            : api(deps, (r: ApiRequest) => refuse(r.c, op), {
                anonymous: op.anonymous || ANYONE_MAY_CALL.has(op.operationId),
              }),
      };
      chains.set(op, chain);
    }
    return chain;
  };
  const none = async () => {};
  return (c) => {
    matcher ??= buildMatcher(rows);
    const method = c.req.method === 'HEAD' ? 'get' : c.req.method.toLowerCase();
    const path = c.req.path.replace(/^\/_ns\/[^/]+/, '');
    const op = matcher.get(method)?.find((m) => m.re.test(path))?.op;
    if (!op) {
      // A path of CVAT's with another method: DRF's 405, as the kernel answers a row's path.
      const known = [...matcher.values()].some((list) =>
        list.some((m) => m.op !== HEALTH_CHECK && m.re.test(path)),
      );
      return known
        ? Promise.resolve(renderApiError(c, { code: 'METHOD_NOT_ALLOWED', method: c.req.method }))
        : undefined;
    }
    const { named, handle } = chainOf(op);
    // The operation's middleware answers a fault rule itself, else runs the view: either sets `c.res`.
    return (async () => {
      await named(c as never, async () => {
        c.res = (await handle(c, none)) as Response;
      });
      return c.res;
    })();
  };
}
