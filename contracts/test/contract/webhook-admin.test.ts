import { MatchersV3, type PactV4 } from '@pact-foundation/pact';
import { beforeAll, describe, expect, it } from 'vitest';
import { createCvatHttp } from '../../consumers/cvat-http/src';
import { createWebhookAdmin } from '../../consumers/webhook-admin/src';
import { annotationStates } from '../../src/states';
import { CVAT_REQUEST, CVAT_RESPONSE, DRF_NOT_FOUND, PROJECT, USER } from './support/cvat';
import { addInteractionGiven, createPact, type GivenState, recorded } from './support/pact';

const { eachLike, integer, regex, string } = MatchersV3;

const WEBHOOK_ID = 10;
const DELIVERY_ID = 21;
const TARGET_URL = 'https://hooks.example.com/cvat';
const EVENTS_SENT = ['update:task', 'create:task', 'delete:task', 'update:job'];
// CVAT stores the events as a set and returns them sorted (reference §2.7).
const EVENTS_STORED = ['create:task', 'delete:task', 'update:job', 'update:task'];

const USER_STATE = annotationStates.user.with({ username: USER.name, userId: USER.id, token: USER.token });
const PROJECT_STATE = annotationStates.project.with({
  projectId: PROJECT.id,
  projectName: PROJECT.name,
  username: USER.name,
});
const WEBHOOK_STATE = annotationStates.projectWebhook.with({
  webhookId: WEBHOOK_ID,
  projectId: PROJECT.id,
  events: EVENTS_STORED,
  targetUrl: TARGET_URL,
});

function adminFor(url: string, token: string = USER.token) {
  return createWebhookAdmin({ http: createCvatHttp({ baseUrl: url, token }) });
}

function creationBody(overrides: { target_url?: string; project_id?: number; events?: string[] } = {}) {
  return {
    target_url: TARGET_URL,
    description: '',
    type: 'project',
    project_id: PROJECT.id,
    events: EVENTS_SENT,
    content_type: 'application/json',
    secret: 'hunter2-but-longer',
    is_active: true,
    enable_ssl: true,
    ...overrides,
  };
}

function create(admin: ReturnType<typeof adminFor>, overrides: Parameters<typeof creationBody>[0] = {}) {
  const body = creationBody(overrides);
  return admin.createProjectWebhook({
    projectId: body.project_id,
    targetUrl: body.target_url,
    events: body.events,
    secret: body.secret,
  });
}

/** A 400 from webhook creation, with the body CVAT renders for it. */
async function rejectsCreation(
  pact: PactV4,
  description: string,
  states: readonly GivenState[],
  overrides: Parameters<typeof creationBody>[0],
  errorBody: unknown,
) {
  return addInteractionGiven(pact, states)
    .uponReceiving(description)
    .withRequest('POST', '/api/webhooks', (b) => b.headers(CVAT_REQUEST).jsonBody(creationBody(overrides)))
    .willRespondWith(400, (b) => b.headers(CVAT_RESPONSE).jsonBody(errorBody))
    .executeTest(recorded(pact, (server) => create(adminFor(server.url), overrides)));
}

