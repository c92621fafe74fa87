import { countMapReads } from '@sims/test-support/map-reads';
import { afterEach, describe, expect, it } from 'vitest';
import { roleIn } from '../src/domain/access';
import { rowsOf } from '../src/domain/child-table';
import { createInvitation, deleteInvitation } from '../src/domain/invitations';
import { createComment, createIssue, deleteComment, deleteIssue } from '../src/domain/issues';
import type { DeliveryRec, WebhookRec } from '../src/domain/model';
import { deleteWebhookCascade, type MutationContext } from '../src/domain/mutation';
import { createMembership, deleteMembership } from '../src/domain/organizations';
import { createProject, deleteProject } from '../src/domain/projects';
import {
  issueRead,
  jobRead,
  membershipRead,
  projectRead,
  taskRead,
  webhookRead,
} from '../src/domain/serializers';
import { type AnnotationState, nextId } from '../src/domain/state';
import { PARENT } from '../src/domain/state-tables';
import { attachTaskData, createTask, deleteTask, updateTask } from '../src/domain/tasks';
import { createHarness, type Harness } from './support/harness';

const NOW = Date.parse('2026-01-01T00:00:00Z');

function webhook(state: AnnotationState, projectId: number): WebhookRec {
  const stamp = '2026-01-01T00:00:00.000000Z';
  return {
    id: nextId(state, 'webhooks'),
    target_url: 'http://127.0.0.1:9/hook',
    description: '',
    events: ['update:task'],
    type: 'project',
    content_type: 'application/json',
    secret: '',
    // Inactive: nothing is ever sent (these tests are about the tables).
    is_active: false,
    enable_ssl: false,
    owner_id: 1,
    project_id: projectId,
    organization_id: null,
    created_date: stamp,
    updated_date: stamp,
  };
}

function delivery(state: AnnotationState, webhookId: number): DeliveryRec {
  const stamp = '2026-01-01T00:00:00.000000Z';
  return {
    id: nextId(state, 'deliveries'),
    webhook_id: webhookId,
    event: 'update:task',
    status_code: 200,
    redelivery: false,
    attempt: 1,
    request_duration: 1,
    changed_fields: '',
    request: {},
    response: '',
    created_date: stamp,
    updated_date: stamp,
  };
}

/**
 * A world of `count` tasks (2 jobs each, an issue with 2 comments per job) in `count / 10` projects (a
 * webhook with 2 deliveries each) and `count / 10` organizations (3 members, 1 invitation each).
 */
function world(h: Harness, count: number) {
  const users = Array.from({ length: 4 }, (_, i) => ({ username: `u${i}` }));
  const seeded = h.seed({
    users,
    organizations: Array.from({ length: count / 10 }, (_, i) => ({
      slug: `o${i}`,
      owner: 'u0',
      members: [
        { user: 'u1', role: 'maintainer' as const },
        { user: 'u2', role: 'worker' as const },
      ],
      invitations: [{ user: 'u3', role: 'worker' as const }],
    })),
    projects: Array.from({ length: count / 10 }, (_, i) => ({ name: `p${i}`, owner: 'admin' })),
    tasks: Array.from({ length: count }, (_, i) => ({
      name: `t${i}`,
      owner: 'admin',
      project: `p${i % (count / 10)}`,
      size: 10,
      segment_size: 5,
    })),
  });
  const state = h.state();
  const ctx: MutationContext = { state, now: NOW, actor: null, changes: null };
  for (const j of [...state.jobs.values()]) {
    const issue = createIssue(ctx, {
      frame: 0,
      position: [0, 0, 1, 1],
      job_id: j.id,
      owner_id: 1,
      message: 'a',
    });
    createComment(ctx, { issue_id: issue.id, owner_id: 1, message: 'b' });
  }
  for (const p of [...state.projects.values()]) {
    const w = webhook(state, p.id);
    state.webhooks.set(w.id, w);
    for (let i = 0; i < 2; i++) {
      const d = delivery(state, w.id);
      state.deliveries.set(d.id, d);
    }
  }
  return { seeded, state };
}

