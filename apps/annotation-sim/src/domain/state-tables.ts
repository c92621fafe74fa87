import type {
  AccessTokenRec,
  CommentRec,
  DeliveryRec,
  InvitationRec,
  IssueRec,
  JobRec,
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
  'jobs',
  'issues',
  'comments',
  'webhooks',
  'deliveries',
] as const;
export type TableName = (typeof TABLES)[number];

/**
 * A world's tables, each made the first time it is read: a namespace that was only touched holds its
 * users and tokens (the seeded admin) and no empty Map besides. Assigning a table replaces it (snapshots).
 */
export class LazyTables {
  private _users: Map<number, UserRec> | undefined;
  private _tokens: Map<string, number> | undefined;
  private _sessions: Map<string, SessionRec> | undefined;
  private _accessTokens: Map<string, AccessTokenRec> | undefined;
  private _organizations: Map<number, OrganizationRec> | undefined;
  private _memberships: Map<number, MembershipRec> | undefined;
  private _invitations: Map<string, InvitationRec> | undefined;
  private _projects: Map<number, ProjectRec> | undefined;
  private _tasks: Map<number, TaskRec> | undefined;
  private _jobs: Map<number, JobRec> | undefined;
  private _issues: Map<number, IssueRec> | undefined;
  private _comments: Map<number, CommentRec> | undefined;
  private _webhooks: WebhookTable | undefined;
  private _deliveries: Map<number, DeliveryRec> | undefined;

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
  get memberships() {
    this._memberships ??= new Map();
    return this._memberships;
  }
  set memberships(table) {
    this._memberships = table;
  }
  get invitations() {
    this._invitations ??= new Map();
    return this._invitations;
  }
  set invitations(table) {
    this._invitations = table;
  }
  get projects() {
    this._projects ??= new Map();
    return this._projects;
  }
  set projects(table) {
    this._projects = table;
  }
  get tasks() {
    this._tasks ??= new Map();
    return this._tasks;
  }
  set tasks(table) {
    this._tasks = table;
  }
  get jobs() {
    this._jobs ??= new Map();
    return this._jobs;
  }
  set jobs(table) {
    this._jobs = table;
  }
  get issues() {
    this._issues ??= new Map();
    return this._issues;
  }
  set issues(table) {
    this._issues = table;
  }
  get comments() {
    this._comments ??= new Map();
    return this._comments;
  }
  set comments(table) {
    this._comments = table;
  }
  /** The same table for good (the delivery engine watches it): snapshots refill it. */
  get webhooks() {
    this._webhooks ??= new WebhookTable();
    return this._webhooks;
  }
  get deliveries() {
    this._deliveries ??= new Map();
    return this._deliveries;
  }
  set deliveries(table) {
    this._deliveries = table;
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
