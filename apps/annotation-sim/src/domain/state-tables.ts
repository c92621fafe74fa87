import type { JobAnnotationsRec } from './annotations/model';
import { ChildTable } from './child-table';
import type {
  AccessTokenRec,
  CommentRec,
  DeliveryRec,
  InvitationRec,
  IssueRec,
  JobRec,
  LabelRec,
  MembershipRec,
  OrganizationRec,
  ProjectRec,
  SessionRec,
  TaskRec,
  UserRec,
  WebhookRec,
} from './model';

/**
 * The webhooks table: a Map that freezes the records put in it and tells its watchers of every change.
 * The delivery engine hands a webhook's queued deliveries to the delivery thread ahead of their turn only
 * while no webhook has changed since (docs/decisions/0011), so a change has to be a `set` or a `delete`:
 * an edit in place would go unseen, and on a frozen record it throws instead.
 */
export class WebhookTable extends Map<number, WebhookRec> {
  /** Undefined while Map's constructor runs (fields are set after `super()`). */
  #watchers: Set<() => void> | undefined = new Set();

  override set(id: number, record: WebhookRec): this {
    Object.freeze(record.events);
    super.set(id, Object.freeze(record));
    this.#changed();
    return this;
  }
  override delete(id: number): boolean {
    const had = super.delete(id);
    if (had) this.#changed();
    return had;
  }
  override clear(): void {
    super.clear();
    this.#changed();
  }
  /** Calls `listener` after every change; returns the unsubscribe function. */
  watch(listener: () => void): () => void {
    this.#watchers?.add(listener);
    return () => this.#watchers?.delete(listener);
  }
  #changed() {
    if (this.#watchers) for (const w of this.#watchers) w();
  }
}

/**
 * The parent of each row of the tables kept as ChildTables: the one function a table and its questions
 * (relations.ts) share (a question about a table keyed otherwise falls back to a scan).
 */
export const PARENT = {
  memberships: (m: MembershipRec): unknown => m.organization_id,
  invitations: (i: InvitationRec): unknown => i.membership_id,
  tasks: (t: TaskRec): unknown => t.project_id,
  jobs: (j: JobRec): unknown => j.task_id,
  issues: (i: IssueRec): unknown => i.job_id,
  comments: (c: CommentRec): unknown => c.issue_id,
  deliveries: (d: DeliveryRec): unknown => d.webhook_id,
  /** A label's project (`p1`) or task (`t1`): a skeleton's points are under the same key as it. */
  labels: (l: LabelRec): unknown => (l.project_id !== null ? `p${l.project_id}` : `t${l.task_id}`),
} as const;

/** The names of a world's tables, in the order snapshots list them. */
export const TABLES = [
  'users',
  'tokens',
  'sessions',
  'accessTokens',
  'organizations',
  'memberships',
  'invitations',
  'projects',
  'tasks',
  'labels',
  'jobs',
  'issues',
  'comments',
  'annotations',
  'webhooks',
  'deliveries',
] as const;
export type TableName = (typeof TABLES)[number];

/** What a snapshot import checks of a table (domain/snapshot.ts). */
interface TableFacts {
  /** The record's name in refusals (`no user 3 in state.users`). */
  singular: string;
  /** The record field its row's key must equal; none for `tokens` (key → user id). */
  key?: 'id' | 'key';
  /** Its records take their ids from the `seq` counter of the table's name. */
  counted?: true;
  /** The ids its records name, and the table each names (null allowed for every one but a parent). */
  references?: readonly { field: string; target: TableName }[];
}

/**
 * Each table's facts, declared beside the table: a new table is checked on import by adding its entry
 * here (the refusals come in this order: tables in {@link TABLES} order, fields as listed).
 */