describe('reading a record of a large world', () => {
  let h: Harness;
  afterEach(() => h.close());

  it("reads the record's own children, however many the world holds", () => {
    const readsOf = (count: number) => {
      h?.close();
      h = createHarness();
      const { seeded, state } = world(h, count);
      const task = state.tasks.get(seeded.tasks.t1?.id as number);
      const job = state.jobs.get(seeded.tasks.t1?.jobs[0] as number);
      const project = state.projects.get(seeded.projects.p1 as number);
      const issue = [...state.issues.values()].find((i) => i.job_id === job?.id);
      const hook = [...state.webhooks.values()].find((w) => w.project_id === project?.id);
      const org = seeded.organizations.o1 as number;
      const membership = [...state.memberships.values()].find(
        (m) => m.organization_id === org && m.user_id === 5,
      );
      if (!task || !job || !project || !issue || !hook || !membership) throw new Error('world not seeded');
      const renders: Record<string, () => unknown> = {
        task: () => taskRead(state, task),
        project: () => projectRead(state, project),
        job: () => jobRead(state, job),
        issue: () => issueRead(state, issue),
        webhook: () => webhookRead(state, hook),
        membership: () => membershipRead(state, membership),
        role: () => roleIn(state, 3, org),
      };
      const reads: Record<string, number> = {};
      for (const [name, render] of Object.entries(renders)) {
        const first = render(); // an index is made on its first question
        const counted = countMapReads(render, { sets: true });
        expect(counted.result).toEqual(first);
        reads[name] = counted.reads;
      }
      expect(taskRead(state, task).jobs).toMatchObject({ count: 2 });
      expect(projectRead(state, project).tasks).toMatchObject({ count: 10 });
      expect(jobRead(state, job).issues).toMatchObject({ count: 1 });
      expect(issueRead(state, issue).comments).toMatchObject({ count: 2 });
      expect(webhookRead(state, hook)).toMatchObject({ last_status: 200 });
      expect(membershipRead(state, membership).invitation).toEqual(expect.any(String));
      expect(roleIn(state, 3, org)).toBe('maintainer');
      return reads;
    };
    const small = readsOf(100);
    const large = readsOf(800);
    // A scan of the whole table per record read 8 times as many entries in the larger world: every job
    // per task (1,600 of them), every task per project, every issue per job, and so on.
    expect(large).toEqual(small);
    expect(small).toEqual({ task: 2, project: 10, job: 0, issue: 0, webhook: 2, membership: 1, role: 4 });
  });
});

/** Each parent's rows, by a scan of the whole table in its order: what the indexes must answer. */
function scanned<V>(table: ReadonlyMap<unknown, V>, parentOf: (row: V) => unknown): Map<unknown, V[]> {
  const byParent = new Map<unknown, V[]>();
  for (const row of table.values()) {
    const rows = byParent.get(parentOf(row));
    if (rows) rows.push(row);
    else byParent.set(parentOf(row), [row]);
  }
  return byParent;
}

/** Every relation answers, for every parent id ever given out (and null), what a scan answers. */
function expectIndexesMatchScans(state: AnnotationState, step: string) {
  const relations = [
    ['memberships', 'organizations'],
    ['invitations', 'memberships'],
    ['tasks', 'projects'],
    ['jobs', 'tasks'],
    ['issues', 'jobs'],
    ['comments', 'issues'],
    ['deliveries', 'webhooks'],
  ] as const;
  for (const [table, parentTable] of relations) {
    const rows = state[table] as ReadonlyMap<unknown, unknown>;
    const parentOf = PARENT[table] as (row: unknown) => unknown;
    const expected = scanned(rows, parentOf);
    const parents = [null, ...Array.from({ length: (state.seq[parentTable] ?? 0) + 1 }, (_, i) => i + 1)];
    for (const parent of parents) {
      const got = rowsOf(rows, parentOf, parent);
      const want = expected.get(parent) ?? [];
      if (got.length !== want.length || got.some((row, i) => row !== want[i]))
        expect.fail(`${step}: ${table} of ${parentTable} ${parent} answered differently from a scan`);
    }
  }
}

