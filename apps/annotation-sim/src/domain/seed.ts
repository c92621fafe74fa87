import { lazy } from '@sims/sim-core';
import * as z from 'zod';
import { formatDrfDate } from './dates';
import type { UserRec } from './model';
import {
  attachTaskData,
  createInvitation,
  createOrganization,
  createProject,
  createTask,
  type MutationContext,
} from './resources';
import { type AnnotationState, nextId } from './state';
import { EVENT_KEYS } from './webhooks';

const label = () =>
  z.object({ name: z.string().min(1), color: z.string().optional(), type: z.string().optional() }).strict();

/**
 * The seed shape of `POST /_sim/seed` and scenario `seed:` (resources refer to each other by name).
 * Built on first use (docs/decisions/0009): a process that is never seeded never builds it.
 */
export const seedSchema = lazy(() =>
  z
    .object({
      users: z
        .array(
          z
            .object({
              username: z.string().regex(/^[\w.@+-]+$/),
              password: z.string().default('password'),
              email: z.string().optional(),
              first_name: z.string().default(''),
              last_name: z.string().default(''),
              privilege: z.enum(['admin', 'user', 'worker']).default('user'),
              is_superuser: z.boolean().optional(),
              is_active: z.boolean().default(true),
              /** A DRF token key (`Authorization: Token <key>`). */
              token: z.string().min(1).max(40).optional(),
              access_tokens: z
                .array(
                  z
                    .object({
                      key: z.string().min(1),
                      name: z.string().default('token'),
                      read_only: z.boolean().default(false),
                      expiry_date: z.string().nullable().default(null),
                    })
                    .strict(),
                )
                .default([]),
            })
            .strict(),
        )
        .default([]),
      organizations: z
        .array(
          z
            .object({
              slug: z
                .string()
                .regex(/^[-a-zA-Z0-9_]+$/)
                .max(16),
              name: z.string().default(''),
              owner: z.string(),
              members: z
                .array(
                  z
                    .object({ user: z.string(), role: z.enum(['worker', 'supervisor', 'maintainer']) })
                    .strict(),
                )
                .default([]),
              invitations: z
                .array(
                  z
                    .object({ user: z.string(), role: z.enum(['worker', 'supervisor', 'maintainer']) })
                    .strict(),
                )
                .default([]),
            })
            .strict(),
        )
        .default([]),
      projects: z
        .array(
          z
            .object({
              name: z.string().min(1),
              owner: z.string(),
              assignee: z.string().optional(),
              org: z.string().optional(),
              labels: z.array(label()).default([]),
            })
            .strict(),
        )
        .default([]),
      tasks: z
        .array(
          z
            .object({
              name: z.string().min(1),
              owner: z.string(),
              assignee: z.string().optional(),
              project: z.string().optional(),
              org: z.string().optional(),
              /** Frames of data: jobs are derived from size, segment_size and overlap. */
              size: z.number().int().min(0).default(0),
              segment_size: z.number().int().min(0).default(0),
              overlap: z.number().int().min(0).nullable().default(null),
              subset: z.string().default(''),
              labels: z.array(label()).default([]),
            })
            .strict(),
        )
        .default([]),
      webhooks: z
        .array(
          z
            .object({
              target_url: z.string().min(1),
              type: z.enum(['project', 'organization']),
              events: z.array(z.enum(EVENT_KEYS as [string, ...string[]])).default([]),
              owner: z.string(),
              project: z.string().optional(),
              org: z.string().optional(),
              secret: z.string().max(64).default(''),
              description: z.string().default(''),
              is_active: z.boolean().default(true),
              enable_ssl: z.boolean().default(true),
            })
            .strict(),
        )
        .default([]),
    })
    .strict(),
);

export type SeedInput = z.input<ReturnType<typeof seedSchema>>;

export class SeedError extends Error {
  constructor(
    message: string,
    readonly path: (string | number)[],
  ) {
    super(message);
  }
}

/** Adds a user record (no event: users have no webhook events). */
export function addUser(
  state: AnnotationState,
  now: number,
  u: Omit<UserRec, 'id' | 'date_joined' | 'last_login' | 'is_staff'> & { is_staff?: boolean },
): UserRec {
  const rec: UserRec = {
    ...u,
    id: nextId(state, 'users'),
    is_staff: u.is_staff ?? u.is_superuser,
    date_joined: formatDrfDate(now),
    last_login: null,
  };
  state.users.set(rec.id, rec);
  return rec;
}

/**
 * A table's records by name: built on first use (one pass over the table, which is made then, as a scan
 * would have made it) and kept as the seed adds to the table. A name means its first record, as a scan
 * found it.
 */
function nameIndex<T>(table: () => Iterable<T>, nameOf: (record: T) => string) {
  let byName: Map<string, T> | undefined;
  const built = () => {
    if (!byName) {
      byName = new Map();
      for (const r of table()) if (!byName.has(nameOf(r))) byName.set(nameOf(r), r);
    }
    return byName;
  };
  return {
    get: (name: string): T | undefined => built().get(name),
    /** A record just stored in the table (before the index is built, the build finds it). */
    added(record: T): void {
      if (byName && !byName.has(nameOf(record))) byName.set(nameOf(record), record);
    },
  };
}

/**
 * Seeds resources directly. Like CVAT's fixture loading (`post_save` with `raw=True`), seeding sends
 * no webhooks and records no events.
 */
