/**
 * Where a resource change goes once the domain has made it. A domain mutation appends the change to its
 * context's list (`MutationContext.changes`, domain/mutation.ts) and knows nothing of who listens; the
 * edge hands the list here when the domain call returns: `api()` (http/api.ts) for an API request, the
 * request runner (domain/requests/runners.ts, wired in definition.ts) for a worker's changes. Each
 * change, in the order made, goes to the world's subscribers ({@link ChangeDispatcher.subscribe}), then
 * to webhooks (one delivery per matching active webhook), then to the events API's server-event log,
 * then to the embedder's `listeners` (docs/decisions/0023).
 */
import type { DeliveryEngine } from './delivery/engine';
import type { ResourceChange } from './domain/changes';
import { recordResourceChange } from './domain/events/server-events';
import { EVENTS_EXTENSION, eventsOf } from './domain/events/state';
import { createEventPayload, senderOf } from './domain/payloads';
import { basicUser } from './domain/serializers';
import type { AnnotationState } from './domain/state';
import { routeChange } from './domain/webhooks';

/** Called with each change a world's domain made, and that world's state. */
export type ChangeListener = (change: ResourceChange, state: AnnotationState) => void;

/** Hands changes on; made once per simulator definition ({@link createChangeDispatcher}). */
export interface ChangeDispatcher {
  /** Hands each change, in order, to every listener of `state`'s world. Listeners must not throw. */
  dispatch(state: AnnotationState, changes: readonly ResourceChange[]): void;
  /** Adds a listener of one world's changes (until that state is replaced); returns its removal. */
  subscribe(state: AnnotationState, listener: ChangeListener): () => void;
}

/**
 * The dispatcher of a simulator: webhooks through each world's delivery engine (made by the first
 * delivery), server events into each world's log, then `listeners` for every world.
 *
 * @example const changes = createChangeDispatcher({ delivery: deliveryOf }); changes.dispatch(state, ctx.changes)
 */
export function createChangeDispatcher(options: {
  delivery: (state: AnnotationState) => DeliveryEngine;
  listeners?: readonly ChangeListener[];
}): ChangeDispatcher {
  const routeWebhooks: ChangeListener = (change, state) => {
    const routes = routeChange(state, change);
    if (routes.length === 0) return;
    const sender = senderOf(change, (id) => basicUser(state, id));
    const engine = options.delivery(state);
    for (const { webhook, event } of routes) {
      engine.enqueue(webhook.id, createEventPayload(change, webhook.id, sender, event));
    }
  };
  const logServerEvents: ChangeListener = (change, state) => {
    // A state without the events API's part (one made by hand, as a test's) has no log to write to.
    if (change.logged !== false && state.extensions.has(EVENTS_EXTENSION))
      recordResourceChange(eventsOf(state), change, Date.parse(change.time));
  };
  const everyWorld = [routeWebhooks, logServerEvents, ...(options.listeners ?? [])];
  // Keyed by the state: a world's reset or import of a new state drops its subscribers with it.
  const subscribers = new WeakMap<AnnotationState, Set<ChangeListener>>();

  return {
    dispatch(state, changes) {
      for (const change of changes) {
        const own = subscribers.get(state);
        for (const listener of own === undefined ? everyWorld : [...own, ...everyWorld]) {
          try {
            listener(change, state);
          } catch (err) {
            console.error('annotation-sim: a change listener failed', err);
          }
        }
      }
    },
    subscribe(state, listener) {
      const set = subscribers.get(state) ?? new Set<ChangeListener>();
      subscribers.set(state, set);
      set.add(listener);
      return () => set.delete(listener);
    },
  };
}
