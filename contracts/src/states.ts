/**
 * The provider-state vocabulary of every pact in `contracts/pacts/`, one place for both sides:
 * consumer tests call `state.with(params)` to fill `given(...)`, provider verification looks up its
 * handler by `state.template`. STATES.md says what each provider must set up for each state.
 *
 * A state's name is its template (placeholders in braces, kept literally in the pact file); the values
 * travel as the state's params. Ids, names and etags in params are exact: the provider seeds with them.
 */

/** A JSON value as Pact carries it in provider-state params. */
export type StateParam = string | number | boolean | null | StateParam[];

/** A parameterised provider state: its template and a typed way to fill it. */
export interface ProviderState<Params extends Record<string, StateParam>> {
  readonly template: string;
  /** The `[name, params]` pair for `interaction.given(...)`. */
  with(params: Params): [string, Params];
}

/**
 * Declares a provider state. The template's placeholders must be exactly the params' keys.
 *
 * @example
 * const poolAt = defineState<{ nodePool: string }>('node pool {nodePool} exists');
 * interaction.given(...poolAt.with({ nodePool: 'pool-1' }));
 */
export function defineState<Params extends Record<string, StateParam>>(
  template: string,
): ProviderState<Params> {
  const placeholders = [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
  return {
    template,
    with(params) {
      const keys = Object.keys(params).sort();
      if (keys.join() !== placeholders.join()) {
        throw new Error(`state "${template}" takes {${placeholders.join(', ')}}, got {${keys.join(', ')}}`);
      }
      return [template, params];
    },
  };
}

// ---------------------------------------------------------------- cluster-sim (GKE container API v1beta1)

/** States of the `node-pool-upgrader` and `node-count-reader` → `cluster-sim` pacts. */
export const clusterStates = {
  cluster: defineState<{
    project: string;
    location: string;
    cluster: string;
    masterVersion: string;
    validNodeVersions: string[];
  }>(
    'cluster {cluster} in {location} of project {project} runs master version {masterVersion} and offers node versions {validNodeVersions}',
  ),
  nodePool: defineState<{ nodePool: string; cluster: string; version: string; etag: string }>(
    'node pool {nodePool} in cluster {cluster} at version {version} with etag {etag}',
  ),
  operationRunning: defineState<{ operationId: string; nodePool: string; cluster: string }>(
    'an operation {operationId} on node pool {nodePool} in cluster {cluster} is running',
  ),
  operationDone: defineState<{ operationId: string; nodePool: string; cluster: string }>(
    'an operation {operationId} on node pool {nodePool} in cluster {cluster} is done',
  ),
  operationFailed: defineState<{
    operationId: string;
    nodePool: string;
    cluster: string;
    errorCode: number;
    errorMessage: string;
  }>(
    'an operation {operationId} on node pool {nodePool} in cluster {cluster} ended with error code {errorCode}: {errorMessage}',
  ),
  nodePoolUpdated: defineState<{ nodePool: string; cluster: string; nodeVersion: string }>(
    'node pool {nodePool} in cluster {cluster} was updated to node version {nodeVersion} and the operation is done',
  ),
  blueGreenSoaking: defineState<{ nodePool: string; cluster: string; nodeVersion: string }>(
    'node pool {nodePool} in cluster {cluster} is soaking in a blue-green upgrade to node version {nodeVersion}',
  ),
  tokenExpired: defineState<{ accessToken: string }>('access token {accessToken} is expired'),
  tokenLacksPermission: defineState<{ accessToken: string; permission: string }>(
    'access token {accessToken} lacks permission {permission}',
  ),
  // The `node-count-reader` → `cluster-sim` pact (Terraform's read of a pool's nodes from Compute).
  poolInZones: defineState<{
    project: string;
    location: string;
    cluster: string;
    nodePool: string;
    nodeCount: number;
    zones: string[];
  }>(
    'node pool {nodePool} of cluster {cluster} in {location} of project {project} runs {nodeCount} nodes in each of zones {zones}',
  ),
  poolDeleted: defineState<{ project: string; location: string; cluster: string; nodePool: string }>(
    'node pool {nodePool} of cluster {cluster} in {location} of project {project} was deleted',
  ),
} as const;

// ---------------------------------------------------------------- annotation-sim (CVAT REST API)

/**
 * States of the `webhook-admin`, `events-exporter`, `task-creator`, `pre-annotator`, `job-collector`,
 * `training-pipeline` and `prediction-upload` → `annotation-sim` pacts.
 */
export const annotationStates = {
  user: defineState<{ username: string; userId: number; token: string }>(
    'user {username} with id {userId} authenticates with token {token}',
  ),
  project: defineState<{ projectId: number; projectName: string; username: string }>(
    'project {projectId} named {projectName} is owned by {username}',
  ),
  projectWebhook: defineState<{
    webhookId: number;
    projectId: number;
    events: string[];
    targetUrl: string;
  }>('webhook {webhookId} of project {projectId} sends {events} to {targetUrl}'),
  receiverAnswers: defineState<{ targetUrl: string; statusCode: number }>(
    'the receiver at {targetUrl} answers {statusCode}',
  ),
  delivery: defineState<{ webhookId: number; deliveryId: number; event: string; statusCode: number }>(
    'webhook {webhookId} has delivery {deliveryId} of {event} answered with {statusCode}',
  ),
  exportRunning: defineState<{ rqId: string }>('export {rqId} is still running'),
  exportFinished: defineState<{ rqId: string }>('export {rqId} is finished'),
  exportFailed: defineState<{ rqId: string; message: string }>('export {rqId} failed with {message}'),
  legacyExportRunning: defineState<{ queryId: string }>('legacy export {queryId} is still running'),
  legacyExportFinished: defineState<{ queryId: string }>('legacy export {queryId} is finished'),
  legacyExportFailed: defineState<{ queryId: string; message: string }>(
    'legacy export {queryId} failed with {message}',
  ),
  taskWithoutData: defineState<{ taskId: number; taskName: string; projectId: number }>(
    'task {taskId} named {taskName} in project {projectId} has no data yet',
  ),
  taskCreationFinished: defineState<{ rqId: string; username: string }>(
    'task creation {rqId} requested by {username} is finished',
  ),
  // The `pre-annotator` and `job-collector` pacts (annotations).
  labelledTaskWithoutData: defineState<{
    taskId: number;
    taskName: string;
    username: string;
    labels: string[];
  }>(
    'task {taskId} named {taskName} of {username} in no project has rectangle labels {labels} and no data yet',
  ),
  labelledTaskWithImages: defineState<{
    taskId: number;
    taskName: string;
    username: string;
    labels: string[];
    firstLabelId: number;
    frames: number;
    jobId: number;
  }>(
    'task {taskId} named {taskName} of {username} in no project has rectangle labels {labels} numbered from {firstLabelId} and {frames} images in job {jobId}',
  ),
  taskRectangles: defineState<{ taskId: number; username: string; source: string; rectangles: number[][] }>(
    'task {taskId} has the {source} rectangles {rectangles} saved by {username} (each: frame, label id, x1, y1, x2, y2)',
  ),
  jobRectangles: defineState<{ jobId: number; username: string; source: string; rectangles: number[][] }>(
    'job {jobId} has the {source} rectangles {rectangles} saved by {username} (each: frame, label id, x1, y1, x2, y2)',
  ),
  // The `training-pipeline` pact (a dataset export).
  datasetExportFinished: defineState<{ taskId: number; format: string; username: string }>(
    'the export of task {taskId} as a dataset in {format} without images, asked by {username}, is finished',
  ),
  // The `prediction-upload` pact (an annotation import).
  annotationsImported: defineState<{ taskId: number; format: string; username: string; instances: string }>(
    'the annotations of task {taskId} imported by {username} in {format} from the instances {instances} are finished',
  ),
} as const;

// ---------------------------------------------------------------- annotation-sim-webhooks (message pact)

/** States of the `webhook-receiver` → `annotation-sim-webhooks` message pact. */
export const webhookMessageStates = {
  projectWebhook: defineState<{
    webhookId: number;
    projectId: number;
    events: string[];
    secret: string;
  }>('webhook {webhookId} of project {projectId} is subscribed to {events} with secret {secret}'),
  organizationWebhook: defineState<{
    webhookId: number;
    orgId: number;
    orgSlug: string;
    events: string[];
    secret: string;
  }>(
    'webhook {webhookId} of organization {orgSlug} (id {orgId}) is subscribed to {events} with secret {secret}',
  ),
  taskCreated: defineState<{ username: string; taskId: number; taskName: string; projectId: number }>(
    'user {username} creates task {taskId} named {taskName} in project {projectId}',
  ),
  taskRenamed: defineState<{
    username: string;
    taskId: number;
    projectId: number;
    oldName: string;
    newName: string;
  }>('user {username} renames task {taskId} of project {projectId} from {oldName} to {newName}'),
  taskDeleted: defineState<{ username: string; taskId: number; projectId: number }>(
    'user {username} deletes task {taskId} of project {projectId}',
  ),
  jobStateChanged: defineState<{
    username: string;
    jobId: number;
    taskId: number;
    projectId: number;
    fromState: string;
    toState: string;
  }>(
    'user {username} moves job {jobId} of task {taskId} in project {projectId} from state {fromState} to {toState}',
  ),
  jobAnnotationsSaved: defineState<{ username: string; jobId: number; taskId: number; projectId: number }>(
    'user {username} saves a rectangle as the annotations of job {jobId} of task {taskId} in project {projectId}',
  ),
  webhookPinged: defineState<{ username: string; webhookId: number }>(
    'user {username} pings webhook {webhookId}',
  ),
  memberJoined: defineState<{ username: string; orgSlug: string; role: string }>(
    'user {username} joins organization {orgSlug} as {role}',
  ),
  taskDataCreated: defineState<{ username: string; taskId: number; projectId: number }>(
    'user {username} sends the data of task {taskId} in project {projectId} and its creation finishes',
  ),
} as const;
