import {
  type ControlTools,
  type FaultErrorEffect,
  parseInput,
  type SimEnv,
  SimInputError,
  type SimulatorDefinition,
  type World,
  type WorldCore,
} from '@sims/sim-core';
import type { Context, Hono } from 'hono';
import * as z from 'zod';
// Only `version` is bundled (esbuild keeps the JSON fields a named import uses).
import { version } from '../package.json';
import { ANNOTATION_BUDGET_KINDS } from './budget-kinds';
import { type ChangeDispatcher, type ChangeListener, createChangeDispatcher } from './changes-dispatch';
import { ANNOTATION_CONTROL_OPENAPI, registerAnnotationControlRoutes } from './control/annotations';
import { DELIVERY_CONTROL_OPENAPI, registerDeliveryControlRoutes } from './control/deliveries';
import { registerEventControlRoutes } from './control/events';
import { EVENTS_CONTROL_OPENAPI, REQUESTS_CONTROL_OPENAPI } from './control/events-openapi';
import { registerRequestControlRoutes } from './control/requests';
import { registerWebhookControlRoutes, WEBHOOK_CONTROL_OPENAPI } from './control/webhooks';
import { DEFAULT_EGRESS, type EgressSettings, egressSettingsOf } from './delivery/egress';
import { createDeliveryEngine, type DeliveryEngine, type DeliveryOptions } from './delivery/engine';
import { syncDeliveryRows } from './delivery/rows-budget';
import { createHttpSender, createWorkerSender, type WebhookSender } from './delivery/sender';
import { releaseExportJobsBudget } from './domain/events/export-budget';
import { exportJobs } from './domain/events/export-work';
import {
  createEventsState,
  EVENTS_EXTENSION,
  type EventsSnapshot,
  type EventsState,
  eventsOf,
  exportEventsState,
  importEventsState,
} from './domain/events/state';
import { releaseEventsBudget } from './domain/events/store-budget';
import { annotationEffects } from './domain/fault-effects';
import { releaseRequestsBudget } from './domain/requests/budget';
import { REQUEST_WORK } from './domain/requests/lifecycle';
import { requestHooks } from './domain/requests/runners';
import {
  createRequestsState,
  exportRequestsState,
  importRequestsState,
  REQUESTS_EXTENSION,
  type RequestsSnapshot,
  type RequestsState,
  requestsOf,
} from './domain/requests/state';
import { addUser, applySeed } from './domain/seed';
import { seedSchema } from './domain/seed-schema';
import {
  checkDataSnapshot,
  checkEventsPart,
  checkRequestsPart,
  readSnapshot,
  within,
} from './domain/snapshot';
import {
  type AnnotationState,
  type Compat,
  createAnnotationState,
  exportData,
  importData,
} from './domain/state';
import { keptAsBytes } from './http/api';
import {
  DJANGO_400_PAGE,
  DJANGO_404_PAGE,
  DJANGO_500_PAGE,
  djangoErrorResponse,
  renderApiError,
  renderFaultError,
} from './http/respond';

export const SIMULATOR_NAME = 'annotation-sim';
/** The package's version (changesets bumps it), in the CLI's ready line and `--version`. */
export const SIMULATOR_VERSION: string = version;
const DELIVERY = 'delivery';

/** A per-world extension (such as the events API's state): created with the world, kept in snapshots. */
export interface StateExtension {
  name: string;
  create(world: WorldCore, state: AnnotationState): unknown;
  export?(value: unknown): unknown;
  /**
   * Reads the extension's part of a snapshot, found at `path`, changing nothing: what it returns is what
   * `import` is given. Throws SimInputError with the path. An import is checked whole before anything
   * is replaced, so an `import` without a `check` must not throw.
   */
  check?(snapshot: unknown, path: (string | number)[]): unknown;
  /** The extension's value from its (checked) part of a snapshot; a part left out makes a new one. */
  import?(snapshot: unknown, world: WorldCore, state: AnnotationState): unknown;
  /**
   * Lets go of a value a snapshot replaces (what it counted in the memory budget). What it armed on the
   * world's timers is dropped when `importState` re-arms each kind of work from the new state.
   */
  release?(value: unknown, world: WorldCore): void;
}

