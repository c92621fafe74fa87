import { MatchersV3, type PactV4 } from '@pact-foundation/pact';
import { beforeAll, describe, expect, it } from 'vitest';
import { createWebhookReceiver, signBody, type WebhookEvent } from '../../consumers/webhook-receiver/src';
import { webhookMessageStates } from '../../src/states';
import { pythonJsonDumps } from '../support/python-json';
import { createPact, type GivenState } from './support/pact';

const { integer, number, regex, string } = MatchersV3;

const SECRET = 'b5c1f0e2a9d84e7c'; // the webhook's secret, shared by CVAT and the receiver
const ORG_SECRET = 'org-webhook-secret';
const PROJECT_ID = 1;
const WEBHOOK_ID = 10;
const ORG_WEBHOOK_ID = 11;
const TASK_ID = 42;
const USERNAME = 'alice';

const PROJECT_WEBHOOK = webhookMessageStates.projectWebhook.with({
  webhookId: WEBHOOK_ID,
  projectId: PROJECT_ID,
  events: ['create:task', 'delete:task', 'update:job', 'update:task'],
  secret: SECRET,
});

/**
 * Pins one delivery and feeds it to the receiver as CVAT sends it: the body serialised by Python's
 * `json.dumps`, signed with the webhook's secret over those exact bytes.
 */
async function receives(
  pact: PactV4,
  states: readonly GivenState[],
  description: string,
  contents: Record<string, unknown>,
  secret = SECRET,
): Promise<{ status: number; events: WebhookEvent[] }> {
  const example = pythonJsonDumps(MatchersV3.reify(contents));
  const events: WebhookEvent[] = [];
  const receiver = createWebhookReceiver({ secret, onEvent: (event) => void events.push(event) });
  const answer = await states
    .reduce(
      (interaction, [name, params]) => interaction.given(name, params),
      pact.addAsynchronousInteraction(),
    )
    .expectsToReceive(description, (builder) =>
      builder
        .withJSONContent(contents)
        // CVAT's delivery headers: the signature is over the body bytes, so its value differs for
        // every body; its presence and form are what the receiver relies on.
        .withMetadata({
          'Content-Type': 'application/json',
          'X-Signature-256': regex(/^sha256=[0-9a-f]{64}$/, signBody(secret, example)),
        }),
    )
    .executeTest(async (message) => {
      const body = Buffer.from(pythonJsonDumps(message.contents.content));
      return receiver.handle({
        headers: { 'content-type': 'application/json', 'x-signature-256': signBody(secret, body) },
        body,
      });
    });
  return { status: answer?.status ?? 0, events };
}

// DRF's ISO 8601 in UTC: microseconds when there are any, `Z` for +00:00.
const DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;
const TASK_RQ_ID = `action=create&target=task&target_id=${TASK_ID}`;