export const TABLE_FACTS: { readonly [K in TableName]: TableFacts } = {
  users: { singular: 'user', key: 'id', counted: true },
  tokens: { singular: 'token' },
  sessions: { singular: 'session', key: 'key', references: [{ field: 'user_id', target: 'users' }] },
  accessTokens: {
    singular: 'access token',
    key: 'key',
    counted: true,
    references: [{ field: 'user_id', target: 'users' }],
  },
  organizations: {
    singular: 'organization',
    key: 'id',
    counted: true,
    references: [{ field: 'owner_id', target: 'users' }],
  },
  memberships: {
    singular: 'membership',
    key: 'id',
    counted: true,
    references: [
      { field: 'user_id', target: 'users' },
      { field: 'organization_id', target: 'organizations' },
    ],
  },
  invitations: {
    singular: 'invitation',
    key: 'key',
    references: [
      { field: 'owner_id', target: 'users' },
      { field: 'membership_id', target: 'memberships' },
    ],
  },
  projects: {
    singular: 'project',
    key: 'id',
    counted: true,
    references: [
      { field: 'owner_id', target: 'users' },
      { field: 'assignee_id', target: 'users' },
      { field: 'organization_id', target: 'organizations' },
    ],
  },
  tasks: {
    singular: 'task',
    key: 'id',
    counted: true,
    references: [
      { field: 'project_id', target: 'projects' },
      { field: 'owner_id', target: 'users' },
      { field: 'assignee_id', target: 'users' },
      { field: 'organization_id', target: 'organizations' },
    ],
  },
  labels: {
    singular: 'label',
    key: 'id',
    counted: true,
    references: [
      { field: 'project_id', target: 'projects' },
      { field: 'task_id', target: 'tasks' },
      { field: 'parent_id', target: 'labels' },
    ],
  },
  jobs: {
    singular: 'job',
    key: 'id',
    counted: true,
    references: [
      { field: 'task_id', target: 'tasks' },
      { field: 'assignee_id', target: 'users' },
    ],
  },
  issues: {
    singular: 'issue',
    key: 'id',
    counted: true,
    references: [
      { field: 'job_id', target: 'jobs' },
      { field: 'owner_id', target: 'users' },
      { field: 'assignee_id', target: 'users' },
    ],
  },
  comments: {
    singular: 'comment',
    key: 'id',
    counted: true,
    references: [
      { field: 'issue_id', target: 'issues' },
      { field: 'owner_id', target: 'users' },
    ],
  },
  /** A job's annotations, keyed by the job's id (their objects' ids: annotations/ids-in-use.ts). */
  annotations: { singular: 'job annotations', references: [{ field: 'job_id', target: 'jobs' }] },
  webhooks: {
    singular: 'webhook',
    key: 'id',
    counted: true,
    references: [
      { field: 'owner_id', target: 'users' },
      { field: 'project_id', target: 'projects' },
      { field: 'organization_id', target: 'organizations' },
    ],
  },
  deliveries: {
    singular: 'delivery',
    key: 'id',
    counted: true,
    references: [{ field: 'webhook_id', target: 'webhooks' }],
  },
};

/**
 * A world's tables by name, as {@link LazyTables} types them: what a world's state holds
 * (`AnnotationData`), so a new table is declared here and nowhere else in the state.
 */
export type Tables = { [K in TableName]: LazyTables[K] };

/**
 * `table` as a ChildTable keyed by `parentOf`: itself if it is one, else a copy (a snapshot import assigns
 * plain Maps). The copy starts without an index: the replaced table's went with it.
 */
function childTable<K, V>(table: Map<K, V>, parentOf: (row: V) => unknown): ChildTable<K, V> {
  return table instanceof ChildTable && table.parentOf === parentOf
    ? (table as ChildTable<K, V>)
    : new ChildTable(parentOf, table);
}

/**
 * A world's tables, each made the first time it is read: a namespace that was only touched holds its
 * users and tokens (the seeded admin) and no empty Map besides. Assigning a table replaces it (snapshots).
 * The tables of rows with a parent are ChildTables (child-table.ts): they answer a parent's rows without
 * reading the others'.
 */
export class LazyTables {
  private _users: Map<number, UserRec> | undefined;
  /** DRF auth tokens (`Authorization: Token <key>`): key → user id. */
  private _tokens: Map<string, number> | undefined;
  private _sessions: Map<string, SessionRec> | undefined;
  private _accessTokens: Map<string, AccessTokenRec> | undefined;
  private _organizations: Map<number, OrganizationRec> | undefined;
  private _memberships: ChildTable<number, MembershipRec> | undefined;
  private _invitations: ChildTable<string, InvitationRec> | undefined;
  private _projects: Map<number, ProjectRec> | undefined;
  private _tasks: ChildTable<number, TaskRec> | undefined;
  private _labels: ChildTable<number, LabelRec> | undefined;
  private _jobs: ChildTable<number, JobRec> | undefined;
  private _issues: ChildTable<number, IssueRec> | undefined;
  private _comments: ChildTable<number, CommentRec> | undefined;
  private _annotations: Map<number, JobAnnotationsRec> | undefined;
  private _webhooks: WebhookTable | undefined;
  private _deliveries: ChildTable<number, DeliveryRec> | undefined;