export function applySeed(
  state: AnnotationState,
  input: z.output<ReturnType<typeof seedSchema>>,
  now: number,
  hex: (n: number) => string,
) {
  const out = {
    users: {} as Record<string, number>,
    organizations: {} as Record<string, number>,
    projects: {} as Record<string, number>,
    tasks: {} as Record<string, { id: number; jobs: number[] }>,
    webhooks: [] as number[],
  };
  const emit = state.emit;
  state.emit = () => {};
  try {
    const ctx: MutationContext = { state, now, actor: null, hex, silent: true };
    // Names to records, found once and kept as the seed adds to them (a scan of the table per reference
    // made a seed quadratic). The first record of a name is the one a name means, as a scan found it.
    const users = nameIndex(
      () => state.users.values(),
      (u) => u.username,
    );
    const organizations = nameIndex(
      () => state.organizations.values(),
      (o) => o.slug,
    );
    const projects = nameIndex(
      () => state.projects.values(),
      (p) => p.name,
    );
    const userId = (name: string, path: (string | number)[]) => {
      const u = users.get(name);
      if (!u) throw new SeedError(`unknown user "${name}"`, path);
      return u.id;
    };
    const orgId = (slug: string | undefined, path: (string | number)[]) => {
      if (slug === undefined) return null;
      const o = organizations.get(slug);
      if (!o) throw new SeedError(`unknown organization "${slug}"`, path);
      return o.id;
    };
    const projectOf = (name: string | undefined, path: (string | number)[]) => {
      if (name === undefined) return undefined;
      const p = projects.get(name);
      if (!p) throw new SeedError(`unknown project "${name}"`, path);
      return p;
    };
    input.users.forEach((u, i) => {
      if (users.get(u.username)) throw new SeedError(`user "${u.username}" exists`, ['users', i, 'username']);
      const rec = addUser(state, now, {
        username: u.username,
        password: u.password,
        email: u.email ?? `${u.username}@example.com`,
        first_name: u.first_name,
        last_name: u.last_name,
        privilege: u.is_superuser ? 'admin' : u.privilege,
        is_superuser: u.is_superuser ?? u.privilege === 'admin',
        is_active: u.is_active,
      });
      users.added(rec);
      if (u.token) state.tokens.set(u.token, rec.id);
      for (const t of u.access_tokens) {
        state.accessTokens.set(t.key, {
          id: nextId(state, 'accessTokens'),
          key: t.key,
          user_id: rec.id,
          name: t.name,
          read_only: t.read_only,
          expiry_date: t.expiry_date,
        });
      }
      out.users[u.username] = rec.id;
    });
    input.organizations.forEach((o, i) => {
      if (organizations.get(o.slug))
        throw new SeedError(`organization "${o.slug}" exists`, ['organizations', i, 'slug']);
      const org = createOrganization(ctx, userId(o.owner, ['organizations', i, 'owner']), {
        slug: o.slug,
        name: o.name,
      });
      organizations.added(org);
      o.members.forEach((m, j) => {
        const id = userId(m.user, ['organizations', i, 'members', j, 'user']);
        state.memberships.set(nextId(state, 'memberships'), {
          id: state.seq.memberships as number,
          user_id: id,
          organization_id: org.id,
          is_active: true,
          joined_date: formatDrfDate(now),
          role: m.role,
        });
      });
      o.invitations.forEach((m, j) => {
        createInvitation(
          ctx,
          org.id,
          userId(m.user, ['organizations', i, 'invitations', j, 'user']),
          m.role,
          org.owner_id as number,
        );
      });
      out.organizations[o.slug] = org.id;
    });
    input.projects.forEach((p, i) => {
      const rec = createProject(ctx, {
        name: p.name,
        owner_id: userId(p.owner, ['projects', i, 'owner']),
        assignee_id: p.assignee ? userId(p.assignee, ['projects', i, 'assignee']) : null,
        organization_id: orgId(p.org, ['projects', i, 'org']),
        labels: p.labels,
      });
      projects.added(rec);
      out.projects[p.name] = rec.id;
    });
    input.tasks.forEach((t, i) => {
      const project = projectOf(t.project, ['tasks', i, 'project']);
      const task = createTask(ctx, {
        name: t.name,
        project_id: project?.id ?? null,
        owner_id: userId(t.owner, ['tasks', i, 'owner']),
        assignee_id: t.assignee ? userId(t.assignee, ['tasks', i, 'assignee']) : null,
        organization_id: project ? project.organization_id : orgId(t.org, ['tasks', i, 'org']),
        overlap: t.overlap,
        segment_size: t.segment_size,
        subset: t.subset,
        labels: t.labels,
      });
      const jobs = t.size > 0 ? attachTaskData(ctx, task, { size: t.size }).map((j) => j.id) : [];
      out.tasks[t.name] = { id: task.id, jobs };
    });
    input.webhooks.forEach((w, i) => {
      const project = projectOf(w.project, ['webhooks', i, 'project']);
      if (w.type === 'project' && !project)
        throw new SeedError('a project webhook needs "project"', ['webhooks', i, 'project']);
      const organizationId = project ? project.organization_id : orgId(w.org, ['webhooks', i, 'org']);
      if (w.type === 'organization' && organizationId === null)
        throw new SeedError('an organization webhook needs "org"', ['webhooks', i, 'org']);
      const id = nextId(state, 'webhooks');
      state.webhooks.set(id, {
        id,
        target_url: w.target_url,
        description: w.description,
        events: [...new Set(w.events)].sort(),
        type: w.type,
        content_type: 'application/json',
        secret: w.secret,
        is_active: w.is_active,
        enable_ssl: w.enable_ssl,
        owner_id: userId(w.owner, ['webhooks', i, 'owner']),
        project_id: project?.id ?? null,
        organization_id: organizationId,
        created_date: formatDrfDate(now),
        updated_date: formatDrfDate(now),
      });
      out.webhooks.push(id);
    });
  } finally {
    state.emit = emit;
  }
  return out;
}