describe('webhook-receiver ← annotation-sim-webhooks', () => {
  let pact: PactV4;
  beforeAll(() => {
    pact = createPact('webhook-receiver', 'annotation-sim-webhooks');
  });

  it('accepts a signed create:task delivery and reports the new task', async () => {
    const result = await receives(
      pact,
      [
        PROJECT_WEBHOOK,
        webhookMessageStates.taskCreated.with({
          username: USERNAME,
          taskId: TASK_ID,
          taskName: 'Street signs',
          projectId: PROJECT_ID,
        }),
      ],
      'a create:task delivery for a task created in project 1',
      {
        event: 'create:task',
        webhook_id: WEBHOOK_ID,
        // The task as GET /api/tasks/42 shows it; the receiver reads these fields.
        task: { id: TASK_ID, name: 'Street signs', project_id: PROJECT_ID },
        sender: { username: USERNAME },
      },
    );
    expect(result).toEqual({
      status: 200,
      events: [
        {
          kind: 'task-created',
          webhookId: WEBHOOK_ID,
          task: { id: TASK_ID, name: 'Street signs', projectId: PROJECT_ID },
          sender: USERNAME,
        },
      ],
    });
  });

  it('reports a renamed task with its old name from before_update', async () => {
    const result = await receives(
      pact,
      [
        PROJECT_WEBHOOK,
        webhookMessageStates.taskRenamed.with({
          username: USERNAME,
          taskId: TASK_ID,
          projectId: PROJECT_ID,
          oldName: 'Street signs',
          newName: 'Street signs v2',
        }),
      ],
      'an update:task delivery for a renamed task',
      {
        event: 'update:task',
        webhook_id: WEBHOOK_ID,
        task: { id: TASK_ID, name: 'Street signs v2' },
        // Old values of the changed fields; `updated_date` normally comes along (reference §2.4).
        before_update: { name: 'Street signs' },
        sender: { username: USERNAME },
      },
    );
    expect(result).toEqual({
      status: 200,
      events: [
        {
          kind: 'task-updated',
          webhookId: WEBHOOK_ID,
          task: { id: TASK_ID, name: 'Street signs v2' },
          previousName: 'Street signs',
          sender: USERNAME,
        },
      ],
    });
  });

  it('reports a deleted task from its pre-delete snapshot', async () => {
    const result = await receives(
      pact,
      [
        PROJECT_WEBHOOK,
        webhookMessageStates.taskDeleted.with({ username: USERNAME, taskId: TASK_ID, projectId: PROJECT_ID }),
      ],
      'a delete:task delivery',
      {
        event: 'delete:task',
        task: { id: TASK_ID, name: string('Street signs') },
        sender: { username: USERNAME },
        webhook_id: WEBHOOK_ID,
      },
    );
    expect(result).toEqual({
      status: 200,
      events: [
        {
          kind: 'task-deleted',
          webhookId: WEBHOOK_ID,
          task: { id: TASK_ID, name: 'Street signs' },
          sender: USERNAME,
        },
      ],
    });
  });

  it('reports a job moving to completed with its previous state', async () => {
    const result = await receives(
      pact,
      [
        PROJECT_WEBHOOK,
        webhookMessageStates.jobStateChanged.with({
          username: USERNAME,
          jobId: 7,
          taskId: TASK_ID,
          projectId: PROJECT_ID,
          fromState: 'in progress',
          toState: 'completed',
        }),
      ],
      'an update:job delivery for a job whose state changed',
      {
        event: 'update:job',
        webhook_id: WEBHOOK_ID,
        job: { id: 7, task_id: TASK_ID, state: 'completed', stage: string('annotation') },
        // `state` is the model attribute name (2.73) and the serializer field name (earlier) alike.
        before_update: { state: 'in progress' },
        sender: { username: USERNAME },
      },
    );
    expect(result).toEqual({
      status: 200,
      events: [
        {
          kind: 'job-updated',
          webhookId: WEBHOOK_ID,
          job: { id: 7, taskId: TASK_ID, state: 'completed', stage: 'annotation' },
          previousState: 'in progress',
          sender: USERNAME,
        },
      ],
    });
  });

  it("reports a job whose annotations were saved: CVAT's touch() of the job, whose before_update holds only updated_date", async () => {
    const result = await receives(
      pact,
      [
        PROJECT_WEBHOOK,
        webhookMessageStates.jobAnnotationsSaved.with({
          username: USERNAME,
          jobId: 7,
          taskId: TASK_ID,
          projectId: PROJECT_ID,
        }),
      ],
      'an update:job delivery for a job whose annotations were saved',
      {
        event: 'update:job',
        webhook_id: WEBHOOK_ID,
        job: { id: 7, task_id: TASK_ID, state: string('new'), stage: string('annotation') },
        before_update: { updated_date: regex(DATE, '2026-08-12T10:00:00.104000Z') },
        sender: { username: USERNAME },
      },
    );
    expect(result).toEqual({
      status: 200,
      events: [
        {
          kind: 'job-updated',
          webhookId: WEBHOOK_ID,
          job: { id: 7, taskId: TASK_ID, state: 'new', stage: 'annotation' },
          previousState: null,
          sender: USERNAME,
        },
      ],
    });
  });

  it('answers a ping, which names its webhook in `webhook` rather than `webhook_id`', async () => {
    const result = await receives(
      pact,
      [
        PROJECT_WEBHOOK,
        webhookMessageStates.webhookPinged.with({ username: USERNAME, webhookId: WEBHOOK_ID }),
      ],
      'a ping delivery',
      {
        event: 'ping',
        webhook: { id: WEBHOOK_ID, project_id: PROJECT_ID, type: 'project' },
        sender: { username: USERNAME },
      },
    );
    expect(result).toEqual({
      status: 200,
      events: [{ kind: 'ping', webhookId: WEBHOOK_ID, sender: USERNAME }],
    });
  });

  it('reports the finished creation of a task from the request of completed:request[create:task]', async () => {
    const result = await receives(
      pact,
      [
        webhookMessageStates.projectWebhook.with({
          webhookId: WEBHOOK_ID,
          projectId: PROJECT_ID,
          events: ['completed:request[create:task]'],
          secret: SECRET,
        }),
        webhookMessageStates.taskDataCreated.with({
          username: USERNAME,
          taskId: TASK_ID,
          projectId: PROJECT_ID,
        }),
      ],
      'a completed:request[create:task] delivery for the finished creation of task 42',
      {
        // Key order `event, request, webhook_id`; no `sender` (reference §2.4).
        event: 'completed:request[create:task]',
        // Exactly what GET /api/requests/{rq_id} answers when the request ends (task-creator pact).
        request: {
          status: 'finished',
          message: '',
          id: TASK_RQ_ID,
          operation: {
            type: 'create:task',
            target: 'task',
            project_id: PROJECT_ID,
            task_id: TASK_ID,
            job_id: null,
            org_id: null,
            format: null,
            lightweight: null,
          },
          progress: number(0),
          created_date: regex(DATE, '2026-08-12T10:00:00.104000Z'),
          started_date: regex(DATE, '2026-08-12T10:00:00.104000Z'),
          finished_date: regex(DATE, '2026-08-12T10:00:02.356000Z'),
          expiry_date: regex(DATE, '2026-08-12T10:08:22.356000Z'),
          owner: { id: integer(2), username: USERNAME },
          result_url: null,
          result_id: null,
        },
        webhook_id: WEBHOOK_ID,
      },
    );
    expect(result).toEqual({
      status: 200,
      events: [
        {
          kind: 'request-completed',
          webhookId: WEBHOOK_ID,
          request: {
            id: TASK_RQ_ID,
            status: 'finished',
            message: '',
            type: 'create:task',
            taskId: TASK_ID,
            projectId: PROJECT_ID,
            finishedDate: '2026-08-12T10:00:02.356000Z',
            resultUrl: null,
          },
        },
      ],
    });
  });

  it('reports a new organization member from an organization webhook', async () => {
    const result = await receives(
      pact,
      [
        webhookMessageStates.organizationWebhook.with({
          webhookId: ORG_WEBHOOK_ID,
          orgId: 3,
          orgSlug: 'street-team',
          events: ['create:membership'],
          secret: ORG_SECRET,
        }),
        webhookMessageStates.memberJoined.with({ username: 'bob', orgSlug: 'street-team', role: 'worker' }),
      ],
      'a create:membership delivery for an organization webhook',
      {
        event: 'create:membership',
        webhook_id: ORG_WEBHOOK_ID,
        membership: { id: integer(5), user: { username: 'bob' }, role: 'worker', organization: 3 },
      },
      ORG_SECRET,
    );
    expect(result).toEqual({
      status: 200,
      events: [
        {
          kind: 'membership-created',
          webhookId: ORG_WEBHOOK_ID,
          organizationId: 3,
          username: 'bob',
          role: 'worker',
        },
      ],
    });
  });
});