  get users() {
    this._users ??= new Map();
    return this._users;
  }
  set users(table) {
    this._users = table;
  }
  get tokens() {
    this._tokens ??= new Map();
    return this._tokens;
  }
  set tokens(table) {
    this._tokens = table;
  }
  get sessions() {
    this._sessions ??= new Map();
    return this._sessions;
  }
  set sessions(table) {
    this._sessions = table;
  }
  get accessTokens() {
    this._accessTokens ??= new Map();
    return this._accessTokens;
  }
  set accessTokens(table) {
    this._accessTokens = table;
  }
  get organizations() {
    this._organizations ??= new Map();
    return this._organizations;
  }
  set organizations(table) {
    this._organizations = table;
  }
  get memberships(): Map<number, MembershipRec> {
    this._memberships ??= new ChildTable(PARENT.memberships);
    return this._memberships;
  }
  set memberships(table: Map<number, MembershipRec>) {
    this._memberships = childTable(table, PARENT.memberships);
  }
  get invitations(): Map<string, InvitationRec> {
    this._invitations ??= new ChildTable(PARENT.invitations);
    return this._invitations;
  }
  set invitations(table: Map<string, InvitationRec>) {
    this._invitations = childTable(table, PARENT.invitations);
  }
  get projects() {
    this._projects ??= new Map();
    return this._projects;
  }
  set projects(table) {
    this._projects = table;
  }
  get tasks(): Map<number, TaskRec> {
    this._tasks ??= new ChildTable(PARENT.tasks);
    return this._tasks;
  }
  set tasks(table: Map<number, TaskRec>) {
    this._tasks = childTable(table, PARENT.tasks);
  }
  get labels(): Map<number, LabelRec> {
    this._labels ??= new ChildTable(PARENT.labels);
    return this._labels;
  }
  set labels(table: Map<number, LabelRec>) {
    this._labels = childTable(table, PARENT.labels);
  }
  get jobs(): Map<number, JobRec> {
    this._jobs ??= new ChildTable(PARENT.jobs);
    return this._jobs;
  }
  set jobs(table: Map<number, JobRec>) {
    this._jobs = childTable(table, PARENT.jobs);
  }
  get issues(): Map<number, IssueRec> {
    this._issues ??= new ChildTable(PARENT.issues);
    return this._issues;
  }
  set issues(table: Map<number, IssueRec>) {
    this._issues = childTable(table, PARENT.issues);
  }
  get comments(): Map<number, CommentRec> {
    this._comments ??= new ChildTable(PARENT.comments);
    return this._comments;
  }
  set comments(table: Map<number, CommentRec>) {
    this._comments = childTable(table, PARENT.comments);
  }
  get annotations() {
    this._annotations ??= new Map();
    return this._annotations;
  }
  set annotations(table) {
    this._annotations = table;
  }
  /** The same table for good (the delivery engine watches it): snapshots refill it. */
  get webhooks() {
    this._webhooks ??= new WebhookTable();
    return this._webhooks;
  }
  get deliveries(): Map<number, DeliveryRec> {
    this._deliveries ??= new ChildTable(PARENT.deliveries);
    return this._deliveries;
  }
  set deliveries(table: Map<number, DeliveryRec>) {
    this._deliveries = childTable(table, PARENT.deliveries);
  }

  /**
   * The table if it was made, without making it: what only reads (a snapshot) reads through this, an
   * unmade table being an empty one.
   */
  tableIfMade(name: TableName): ReadonlyMap<unknown, unknown> | undefined {
    return (this as unknown as Record<`_${TableName}`, Map<unknown, unknown> | undefined>)[`_${name}`];
  }

  /** How many tables were made (for tests of laziness). */
  tablesMade(): number {
    let made = 0;
    for (const name of TABLES) if (this.tableIfMade(name) !== undefined) made++;
    return made;
  }
}
