/**
 * A toy CVAT resource, `/api/toys` (a ToyViewSet: list, create, retrieve, partial_update, destroy), written
 * as the plain-text edits a maintainer makes to add a resource that stores records: its wire shape, its
 * route rows, its domain rules, its table, its snapshot checks and its FIDELITY.md paragraph.
 * adding-a-resource.test.ts applies them to a copy of the app and drives the resource;
 * docs/ARCHITECTURE.md ("Adding a CVAT resource") lists the same files in the same order.
 *
 * Files are named as ARCHITECTURE.md names them: the app's relative to `apps/annotation-sim`, the schema
 * package's from the repository's root (`packages/annotation-schema/…`).
 */

/** An edit: a new file, or `insert` right before or after `anchor`, which occurs exactly once. */
type ToyEdit =
  | { readonly create: string }
  | { readonly anchor: string; readonly where: 'before' | 'after'; readonly insert: string };

/** The maintainer's edits, by file, in the order ARCHITECTURE.md lists them. */
export const TOY_EDITS: Readonly<Record<string, readonly ToyEdit[]>> = {
  // 1. The request schemas, a DRF serializer's fields each (built on first use).
  'packages/annotation-schema/src/request-schemas.ts': [
    {
      anchor: '/** Every write request schema by its OpenAPI name, each built on its first call. */\n',
      where: 'before',
      insert: [
        '/** `ToyWriteRequest`: a name of at most 64 characters. */\n',
        'const ToyWriteRequest = once(() => z.object({ name: z.string().min(1).max(64) }));\n\n',
        '/** `PatchedToyWriteRequest`: nothing required. */\n',
        'const PatchedToyWriteRequest = once(() => ToyWriteRequest().partial());\n\n',
      ].join(''),
    },
    {
      anchor: '  LoginRequest,\n};',
      where: 'before',
      insert: '  ToyWriteRequest,\n  PatchedToyWriteRequest,\n',
    },
  ],
  // 2. Their types, for the domain's signatures.
  'packages/annotation-schema/src/requests.ts': [
    {
      anchor: 'export type LoginRequest = z.infer<typeof LoginRequest>;\n',
      where: 'after',
      insert: [
        'export const ToyWriteRequest = s.ToyWriteRequest();\n',
        'export type ToyWriteRequest = z.infer<typeof ToyWriteRequest>;\n',
        'export const PatchedToyWriteRequest = s.PatchedToyWriteRequest();\n',
        'export type PatchedToyWriteRequest = z.infer<typeof PatchedToyWriteRequest>;\n',
      ].join(''),
    },
  ],
  // 3. The route rows: operation names, paths, bodies, named handlers.
  'src/http/routes/toys.ts': [
    {
      create: `import { requestSchemas } from '@sims/annotation-schema/request-schemas';
import type { PatchedToyWriteRequest, ToyWriteRequest } from '@sims/annotation-schema/requests';
import { createToy, deleteToy, toyCreation, toyPatch, toyRead, updateToy } from '../../domain/toys';
import type { ApiRequest } from '../api';
import { checkListQuery, pageAnswer } from '../pagination';
import { cvatJson, noContent } from '../respond';
import { byId, type RouteRow, refused, withBody } from '../route-table';

function handleListToys(r: ApiRequest): Response {
  const bounded = checkListQuery(r);
  if (!bounded.ok) return refused(r, bounded);
  const toys = [...r.state.toys.values()].sort((a, b) => b.id - a.id);
  return pageAnswer(r, toys, (t) => toyRead(r.state, t));
}

function handleCreateToy(r: ApiRequest<ToyWriteRequest>): Response {
  const body = r.body();
  if (!body.ok) return refused(r, body);
  const input = toyCreation(r.state, r.user(), body.value);
  if (!input.ok) return refused(r, input);
  return cvatJson(r.c, toyRead(r.state, createToy(r.mutation(), input.value)), 201);
}

function handleRetrieveToy(r: ApiRequest): Response {
  const toy = r.record(r.state.toys, 'Toy');
  return toy.ok ? cvatJson(r.c, toyRead(r.state, toy.value)) : refused(r, toy);
}

function handleUpdateToy(r: ApiRequest<PatchedToyWriteRequest>): Response {
  const toy = r.record(r.state.toys, 'Toy');
  if (!toy.ok) return refused(r, toy);
  const body = r.body();
  if (!body.ok) return refused(r, body);
  const patch = toyPatch(r.state, toy.value, body.value);
  if (!patch.ok) return refused(r, patch);
  return cvatJson(r.c, toyRead(r.state, updateToy(r.mutation(), toy.value, patch.value)));
}

function handleDestroyToy(r: ApiRequest): Response {
  const toy = r.record(r.state.toys, 'Toy');
  if (!toy.ok) return refused(r, toy);
  deleteToy(r.mutation(), toy.value);
  return noContent(r.c);
}

const TOY = byId('toys');

/** \`/api/toys\`: a ToyViewSet (list, create, retrieve, partial update, destroy). */
export const toyRoutes: readonly RouteRow[] = [
  { method: 'get', path: '/api/toys', operation: 'toys.list', handle: handleListToys },
  withBody({
    method: 'post',
    path: '/api/toys',
    operation: 'toys.create',
    body: requestSchemas.ToyWriteRequest,
    handle: handleCreateToy,
  }),
  { method: 'get', path: '/api/toys/:id', operation: 'toys.retrieve', resource: TOY, handle: handleRetrieveToy },
  withBody({
    method: 'patch',
    path: '/api/toys/:id',
    operation: 'toys.partial_update',
    resource: TOY,
    body: requestSchemas.PatchedToyWriteRequest,
    handle: handleUpdateToy,
  }),
  { method: 'delete', path: '/api/toys/:id', operation: 'toys.destroy', resource: TOY, handle: handleDestroyToy },
];
`,
    },
  ],
  // 4. The family's table in the one list of the API's rows.
  'src/http/api-routes.ts': [
    {
      anchor: "import { webhookRoutes } from './routes/webhooks';\n",
      where: 'after',
      insert: "import { toyRoutes } from './routes/toys';\n",
    },
    { anchor: '    ...requestRoutes,\n', where: 'after', insert: '    ...toyRoutes,\n' },
  ],
  // 5. The domain rules (Results, DRF's texts), the mutations and the read representation.
  'src/domain/toys.ts': [
    {
      create: `/** Toys: what a create or partial update may carry, the mutations that store them, their read shape. */
import type { PatchedToyWriteRequest, ToyWriteRequest } from '@sims/annotation-schema/requests';
import { fail, invalid, ok, type Result } from './errors';
import type { ToyRec, UserRec } from './model';
import { type MutationContext, stamp } from './mutation';
import { basicUser } from './serializers';
import { type AnnotationData, type AnnotationState, nextId } from './state';

export interface ToyInput {
  name: string;
  owner_id: number;
}

/** A name another toy has is refused as Django's unique validator refuses it. */
function uniqueName(state: AnnotationState, name: string, self?: ToyRec): Result<void> {
  for (const t of state.toys.values())
    if (t.name === name && t !== self) return fail(invalid({ name: ['toy with this name already exists.'] }));
  return ok(undefined);
}

/** A new toy from its checked fields, owned by the caller. */
export function toyCreation(state: AnnotationState, user: UserRec, f: ToyWriteRequest): Result<ToyInput> {
  const unique = uniqueName(state, f.name);
  return unique.ok ? ok({ name: f.name, owner_id: user.id }) : unique;
}

/** A toy's partial update from its checked fields. */
export function toyPatch(state: AnnotationState, toy: ToyRec, f: PatchedToyWriteRequest): Result<Partial<ToyRec>> {
  if (f.name === undefined) return ok({});
  const unique = uniqueName(state, f.name, toy);
  return unique.ok ? ok({ name: f.name }) : unique;
}

export function createToy(ctx: MutationContext, input: ToyInput): ToyRec {
  const t: ToyRec = {
    id: nextId(ctx.state, 'toys'),
    name: input.name,
    owner_id: input.owner_id,
    created_date: stamp(ctx),
    updated_date: stamp(ctx),
  };
  ctx.state.toys.set(t.id, t);
  return t;
}

export function updateToy(ctx: MutationContext, t: ToyRec, patch: Partial<ToyRec>): ToyRec {
  Object.assign(t, patch, { updated_date: stamp(ctx) });
  return t;
}

export function deleteToy(ctx: MutationContext, t: ToyRec): void {
  ctx.state.toys.delete(t.id);
}

/** ToyRead: the keys in the serializer's order. */
export function toyRead(data: AnnotationData, t: ToyRec): Record<string, unknown> {
  return {
    url: \`\${data.baseUrl}/api/toys/\${t.id}\`,
    id: t.id,
    name: t.name,
    owner: basicUser(data, t.owner_id),
    created_date: t.created_date,
    updated_date: t.updated_date,
  };
}
`,
    },
  ],
  // 6. The stored record, in CVAT's model attribute names.
  'src/domain/model.ts': [
    {
      anchor: 'export type ResourceKind =',
      where: 'before',
      insert: [
        'export interface ToyRec {\n',
        '  id: number;\n',
        '  name: string;\n',
        '  owner_id: number | null;\n',
        '  created_date: string;\n',
        '  updated_date: string;\n',
        '}\n\n',
      ].join(''),
    },
  ],
  // 7. The table: its name in TABLES (snapshots export and import it from there), what an import checks
  // of it (TABLE_FACTS) and its accessor.
  'src/domain/state-tables.ts': [
    {
      anchor: "  TaskRec,\n  UserRec,\n  WebhookRec,\n} from './model';",
      where: 'before',
      insert: '  ToyRec,\n',
    },
    { anchor: '] as const;\n', where: 'before', insert: "  'toys',\n" },
    {
      anchor: "  deliveries: {\n    singular: 'delivery',",
      where: 'before',
      insert:
        "  toys: { singular: 'toy', key: 'id', counted: true, references: [{ field: 'owner_id', target: 'users' }] },\n",
    },
    {
      anchor: '  private _deliveries: ChildTable<number, DeliveryRec> | undefined;\n',
      where: 'after',
      insert: '  private _toys: Map<number, ToyRec> | undefined;\n',
    },
    {
      anchor: '  /**\n   * The table if it was made, without making it',
      where: 'before',
      insert: [
        '  get toys() {\n',
        '    this._toys ??= new Map();\n',
        '    return this._toys;\n',
        '  }\n',
        '  set toys(table) {\n',
        '    this._toys = table;\n',
        '  }\n\n',
      ].join(''),
    },
  ],
  // 8. What a snapshot's rows of the table must look like (strict: nothing is dropped on import).
  'src/domain/snapshot-schema.ts': [
    {
      anchor: '  return z\n    .object({\n      seq:',
      where: 'before',
      insert:
        '  const toy = z.object({ id, name: z.string(), owner_id: ref, created_date: date, updated_date: date }).strict();\n\n',
    },
    { anchor: '      deliveries: rows(delivery),\n', where: 'after', insert: '      toys: rows(toy),\n' },
  ],
  // 9. What is faithful.
  'FIDELITY.md': [
    {
      anchor: '**Auth** (tried in CVAT',
      where: 'before',
      insert:
        '**Toys** (`/api/toys`): list, create, retrieve, partial update, destroy; a name another toy has is ' +
        '400 `{"name": ["toy with this name already exists."]}`. No webhook or server event (CVAT sends none).\n\n',
    },
  ],
};

/** `text` with one edit made; an anchor that is missing or not unique fails loudly. */
export function applyEdit(file: string, text: string | undefined, edit: ToyEdit): string {
  if ('create' in edit) {
    if (text !== undefined) throw new Error(`${file}: already there, not a new file`);
    return edit.create;
  }
  if (text === undefined) throw new Error(`${file}: not there to edit`);
  const at = text.indexOf(edit.anchor);
  if (at < 0 || text.indexOf(edit.anchor, at + 1) >= 0) {
    throw new Error(`${file}: the anchor ${JSON.stringify(edit.anchor)} is not there exactly once`);
  }
  const cut = edit.where === 'before' ? at : at + edit.anchor.length;
  return text.slice(0, cut) + edit.insert + text.slice(cut);
}