export interface DefinitionOptions {
  /** The seeded superuser (default admin/admin); false for none. */
  admin?: { username?: string; password?: string; email?: string } | false;
  delivery?: DeliveryOptions;
  sender?: WebhookSender;
  /** Base URL for `url` fields before the first request arrives. */
  publicUrl?: string;
  /** More per-world state, besides the events API's (always there). */
  extensions?: StateExtension[];
  /** Compatibility switches of the representations (default: all off, CVAT 2.73). */
  compat?: Partial<Compat>;
  /** Listeners called for every change in every world, after webhooks and the server-event log. */
  listeners?: ChangeListener[];
}

/**
 * A world's delivery engine, made on first use: until then its slot holds the function that makes it, so
 * a namespace that never sends a webhook has no engine (no queues, journal, timers or thread lane).
 */
export function deliveryOf(state: AnnotationState): DeliveryEngine {
  const slot = state.extensions.get(DELIVERY) as DeliveryEngine | (() => DeliveryEngine);
  if (typeof slot !== 'function') return slot;
  const engine = slot();
  state.extensions.set(DELIVERY, engine);
  return engine;
}

/** The world's delivery engine if it was made, without making it. */
export function deliveryIfMade(state: AnnotationState): DeliveryEngine | undefined {
  const slot = state.extensions.get(DELIVERY);
  return typeof slot === 'function' ? undefined : (slot as DeliveryEngine | undefined);
}

/** Whether two egress settings are the same (policy and allow list, in order). */
function sameEgress(a: EgressSettings, b: EgressSettings): boolean {
  return (
    a.policy === b.policy && a.allow.length === b.allow.length && a.allow.every((x, i) => x === b.allow[i])
  );
}

const STATUS_BY_NAME: Record<string, number> = {
  INVALID: 400,
  BAD_REQUEST: 400,
  NOT_AUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  BUSY: 409,
  THROTTLED: 429,
  SERVER_ERROR: 500,
  UNAVAILABLE: 503,
};

/** The events API's state: a part of every world, kept in snapshots. */
const EVENTS_STATE: StateExtension = {
  name: EVENTS_EXTENSION,
  create: (world) => createEventsState({}, world.budget),
  export: (value) => exportEventsState(value as EventsState),
  check: checkEventsPart,
  import: (snapshot, world) => importEventsState(snapshot as EventsSnapshot, world.budget),
  release(_value, world) {
    releaseEventsBudget(world.budget);
    releaseExportJobsBudget(world.budget);
  },
};

/**
 * The background requests (`/api/requests`): a part of every world, kept in snapshots. Their work runs
 * on the world's state, the changes it makes go to `changes`, completion webhooks through the world's
 * delivery engine.
 */
function requestsState(changes: ChangeDispatcher): StateExtension {
  const hooksOf = (state: AnnotationState) =>
    requestHooks(
      state,
      () => requestsOf(state),
      (webhookId, payload) => deliveryOf(state).enqueue(webhookId, payload),
      (made) => changes.dispatch(state, made),
    );
  return {
    name: REQUESTS_EXTENSION,
    create: (world, state) => createRequestsState(() => hooksOf(state), {}, world.budget),
    export: (value) => exportRequestsState(value as RequestsState),
    check: checkRequestsPart,
    import: (snapshot, world, state) =>
      importRequestsState(snapshot as RequestsSnapshot, hooksOf(state), world.budget),
    release(_value, world) {
      releaseRequestsBudget(world.budget);
    },
  };
}

/**
 * The annotation simulator as the kernel sees it: state, seed, snapshots, CVAT's error envelope and
 * the receiver-side delivery faults.
 */
