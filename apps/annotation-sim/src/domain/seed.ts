import { seedTaskAnnotations } from './annotations/seed';
import { formatDrfDate } from './dates';
import { fail, ok, type Result } from './errors';
import type { LabelInput } from './labels';
import type { ProjectRec, UserRec } from './model';
import {
  attachTaskData,
  createInvitation,
  createOrganization,
  createProject,
  createTask,
  type MutationContext,
} from './resources';
import type { Seed } from './seed-schema';
import { type AnnotationState, nextId } from './state';

export type { SeedInput } from './seed-schema';

/** Why a seed was refused, and where in the seed (`['projects', 0, 'owner']`). */
interface SeedProblem {
  message: string;
  path: (string | number)[];
}

type SeedResult<T> = Result<T, SeedProblem>;

type SeedLabel = Seed['projects'][number]['labels'][number];

/** A seed's labels as the API would take them: names unique among their siblings, as CVAT requires. */
function seedLabels(labels: readonly SeedLabel[], path: (string | number)[]): SeedResult<LabelInput[]> {
  const unique = (names: string[], at: (string | number)[]) =>
    new Set(names).size === names.length
      ? ok(undefined)
      : fail({ message: 'All label names must be unique', path: at });
  const top = unique(
    labels.map((l) => l.name),
    path,
  );
  if (!top.ok) return top;
  for (const [i, l] of labels.entries()) {
    const points = unique(
      l.sublabels.map((s) => s.name),
      [...path, i, 'sublabels'],
    );
    if (!points.ok) return points;
  }
  return ok(
    labels.map((l) => ({
      ...l,
      sublabels: l.sublabels.map((s) => ({ ...s, sublabels: [] })),
    })),
  );
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

/** What a seed made: the ids of its records by name (`seeded` of `POST /_sim/seed`). */
interface Seeded {
  users: Record<string, number>;
  organizations: Record<string, number>;
  projects: Record<string, number>;
  tasks: Record<string, { id: number; jobs: number[] }>;
  webhooks: number[];
}

/**
 * The names a seed refers to, each looked up as a scan of its table found it (the first record of the
 * name), or the problem at `path`.
 */
function seedLookups(state: AnnotationState) {
  // Names to records, found once and kept as the seed adds to them (a scan of the table per reference
  // made a seed quadratic).
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
  const userId = (name: string, path: (string | number)[]): SeedResult<number> => {
    const u = users.get(name);
    return u ? ok(u.id) : fail({ message: `unknown user "${name}"`, path });
  };
  const orgId = (slug: string | undefined, path: (string | number)[]): SeedResult<number | null> => {
    if (slug === undefined) return ok(null);
    const o = organizations.get(slug);
    return o ? ok(o.id) : fail({ message: `unknown organization "${slug}"`, path });
  };
  const projectOf = (
    name: string | undefined,
    path: (string | number)[],
  ): SeedResult<ProjectRec | undefined> => {
    if (name === undefined) return ok(undefined);
    const p = projects.get(name);
    return p ? ok(p) : fail({ message: `unknown project "${name}"`, path });
  };
  return { users, organizations, projects, userId, orgId, projectOf };
}

type Lookups = ReturnType<typeof seedLookups>;

function seedUsers(
  state: AnnotationState,
  now: number,
  input: Seed,
  names: Lookups,
  out: Seeded,
): SeedResult<void> {
  for (const [i, u] of input.users.entries()) {
    if (names.users.get(u.username))
      return fail({ message: `user "${u.username}" exists`, path: ['users', i, 'username'] });
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
    names.users.added(rec);
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
  }
  return ok(undefined);
}

function seedOrganizations(ctx: MutationContext, input: Seed, names: Lookups, out: Seeded): SeedResult<void> {
  const { state, now } = ctx;
  for (const [i, o] of input.organizations.entries()) {
    if (names.organizations.get(o.slug))
      return fail({ message: `organization "${o.slug}" exists`, path: ['organizations', i, 'slug'] });
    const owner = names.userId(o.owner, ['organizations', i, 'owner']);
    if (!owner.ok) return owner;
    const org = createOrganization(ctx, owner.value, { slug: o.slug, name: o.name });
    names.organizations.added(org);
    for (const [j, m] of o.members.entries()) {
      const id = names.userId(m.user, ['organizations', i, 'members', j, 'user']);
      if (!id.ok) return id;
      state.memberships.set(nextId(state, 'memberships'), {
        id: state.seq.memberships as number,
        user_id: id.value,
        organization_id: org.id,
        is_active: true,
        joined_date: formatDrfDate(now),
        role: m.role,
      });
    }
    for (const [j, m] of o.invitations.entries()) {
      const id = names.userId(m.user, ['organizations', i, 'invitations', j, 'user']);
      if (!id.ok) return id;
      createInvitation(ctx, org.id, id.value, m.role, org.owner_id as number);
    }
    out.organizations[o.slug] = org.id;
  }
  return ok(undefined);
}

/** An optional reference: null when not given, else the id it names (or the problem). */
function optionalUser(
  names: Lookups,
  name: string | undefined,
  path: (string | number)[],
): SeedResult<number | null> {
  return name ? names.userId(name, path) : ok(null);
}

function seedProjects(ctx: MutationContext, input: Seed, names: Lookups, out: Seeded): SeedResult<void> {
  for (const [i, p] of input.projects.entries()) {
    const owner = names.userId(p.owner, ['projects', i, 'owner']);
    if (!owner.ok) return owner;
    const assignee = optionalUser(names, p.assignee, ['projects', i, 'assignee']);
    if (!assignee.ok) return assignee;
    const org = names.orgId(p.org, ['projects', i, 'org']);
    if (!org.ok) return org;
    const labels = seedLabels(p.labels, ['projects', i, 'labels']);
    if (!labels.ok) return labels;
    const rec = createProject(ctx, {
      name: p.name,
      owner_id: owner.value,
      assignee_id: assignee.value,
      organization_id: org.value,
      labels: labels.value,
    });
    names.projects.added(rec);
    out.projects[p.name] = rec.id;
  }
  return ok(undefined);
}

function seedTasks(ctx: MutationContext, input: Seed, names: Lookups, out: Seeded): SeedResult<void> {
  for (const [i, t] of input.tasks.entries()) {
    const project = names.projectOf(t.project, ['tasks', i, 'project']);
    if (!project.ok) return project;
    const owner = names.userId(t.owner, ['tasks', i, 'owner']);
    if (!owner.ok) return owner;
    const assignee = optionalUser(names, t.assignee, ['tasks', i, 'assignee']);
    if (!assignee.ok) return assignee;
    const org = project.value ? ok(project.value.organization_id) : names.orgId(t.org, ['tasks', i, 'org']);
    if (!org.ok) return org;
    if (project.value && t.labels.length > 0)
      return fail({
        message:
          "a task in a project uses the project's labels (CVAT: Project must have only one of Label set or project_id)",
        path: ['tasks', i, 'labels'],
      });
    const labels = seedLabels(t.labels, ['tasks', i, 'labels']);
    if (!labels.ok) return labels;
    const task = createTask(ctx, {
      name: t.name,
      project_id: project.value?.id ?? null,
      owner_id: owner.value,
      assignee_id: assignee.value,
      organization_id: org.value,
      overlap: t.overlap,
      segment_size: t.segment_size,
      subset: t.subset,
      labels: labels.value,
    });
    const jobRecs = t.size > 0 ? attachTaskData(ctx, task, { size: t.size }) : [];
    const annotated = seedTaskAnnotations(ctx, task, jobRecs, t.annotations, ['tasks', i, 'annotations']);
    if (!annotated.ok) return annotated;
    out.tasks[t.name] = { id: task.id, jobs: jobRecs.map((j) => j.id) };
  }
  return ok(undefined);
}

function seedWebhooks(
  state: AnnotationState,
  now: number,
  input: Seed,
  names: Lookups,
  out: Seeded,
): SeedResult<void> {
  for (const [i, w] of input.webhooks.entries()) {
    const project = names.projectOf(w.project, ['webhooks', i, 'project']);
    if (!project.ok) return project;
    if (w.type === 'project' && !project.value)
      return fail({ message: 'a project webhook needs "project"', path: ['webhooks', i, 'project'] });
    const organizationId = project.value
      ? ok(project.value.organization_id)
      : names.orgId(w.org, ['webhooks', i, 'org']);
    if (!organizationId.ok) return organizationId;
    if (w.type === 'organization' && organizationId.value === null)
      return fail({ message: 'an organization webhook needs "org"', path: ['webhooks', i, 'org'] });
    // The id is taken before the owner is looked up, as it always was: a refused owner still uses it.
    const id = nextId(state, 'webhooks');
    const owner = names.userId(w.owner, ['webhooks', i, 'owner']);
    if (!owner.ok) return owner;
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
      owner_id: owner.value,
      project_id: project.value?.id ?? null,
      organization_id: organizationId.value,
      created_date: formatDrfDate(now),
      updated_date: formatDrfDate(now),
    });
    out.webhooks.push(id);
  }
  return ok(undefined);
}

/**
 * Seeds resources directly, table by table, or answers the first problem with its path in the seed
 * (what came before it stays). Like CVAT's fixture loading (`post_save` with `raw=True`), seeding sends
 * no webhooks and records no events: its context has no change list.
 */
export function applySeed(
  state: AnnotationState,
  input: Seed,
  now: number,
  hex: (n: number) => string,
): SeedResult<Seeded> {
  const out: Seeded = { users: {}, organizations: {}, projects: {}, tasks: {}, webhooks: [] };
  const ctx: MutationContext = { state, now, actor: null, hex, changes: null };
  const names = seedLookups(state);
  const steps = [
    () => seedUsers(state, now, input, names, out),
    () => seedOrganizations(ctx, input, names, out),
    () => seedProjects(ctx, input, names, out),
    () => seedTasks(ctx, input, names, out),
    () => seedWebhooks(state, now, input, names, out),
  ];
  for (const step of steps) {
    const done = step();
    if (!done.ok) return done;
  }
  return ok(out);
}
