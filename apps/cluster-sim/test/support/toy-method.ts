/**
 * A toy GKE method, `clusters.setToyField` (RPC `SetToyField`), written as the plain-text edits a
 * maintainer makes to add a method that starts a long-running operation: the text becomes the cluster's
 * `description` when the operation is DONE. adding-a-method.test.ts applies them to a copy of the app and
 * drives the method; docs/ARCHITECTURE.md ("Adding a GKE method") lists the same files.
 */

/** One edit: `insert` goes right before or after `anchor`, which occurs exactly once in the file. */
export interface ToyEdit {
  readonly anchor: string;
  readonly where: 'before' | 'after';
  readonly insert: string;
}

/**
 * What the generator (scripts/generate-methods.mjs) writes for a new method of the discovery documents
 * when `@googleapis/container` is bumped: the toy's rows in both forms. Not a maintainer's edit.
 */
export const GENERATED_EDITS: Readonly<Record<string, readonly ToyEdit[]>> = {
  'src/http/methods.generated.ts': [
    {
      anchor: 'export const DISCOVERY_METHODS: readonly DiscoveryMethod[] = [\n',
      where: 'after',
      insert: [
        "  { id: 'container.projects.locations.clusters.setToyField', version: 'v1beta1', httpMethod: 'POST', path: 'projects/{projectsId}/locations/{locationsId}/clusters/{clustersId}:setToyField', rpc: 'SetToyField', request: 'SetToyFieldRequest' },\n",
        "  { id: 'container.projects.locations.clusters.getToyInfo', version: 'v1beta1', httpMethod: 'GET', path: 'projects/{projectsId}/locations/{locationsId}/clusters/{clustersId}:getToyInfo', rpc: 'GetToyInfo', request: 'GetToyInfoRequest' },\n",
        "  { id: 'container.projects.zones.clusters.toyField', version: 'v1beta1', httpMethod: 'POST', path: 'projects/{projectId}/zones/{zone}/clusters/{clusterId}/toyField', rpc: 'SetToyField', request: 'SetToyFieldRequest' },\n",
      ].join(''),
    },
  ],
};

/** The maintainer's edits, by file (relative to the app's folder): the list ARCHITECTURE.md gives. */
export const TOY_EDITS: Readonly<Record<string, readonly ToyEdit[]>> = {
  // 1. The route row, with its request message (a real method's comes from @sims/cluster-schema).
  'src/http/routes/cluster-setters.ts': [
    {
      anchor:
        "import { clusterJwks, clusterOpenIdConfig, listLocations } from '../../domain/cluster-info';\n",
      where: 'before',
      insert: "import * as z from 'zod';\n",
    },
    { anchor: '  setService,\n', where: 'after', insert: '  setToyField,\n' },
    {
      anchor: '/** The simulated RPCs served through the discovery table, by RPC name. */\n',
      where: 'before',
      insert:
        'const SetToyFieldRequest = z.object({ name: z.string().optional(), projectId: z.string().optional(), zone: z.string().optional(), clusterId: z.string().optional(), toyField: z.string() });\n\n',
    },
    {
      anchor: '      ...rotationSpecs,\n',
      where: 'before',
      insert: "      setter('SetToyField', 'setToyField', SetToyFieldRequest, setToyField),\n",
    },
  ],
  // 2. The domain rule and how its change lands, in the domain file of its family.
  'src/domain/cluster-setters.ts': [
    {
      anchor: '/** setAddons: each addon sent replaces',
      where: 'before',
      insert: [
        "/** A `setToyField` change is DONE: the text is the cluster's description. */\n",
        "export const SET_TOY_FIELD_CHANGE: ChangeApplier<ChangeOf<'setToyField'>> = {\n",
        '  apply({ change, record }) {\n',
        '    record.cluster.description = change.value;\n',
        '  },\n',
        '};\n\n',
        '/** setToyField: an empty text is refused; else one UPDATE_CLUSTER operation. */\n',
        'export function setToyField(\n',
        '  state: ClusterState,\n',
        '  record: ClusterRecord,\n',
        '  body: { toyField: string },\n',
        '  ctx: DomainContext,\n',
        '): Result<OperationRecord> {\n',
        "  if (body.toyField === '') {\n",
        "    return fail({ code: 'INVALID_REQUEST', message: 'toy_field must not be empty.', field: 'toy_field' });\n",
        '  }\n',
        "  return startClusterOperation(state, record, 'UPDATE_CLUSTER', { kind: 'setToyField', value: body.toyField }, ctx);\n",
        '}\n\n',
      ].join(''),
    },
  ],
  // 3. The kind of change an operation carries: its type and its snapshot check, in one schema.
  'src/domain/pending-change.ts': [
    {
      anchor: "    z.object({ kind: z.literal('createPool') }).strict(),\n",
      where: 'before',
      insert: "    z.object({ kind: z.literal('setToyField'), value: z.string() }).strict(),\n",
    },
  ],
  // 4. Its applier in the table operation-work.ts hands the lifecycle.
  'src/domain/operation-changes.ts': [
    {
      anchor: "import { SET_CLUSTER_CHANGE } from './cluster-setters';\n",
      where: 'before',
      insert: "import { SET_TOY_FIELD_CHANGE } from './cluster-setters';\n",
    },
    {
      anchor: '  setCluster: SET_CLUSTER_CHANGE,\n',
      where: 'after',
      insert: '  setToyField: SET_TOY_FIELD_CHANGE,\n',
    },
  ],
  // 5. What is faithful: each method of the table, and the method's row.
  'FIDELITY.md': [
    {
      anchor: '| `container.projects.locations.clusters.setLegacyAbac` |',
      where: 'before',
      insert:
        '| `container.projects.locations.clusters.setToyField` | v1beta1 | `POST projects/{projectsId}/locations/{locationsId}/clusters/{clustersId}:setToyField` | SetToyField | simulated (toy field, below) |\n' +
        '| `container.projects.zones.clusters.toyField` | v1beta1 | `POST projects/{projectId}/zones/{zone}/clusters/{clusterId}/toyField` | SetToyField | simulated (toy field, below) |\n',
    },
    {
      anchor: '| Cluster setters |',
      where: 'before',
      insert:
        '| Toy field | `setToyField` starts one UPDATE_CLUSTER operation; its text is the description when DONE. |\n',
    },
  ],
};