export function createAnnotationDefinition(
  options: DefinitionOptions = {},
): SimulatorDefinition<AnnotationState> & {
  knownRoutes: { method: string; re: RegExp }[];
  /** The 501 of CVAT's operations no row answers (`http/unsimulated.ts`), set by the app once its rows are. */
  unsimulated: { answer?: (c: Context) => Promise<Response> | undefined };
  /** Hands the changes a request or a worker made to webhooks, the server-event log and `listeners`. */
  changes: ChangeDispatcher;
} {
  const sender =
    options.sender ?? (options.delivery?.thread === 'main' ? createHttpSender() : createWorkerSender());
  // An injected sender stands for the network: without a resolver of its own, host names are not
  // resolved (no DNS query behind the embedder's back), only judged by name.
  const delivery: DeliveryOptions | undefined =
    options.sender && options.delivery?.resolve === undefined
      ? { ...options.delivery, resolve: false }
      : options.delivery;
  const changes = createChangeDispatcher({ delivery: deliveryOf, listeners: options.listeners });
  const extensions = [EVENTS_STATE, requestsState(changes), ...(options.extensions ?? [])];
  const extensionNames = extensions.map((e) => e.name);
  // Checked once, here: every engine, made on first use, starts with these egress settings.
  const startEgress = egressSettingsOf(delivery?.egress, DEFAULT_EGRESS);
  const initialEgress = () => ({ policy: startEgress.policy, allow: [...startEgress.allow] });
  const knownRoutes: { method: string; re: RegExp }[] = [];
  const unsimulated: { answer?: (c: Context) => Promise<Response> | undefined } = {};

  function createState(world: WorldCore): AnnotationState {
    const state = createAnnotationState(options.publicUrl ?? 'http://localhost:8086');
    state.compat = { taskSegments: options.compat?.taskSegments ?? false };
    if (options.admin !== false) {
      const admin = options.admin ?? {};
      addUser(state, world.clock.now(), {
        username: admin.username ?? 'admin',
        password: admin.password ?? 'admin',
        email: admin.email ?? 'admin@localhost',
        first_name: '',
        last_name: '',
        privilege: 'admin',
        is_superuser: true,
        is_active: true,
      });
    }
    state.extensions.set(DELIVERY, () => createDeliveryEngine(world, () => state, sender, delivery));
    for (const ext of extensions) state.extensions.set(ext.name, ext.create(world, state));
    return state;
  }

  const def = {
    name: SIMULATOR_NAME,
    version: SIMULATOR_VERSION,
    knownRoutes,
    unsimulated,
    changes,
    createState,
    budgetKinds: ANNOTATION_BUDGET_KINDS,
    disposeState(state: AnnotationState) {
      const made = deliveryIfMade(state);
      if (made) made.dispose();
      else {
        // A change that lands after the namespace went (a request still in flight) may make the engine
        // yet: it is made disposed, so its deliveries are dropped as a disposed engine drops them.
        const make = state.extensions.get(DELIVERY) as (() => DeliveryEngine) | undefined;
        if (make)
          state.extensions.set(DELIVERY, () => {
            const engine = make();
            engine.dispose();
            return engine;
          });
      }
    },
    exportState(world: World<AnnotationState>) {
      const ext: Record<string, unknown> = {};
      for (const e of extensions) if (e.export) ext[e.name] = e.export(world.state.extensions.get(e.name));
      return {
        ...exportData(world.state),
        extensions: ext,
        delivery: { egress: deliveryIfMade(world.state)?.egress() ?? initialEgress() },
      };
    },
    importState(world: World<AnnotationState>, snapshot: unknown) {
      // Everything is read and checked before anything is replaced (domain/snapshot.ts): a refused
      // import leaves the world as it was.
      const checked = readSnapshot(() => {
        const data = checkDataSnapshot(snapshot, extensionNames);
        // Settings left out are those a new world starts with, as every other part left out.
        const egress = within(['state', 'delivery'], () =>
          egressSettingsOf(data.delivery?.egress, initialEgress()),
        );
        const parts = extensions.map((e) => {
          const part = data.extensions?.[e.name];
          return part === undefined || !e.check ? part : e.check(part, ['state', 'extensions', e.name]);
        });
        return { data, egress, parts };
      });
      if (!checked.ok) throw new SimInputError(checked.error.message, checked.error.path);
      const { data, egress, parts } = checked.value;
      importData(world.state, data);
      syncDeliveryRows(world.budget, world.state);
      // An engine not made yet is made only for settings other than those it would start with.
      const made = deliveryIfMade(world.state);
      if (made) made.configureEgress(egress);
      else if (!sameEgress(egress, startEgress)) deliveryOf(world.state).configureEgress(egress);
      extensions.forEach((e, i) => {
        if (!e.import) return;
        e.release?.(world.state.extensions.get(e.name), world);
        const part = parts[i];
        world.state.extensions.set(
          e.name,
          part === undefined ? e.create(world, world.state) : e.import(part, world, world.state),
        );
      });
      // The imported work goes back on the clock (what the replaced records armed is dropped).
      world.timers.rearm(exportJobs(eventsOf));
      world.timers.rearm(REQUEST_WORK);
    },
    seed(world: World<AnnotationState>, input: unknown) {
      const parsed = parseInput(seedSchema(), input ?? {}, 'seed');
      const seeded = applySeed(world.state, parsed, world.clock.now(), (n) => world.ids.hex(n));
      if (!seeded.ok) {
        const { message, path } = seeded.error;
        throw new SimInputError(`seed.${path.join('.')}: ${message}`, ['seed', ...path]);
      }
      return seeded.value;
    },
    errorEffect: () =>
      z
        .object({
          status: z.union([
            z.number().int().min(400).max(599),
            z.enum(Object.keys(STATUS_BY_NAME) as [string, ...string[]]),
          ]),
          message: z.string().optional(),
        })
        .strict(),
    renderFaultError(c: Context, error: FaultErrorEffect) {
      const status = typeof error.status === 'number' ? error.status : (STATUS_BY_NAME[error.status] ?? 500);
      return renderFaultError(c, status, error.message);
    },
    domainEffects: annotationEffects.schemas,
    controlOpenApiPaths: {
      ...DELIVERY_CONTROL_OPENAPI,
      ...WEBHOOK_CONTROL_OPENAPI,
      ...EVENTS_CONTROL_OPENAPI,
      ...REQUESTS_CONTROL_OPENAPI,
      ...ANNOTATION_CONTROL_OPENAPI,
    },
    // The dashboard's browser code (packages/dashboard), read on the first request for /_sim/ui/.
    dashboard: () => import('./ui/dashboard.generated').then((m) => m.dashboardAssets),
    controlRoutes(control: Hono<SimEnv<AnnotationState>>, tools: ControlTools<AnnotationState>) {
      registerDeliveryControlRoutes(
        control,
        {
          of: deliveryOf,
          ifMade: deliveryIfMade,
          initialSettings: () => ({ egress: initialEgress() }),
        },
        tools.world,
      );
      registerWebhookControlRoutes(control, deliveryOf, tools.world);
      registerEventControlRoutes(control, tools.world, eventsOf);
      registerRequestControlRoutes(control, tools.world);
      registerAnnotationControlRoutes(control, tools.world);
    },
    renderNotFound(c: Context) {
      const refused = unsimulated.answer?.(c);
      if (refused) return refused;
      const path = c.req.path.replace(/^\/_ns\/[^/]+/, '');
      if (knownRoutes.some((r) => r.re.test(path))) {
        return renderApiError(c, { code: 'METHOD_NOT_ALLOWED', method: c.req.method });
      }
      return djangoErrorResponse(c, 404, DJANGO_404_PAGE);
    },
    renderInternalError(c: Context, error: unknown) {
      console.error('annotation-sim: unhandled error', error);
      return djangoErrorResponse(c, 500, DJANGO_500_PAGE);
    },
    sensitiveHeaders: ['x-csrftoken'],
    // CVAT's login answers its token as `{"key": "…"}`: the journal shows it redacted.
    sensitiveFields: ['key'],
    // CVAT bounds a request body held in memory by DATA_UPLOAD_MAX_MEMORY_SIZE (100 MB, cvat/settings/base.py);
    // Python's json module gives up past its recursion limit (1000 frames) with a RecursionError.
    // Chosen: JSON bodies parsed within 16 MiB and a million values (sim-core http/json-budget.ts: ~130
    // MB at most, a 256 MB heap survives any body); files (multipart, TUS) keep the 100 MiB, as bytes.
    limits: {
      maxBodyBytes: 100 * 1024 * 1024,
      maxJsonDepth: 1000,
      maxJsonBytes: 16 * 1024 * 1024,
      maxJsonValues: 1_000_000,
      bytesBodies: keptAsBytes,
    },
    renderPayloadTooLarge(c: Context) {
      // Django's RequestDataTooBig is a SuspiciousOperation: its default 400 page.
      return djangoErrorResponse(c, 400, DJANGO_400_PAGE, { 'X-Sim-Reason': 'request-body-too-large' });
    },
  } satisfies SimulatorDefinition<AnnotationState> & {
    knownRoutes: unknown;
    unsimulated: unknown;
    changes: ChangeDispatcher;
  };
  return def;
}