describe('webhook-admin → annotation-sim', () => {
  let pact: PactV4;
  beforeAll(() => {
    pact = createPact('webhook-admin', 'annotation-sim');
  });

  it('creates a project webhook and reads back its id and sorted events', async () => {
    await pact
      .addInteraction()
      .given(...USER_STATE)
      .given(...PROJECT_STATE)
      .uponReceiving('a request to create a webhook for project 1')
      .withRequest('POST', '/api/webhooks', (b) => b.headers(CVAT_REQUEST).jsonBody(creationBody()))
      .willRespondWith(201, (b) =>
        b.headers(CVAT_RESPONSE).jsonBody({
          id: integer(WEBHOOK_ID),
          target_url: TARGET_URL,
          type: 'project',
          project_id: PROJECT.id,
          events: EVENTS_STORED,
          is_active: true,
        }),
      )
      .executeTest(
        recorded(pact, async (server) => {
          const created = await create(adminFor(server.url));
          expect(created).toEqual({
            ok: true,
            value: {
              id: WEBHOOK_ID,
              targetUrl: TARGET_URL,
              type: 'project',
              projectId: PROJECT.id,
              events: EVENTS_STORED,
              isActive: true,
            },
          });
        }),
      );
  });

  it('reports a target URL without a top-level domain as a target_url field error', async () => {
    // Django's URLValidator wants localhost, an IP or a dotted name (test comment in CVAT's suite).
    const result = await rejectsCreation(
      pact,
      'a request to create a webhook whose target URL has no top-level domain',
      [USER_STATE, PROJECT_STATE],
      { target_url: 'http://webhooks:2020/payload' },
      { target_url: ['Enter a valid URL.'] },
    );
    expect(result).toEqual({
      ok: false,
      error: {
        kind: 'validation',
        status: 400,
        fieldErrors: { target_url: ['Enter a valid URL.'] },
        nonFieldErrors: [],
      },
    });
  });

  it('reports an unknown event key as an events field error', async () => {
    const result = await rejectsCreation(
      pact,
      'a request to create a webhook with an unknown event key',
      [USER_STATE, PROJECT_STATE],
      { events: ['create:task', 'some:event'] },
      { events: ['"some:event" is not a valid choice.'] },
    );
    expect(result).toMatchObject({
      ok: false,
      error: { kind: 'validation', fieldErrors: { events: ['"some:event" is not a valid choice.'] } },
    });
  });

  it('reports an organization-only event on a project webhook as a non-field error', async () => {
    const result = await rejectsCreation(
      pact,
      'a request to create a project webhook subscribed to update:organization',
      [USER_STATE, PROJECT_STATE],
      { events: ['create:task', 'update:organization'] },
      { non_field_errors: ['Invalid events list for project webhook'] },
    );
    expect(result).toMatchObject({
      ok: false,
      error: {
        kind: 'validation',
        fieldErrors: {},
        nonFieldErrors: ['Invalid events list for project webhook'],
      },
    });
  });

  it('reports an unknown project from the bare-list body the permission check raises', async () => {
    const result = await rejectsCreation(
      pact,
      'a request to create a webhook for project 999, which does not exist',
      [USER_STATE],
      { project_id: 999 },
      ['Could not find project with provided id: 999'],
    );
    expect(result).toMatchObject({
      ok: false,
      error: { kind: 'validation', nonFieldErrors: ['Could not find project with provided id: 999'] },
    });
  });

  it("lists a project's webhooks from the paginated envelope", async () => {
    await pact
      .addInteraction()
      .given(...USER_STATE)
      .given(...PROJECT_STATE)
      .given(...WEBHOOK_STATE)
      .uponReceiving('a request to list the webhooks of project 1')
      .withRequest('GET', '/api/webhooks', (b) =>
        b.headers(CVAT_REQUEST).query({ project_id: String(PROJECT.id) }),
      )
      .willRespondWith(200, (b) =>
        b.headers(CVAT_RESPONSE).jsonBody({
          count: integer(1),
          // One webhook fits on the first page (default page size 10), so there is no next page.
          next: null,
          results: eachLike({
            id: WEBHOOK_ID,
            target_url: TARGET_URL,
            type: 'project',
            project_id: PROJECT.id,
            events: EVENTS_STORED,
            is_active: true,
          }),
        }),
      )
      .executeTest(
        recorded(pact, async (server) => {
          const listed = await adminFor(server.url).listProjectWebhooks(PROJECT.id);
          expect(listed).toEqual({
            ok: true,
            value: [
              {
                id: WEBHOOK_ID,
                targetUrl: TARGET_URL,
                type: 'project',
                projectId: PROJECT.id,
                events: EVENTS_STORED,
                isActive: true,
              },
            ],
          });
        }),
      );
  });

  it('updates the events and deactivates a webhook with PATCH', async () => {
    await pact
      .addInteraction()
      .given(...USER_STATE)
      .given(...PROJECT_STATE)
      .given(...WEBHOOK_STATE)
      .uponReceiving('a request to change the events of webhook 10 and deactivate it')
      .withRequest('PATCH', `/api/webhooks/${WEBHOOK_ID}`, (b) =>
        b.headers(CVAT_REQUEST).jsonBody({ events: ['update:task', 'create:task'], is_active: false }),
      )
      .willRespondWith(200, (b) =>
        b.headers(CVAT_RESPONSE).jsonBody({
          id: WEBHOOK_ID,
          target_url: TARGET_URL,
          type: 'project',
          project_id: PROJECT.id,
          events: ['create:task', 'update:task'],
          is_active: false,
        }),
      )
      .executeTest(
        recorded(pact, async (server) => {
          const updated = await adminFor(server.url).updateWebhook(WEBHOOK_ID, {
            events: ['update:task', 'create:task'],
            isActive: false,
          });
          expect(updated).toMatchObject({
            ok: true,
            value: { events: ['create:task', 'update:task'], isActive: false },
          });
        }),
      );
  });

  it('reports an unknown webhook as not found', async () => {
    await pact
      .addInteraction()
      .given(...USER_STATE)
      .uponReceiving('a request to update webhook 999, which does not exist')
      .withRequest('PATCH', '/api/webhooks/999', (b) =>
        b.headers(CVAT_REQUEST).jsonBody({ is_active: false }),
      )
      .willRespondWith(404, (b) => b.headers(CVAT_RESPONSE).jsonBody(DRF_NOT_FOUND('Webhook')))
      .executeTest(
        recorded(pact, async (server) => {
          const updated = await adminFor(server.url).updateWebhook(999, { isActive: false });
          expect(updated).toEqual({
            ok: false,
            error: { kind: 'not-found', status: 404, detail: 'No Webhook matches the given query.' },
          });
        }),
      );
  });

  it("pings a webhook and reads the receiver's answer from the delivery", async () => {
    await pact
      .addInteraction()
      .given(...USER_STATE)
      .given(...PROJECT_STATE)
      .given(...WEBHOOK_STATE)
      .given(...annotationStates.receiverAnswers.with({ targetUrl: TARGET_URL, statusCode: 200 }))
      .uponReceiving('a request to ping webhook 10 whose receiver answers 200')
      .withRequest('POST', `/api/webhooks/${WEBHOOK_ID}/ping`, (b) => b.headers(CVAT_REQUEST))
      .willRespondWith(200, (b) =>
        b.headers(CVAT_RESPONSE).jsonBody({
          id: integer(22),
          webhook_id: WEBHOOK_ID,
          event: 'ping',
          status_code: 200,
          redelivery: false,
        }),
      )
      .executeTest(
        recorded(pact, async (server) => {
          const ping = await adminFor(server.url).ping(WEBHOOK_ID);
          expect(ping).toEqual({
            ok: true,
            value: { id: 22, webhookId: WEBHOOK_ID, event: 'ping', statusCode: 200, redelivery: false },
          });
        }),
      );
  });

  it("gets 200 from a ping whose receiver fails, with the receiver's 500 in status_code", async () => {
    await pact
      .addInteraction()
      .given(...USER_STATE)
      .given(...PROJECT_STATE)
      .given(...WEBHOOK_STATE)
      .given(...annotationStates.receiverAnswers.with({ targetUrl: TARGET_URL, statusCode: 500 }))
      .uponReceiving('a request to ping webhook 10 whose receiver answers 500')
      .withRequest('POST', `/api/webhooks/${WEBHOOK_ID}/ping`, (b) => b.headers(CVAT_REQUEST))
      .willRespondWith(200, (b) =>
        b.headers(CVAT_RESPONSE).jsonBody({
          id: integer(22),
          webhook_id: WEBHOOK_ID,
          event: 'ping',
          status_code: 500,
          redelivery: false,
        }),
      )
      .executeTest(
        recorded(pact, async (server) => {
          const ping = await adminFor(server.url).ping(WEBHOOK_ID);
          expect(ping).toMatchObject({ ok: true, value: { event: 'ping', statusCode: 500 } });
        }),
      );
  });

  it('redelivers the failed deliveries it finds in the delivery list', async () => {
    const states = [
      USER_STATE,
      PROJECT_STATE,
      WEBHOOK_STATE,
      annotationStates.delivery.with({
        webhookId: WEBHOOK_ID,
        deliveryId: DELIVERY_ID,
        event: 'update:task',
        statusCode: 500,
      }),
    ];
    addInteractionGiven(pact, states)
      .uponReceiving('a request to list the deliveries of webhook 10')
      .withRequest('GET', `/api/webhooks/${WEBHOOK_ID}/deliveries`, (b) => b.headers(CVAT_REQUEST))
      .willRespondWith(200, (b) =>
        b.headers(CVAT_RESPONSE).jsonBody({
          count: integer(1),
          next: null,
          results: eachLike({
            id: DELIVERY_ID,
            webhook_id: WEBHOOK_ID,
            event: 'update:task',
            status_code: 500,
            redelivery: false,
          }),
        }),
      );
    await addInteractionGiven(pact, states)
      .uponReceiving('a request to redeliver delivery 21 of webhook 10')
      .withRequest('POST', `/api/webhooks/${WEBHOOK_ID}/deliveries/${DELIVERY_ID}/redelivery`, (b) =>
        b.headers(CVAT_REQUEST),
      )
      // The schema says "No response body"; CVAT answers `{}` (reference §2.5).
      .willRespondWith(200, (b) => b.headers(CVAT_RESPONSE).jsonBody({}))
      .executeTest(
        recorded(pact, async (server) => {
          const redelivered = await adminFor(server.url).redeliverFailed(WEBHOOK_ID);
          expect(redelivered).toEqual({ ok: true, value: [DELIVERY_ID] });
        }),
      );
  });

  it('reads one delivery with the payload that was sent', async () => {
    await pact
      .addInteraction()
      .given(...USER_STATE)
      .given(...PROJECT_STATE)
      .given(...WEBHOOK_STATE)
      .given(
        ...annotationStates.delivery.with({
          webhookId: WEBHOOK_ID,
          deliveryId: DELIVERY_ID,
          event: 'update:task',
          statusCode: 500,
        }),
      )
      .uponReceiving('a request to read delivery 21 of webhook 10')
      .withRequest('GET', `/api/webhooks/${WEBHOOK_ID}/deliveries/${DELIVERY_ID}`, (b) =>
        b.headers(CVAT_REQUEST),
      )
      .willRespondWith(200, (b) =>
        b.headers(CVAT_RESPONSE).jsonBody({
          id: DELIVERY_ID,
          webhook_id: WEBHOOK_ID,
          event: 'update:task',
          status_code: 500,
          redelivery: false,
          request: { event: 'update:task', webhook_id: WEBHOOK_ID },
          // The receiver's body, decoded as text.
          response: string('Internal Server Error'),
        }),
      )
      .executeTest(
        recorded(pact, async (server) => {
          const delivery = await adminFor(server.url).getDelivery(WEBHOOK_ID, DELIVERY_ID);
          expect(delivery).toMatchObject({
            ok: true,
            value: {
              id: DELIVERY_ID,
              statusCode: 500,
              request: { event: 'update:task', webhook_id: WEBHOOK_ID },
            },
          });
        }),
      );
  });

  it('reports an unknown token as unauthenticated', async () => {
    const unknownToken = '0000000000000000000000000000000000000000';
    await pact
      .addInteraction()
      .uponReceiving('a request to list webhooks with an unknown token')
      .withRequest('GET', '/api/webhooks', (b) =>
        b
          .headers({ ...CVAT_REQUEST, Authorization: `Token ${unknownToken}` })
          .query({ project_id: String(PROJECT.id) }),
      )
      .willRespondWith(401, (b) =>
        // DRF names the first authentication scheme, TokenAuthentication, in the challenge (reference §4.2).
        b
          .headers({ ...CVAT_RESPONSE, 'WWW-Authenticate': regex(/^Token\b/, 'Token') })
          .jsonBody({ detail: 'Invalid token.' }),
      )
      .executeTest(
        recorded(pact, async (server) => {
          const listed = await adminFor(server.url, unknownToken).listProjectWebhooks(PROJECT.id);
          expect(listed).toEqual({
            ok: false,
            error: { kind: 'unauthenticated', status: 401, detail: 'Invalid token.' },
          });
        }),
      );
  });
});