/**
 * A read-only toy, `clusters.getToyInfo` (RPC `GetToyInfo`): the cluster's description, read as it is.
 * Its edits, by file: the list ARCHITECTURE.md gives for a read-only method.
 */
export const READ_EDITS: Readonly<Record<string, readonly ToyEdit[]>> = {
  // 1. The route row, readOnly, with its response message.
  'src/http/routes/cluster-setters.ts': [
    {
      anchor:
        "import { clusterJwks, clusterOpenIdConfig, listLocations } from '../../domain/cluster-info';\n",
      where: 'after',
      insert: "import { toyInfo } from '../../domain/cluster-info';\n",
    },
    {
      anchor: '/** The simulated RPCs served through the discovery table, by RPC name. */\n',
      where: 'before',
      insert:
        'const GetToyInfoResponse = z.object({ description: z.string().optional() });\n\n' +
        'function handleGetToyInfo(a: Args<unknown>): Result<unknown, HttpError> {\n' +
        '  const record = clusterOf(a);\n' +
        '  return record.ok ? ok(toyInfo(record.value)) : record;\n' +
        '}\n\n',
    },
    {
      anchor: '      ...rotationSpecs,\n',
      where: 'before',
      insert:
        "      { operation: 'clusters.getToyInfo', rpc: 'GetToyInfo', permission: 'container.clusters.get', level: 'cluster', readOnly: true, response: GetToyInfoResponse, handle: handleGetToyInfo },\n",
    },
  ],
  // 2. The read, in the domain file of its family.
  'src/domain/cluster-info.ts': [
    {
      anchor: '\nexport function clusterJwks(',
      where: 'before',
      insert:
        "\n/** getToyInfo: the cluster's description. */\nexport function toyInfo(record: ClusterRecord) {\n  return { description: record.cluster.description };\n}\n",
    },
  ],
  // 3. What is faithful.
  'FIDELITY.md': [
    {
      anchor: '| `container.projects.locations.clusters.setLegacyAbac` |',
      where: 'before',
      insert:
        '| `container.projects.locations.clusters.getToyInfo` | v1beta1 | `GET projects/{projectsId}/locations/{locationsId}/clusters/{clustersId}:getToyInfo` | GetToyInfo | simulated (toy field, below) |\n',
    },
  ],
};

/** `text` with one edit made; an anchor that is missing or not unique fails loudly. */
export function applyEdit(file: string, text: string, edit: ToyEdit): string {
  const at = text.indexOf(edit.anchor);
  if (at < 0 || text.indexOf(edit.anchor, at + 1) >= 0) {
    throw new Error(`${file}: the anchor ${JSON.stringify(edit.anchor)} is not there exactly once`);
  }
  const cut = edit.where === 'before' ? at : at + edit.anchor.length;
  return text.slice(0, cut) + edit.insert + text.slice(cut);
}