describe('the parent indexes', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('answer what a scan of the table answers, in its order, through every kind of change', () => {
    h = createHarness();
    h.seed({
      users: Array.from({ length: 6 }, (_, i) => ({ username: `u${i}` })),
      organizations: [
        { slug: 'a', owner: 'u0', members: [{ user: 'u1', role: 'worker' }] },
        { slug: 'b', owner: 'u1' },
      ],
    });
    let random = 7;
    const pick = (n: number) => {
      random = (random * 1103515245 + 12345) % 2147483648;
      return Math.floor((random / 2147483648) * n);
    };
    const any = <T>(table: ReadonlyMap<unknown, T>): T | undefined => [...table.values()][pick(table.size)];
    // Not silent: each change is rendered while it happens, reading the indexes mid-change.
    const ctx = (): MutationContext => ({ state: h.state(), now: NOW, actor: null, changes: [] });
    let saved: unknown;
    const changes: [string, () => void][] = [
      [
        'project',
        () =>
          createProject(ctx(), {
            name: 'p',
            owner_id: 1,
            organization_id: any(h.state().organizations)?.id ?? null,
          }),
      ],
      [
        'task',
        () => {
          const p = pick(3) === 0 ? undefined : any(h.state().projects);
          createTask(ctx(), {
            name: 't',
            project_id: p?.id ?? null,
            owner_id: 1,
            organization_id: p?.organization_id ?? null,
            subset: `s${pick(3)}`,
          });
        },
      ],
      [
        'data',
        () => {
          const t = any(new Map([...h.state().tasks].filter(([, x]) => x.data_id === null)));
          if (t) attachTaskData(ctx(), t, { size: 1 + pick(12) });
        },
      ],
      [
        'move',
        () => {
          const t = any(h.state().tasks);
          const p = pick(4) === 0 ? undefined : any(h.state().projects);
          if (t)
            updateTask(ctx(), t, {
              project_id: p?.id ?? null,
              ...(p ? { organization_id: p.organization_id } : {}),
            });
        },
      ],
      [
        'same task again',
        () => {
          const t = any(h.state().tasks);
          if (t) h.state().tasks.set(t.id, t);
        },
      ],
      [
        'delete task',
        () => {
          const t = any(h.state().tasks);
          if (t) deleteTask(ctx(), t);
        },
      ],
      [
        'delete project',
        () => {
          const p = pick(3) === 0 ? any(h.state().projects) : undefined;
          if (p) deleteProject(ctx(), p);
        },
      ],
      [
        'issue',
        () => {
          const j = any(h.state().jobs);
          if (j)
            createIssue(ctx(), { frame: 0, position: [0, 0, 1, 1], job_id: j.id, owner_id: 1, message: 'm' });
        },
      ],
      [
        'comment',
        () => {
          const i = any(h.state().issues);
          if (i) createComment(ctx(), { issue_id: i.id, owner_id: 1, message: 'c' });
        },
      ],
      [
        'delete issue',
        () => {
          const i = any(h.state().issues);
          if (i) deleteIssue(ctx(), i);
        },
      ],
      [
        'delete comment',
        () => {
          const c = any(h.state().comments);
          if (c) deleteComment(ctx(), c);
        },
      ],
      [
        'webhook and deliveries',
        () => {
          const project = any(h.state().projects);
          if (project) {
            const w = webhook(h.state(), project.id);
            h.state().webhooks.set(w.id, w);
          }
          const target = any(h.state().webhooks);
          for (let i = pick(3); i > 0 && target; i--) {
            const d = delivery(h.state(), target.id);
            h.state().deliveries.set(d.id, d);
          }
        },
      ],
      [
        'delivery evicted',
        () => {
          const d = any(h.state().deliveries);
          if (d) h.state().deliveries.delete(d.id);
        },
      ],
      [
        'webhook deleted',
        () => {
          const w = any(h.state().webhooks);
          if (w) deleteWebhookCascade(h.state(), w.id);
        },
      ],
      [
        'membership',
        () => {
          const org = any(h.state().organizations);
          if (org) createMembership(ctx(), 2 + pick(5), org.id, 'worker', pick(2) === 0);
        },
      ],
      [
        'invitation',
        () => {
          const org = any(h.state().organizations);
          if (org) createInvitation(ctx(), org.id, 2 + pick(5), 'worker', 1);
        },
      ],
      [
        'invitation answered',
        () => {
          const inv = any(h.state().invitations);
          if (inv) deleteInvitation(ctx(), inv);
        },
      ],
      [
        'membership deleted',
        () => {
          const m = any(h.state().memberships);
          if (m) deleteMembership(ctx(), m);
        },
      ],
      [
        'snapshot',
        () => {
          saved = JSON.parse(JSON.stringify(h.sim.kernel.def.exportState(h.sim.world())));
        },
      ],
      [
        'import',
        () => {
          if (saved) h.sim.kernel.def.importState(h.sim.world(), saved);
        },
      ],
    ];
    // How often each change comes (out of their sum): the world grows, and is cut and restored at times.
    const weights: Record<string, number> = {
      project: 3,
      task: 8,
      data: 6,
      move: 5,
      issue: 6,
      comment: 6,
      'webhook and deliveries': 4,
      membership: 3,
      invitation: 3,
    };
    const weighted = changes.flatMap((change) =>
      Array(weights[change[0]] ?? 1).fill(change),
    ) as typeof changes;
    const done = new Map<string, number>();
    const most = { jobs: 0, tasks: 0, issues: 0, deliveries: 0 };
    for (let step = 0; step < 1000; step++) {
      const [name, change] = weighted[pick(weighted.length)] as [string, () => void];
      change();
      done.set(name, (done.get(name) ?? 0) + 1);
      expectIndexesMatchScans(h.state(), `step ${step} (${name})`);
      for (const table of Object.keys(most) as (keyof typeof most)[])
        most[table] = Math.max(most[table], h.state()[table].size);
    }
    // Every kind of change happened, several times, in a world of some size.
    expect([...done.keys()].sort()).toEqual(changes.map(([name]) => name).sort());
    expect(Math.min(...done.values())).toBeGreaterThan(5);
    expect(Math.min(...Object.values(most))).toBeGreaterThan(20);
  });
});
