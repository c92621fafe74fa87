import type { SimEnv, World } from '@sims/sim-core';
import type { Context } from 'hono';
import { isAdmin, roleIn } from './domain/access';
import type { ChangeListener } from './domain/changes';
import type { EventsCaller } from './domain/events/export';
import { serverEventRecords } from './domain/events/server-events';
import {
  createEventsState,
  EVENTS_EXTENSION,
  type EventsState,
  exportEventsState,
  importEventsState,
  recordEvents,
} from './domain/events/state';
import type { IdFilter } from './domain/events/store';
import type { AnnotationState } from './domain/state';
import { type ApiRequest, api } from './http/api';
import type { AppDeps } from './http/deps';
import type { EventsDeps } from './http/events/deps';
import { renderApiError } from './http/respond';
import type { StateExtension } from './simulator';

/**
 * Glue between the resource layer (issue 4) and the events API (issue 5): the events state as a
 * per-world extension, server events recorded from every resource change, and the caller identity
 * (authentication + organization context) the events routes ask for.
 */
export function createEventsBridge() {
  const extensions: StateExtension[] = [
    {
      name: EVENTS_EXTENSION,
      create: () => createEventsState(),
      export: (value) => exportEventsState(value as EventsState),
      import: (snapshot, world) => importEventsState(snapshot, world.clock),
    },
  ];
  const listeners: ChangeListener[] = [
    (change, state) => {
      const events = state.extensions.get(EVENTS_EXTENSION) as EventsState | undefined;
      if (events) recordEvents(events, serverEventRecords(change, Date.parse(change.time)));
    },
  ];

  function deps(app: AppDeps): EventsDeps<AnnotationState> {
    return {
      events: (world) => world.state.extensions.get(EVENTS_EXTENSION) as EventsState,
      identify(c: Context<SimEnv<AnnotationState>>) {
        let caller: EventsCaller | undefined;
        const handler = api(app, (r: ApiRequest) => {
          const auth = r.auth();
          const ctx = r.orgContext();
          const u = auth.user;
          caller = {
            id: u.id,
            username: u.username,
            email: u.email,
            isAdmin: isAdmin(u),
            privilege: u.is_superuser ? 'admin' : u.privilege,
            org: ctx.org ? { id: ctx.org.id, slug: ctx.org.slug } : null,
            role: ctx.org ? roleIn(r.state, u.id, ctx.org.id) : null,
            accessTokenId: auth.accessTokenId ?? null,
          };
          return new Response(null, { status: 204 });
        });
        return Promise.resolve(handler(c as never, async () => {})).then((res) => {
          if (caller) return caller;
          return res instanceof Response
            ? res
            : renderApiError(c, { code: 'SERVER_ERROR', reason: 'identify failed' });
        });
      },
      minimalFrom(world: World<AnnotationState>, ids: Partial<Record<IdFilter, number>>) {
        const s = world.state;
        const date = (d: string | undefined) => (d === undefined ? undefined : Date.parse(d));
        const specific =
          (ids.job_id !== undefined ? date(s.jobs.get(ids.job_id)?.created_date) : undefined) ??
          (ids.task_id !== undefined ? date(s.tasks.get(ids.task_id)?.created_date) : undefined) ??
          (ids.project_id !== undefined ? date(s.projects.get(ids.project_id)?.created_date) : undefined);
        if (specific !== undefined) return specific;
        if (ids.org_id !== undefined) {
          const times = [
            date(s.organizations.get(ids.org_id)?.created_date),
            ...[...s.projects.values()]
              .filter((p) => p.organization_id === ids.org_id)
              .map((p) => date(p.created_date)),
            ...[...s.tasks.values()]
              .filter((t) => t.organization_id === ids.org_id)
              .map((t) => date(t.created_date)),
          ].filter((t): t is number => t !== undefined);
          if (times.length > 0) return Math.min(...times);
        }
        return 0;
      },
    };
  }

  return { extensions, listeners, deps };
}
