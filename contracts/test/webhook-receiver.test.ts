import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createWebhookReceiver,
  parseWebhookEvent,
  signBody,
  verifySignature,
  type WebhookEvent,
} from '../consumers/webhook-receiver/src';
import { pythonJsonDumps } from './support/python-json';

const SECRET = 'b5c1f0e2a9d84e7c';
const PING = { event: 'ping', webhook: { id: 7, events: ['create:task'] }, sender: { username: 'admin1' } };

function receiver() {
  const events: WebhookEvent[] = [];
  return { events, receiver: createWebhookReceiver({ secret: SECRET, onEvent: (e) => void events.push(e) }) };
}

function signed(body: string, secret = SECRET) {
  return { headers: { 'X-Signature-256': signBody(secret, body) }, body: Buffer.from(body) };
}

describe('signBody', () => {
  it("matches CVAT's documented signature of an empty body with the secret mykey", () => {
    // site/content/en/docs/administration/community/advanced/webhooks.md (reference §6), plus the prefix.
    expect(signBody('mykey', '')).toBe(
      'sha256=e1b24265bf2e0b20c81837993b4f1415f7b68c503114d100a40601eca6a2745f',
    );
  });
});

describe('verifySignature', () => {
  it('accepts the signature of any body under any secret', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.uint8Array(), (secret, body) =>
        verifySignature(secret, body, signBody(secret, body)),
      ),
    );
  });

  it('rejects the signature once any byte of the body changes', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1 }),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        (body, at, flip) => {
          const tampered = Uint8Array.from(body);
          const i = at % body.length;
          tampered[i] = (tampered[i] ?? 0) ^ flip;
          return !verifySignature(SECRET, tampered, signBody(SECRET, body));
        },
      ),
    );
  });

  it('rejects a signature made with another secret, a missing one, and one without the sha256= prefix', () => {
    const body = Buffer.from('{"event": "ping"}');
    expect(verifySignature(SECRET, body, signBody('other', body))).toBe(false);
    expect(verifySignature(SECRET, body, undefined)).toBe(false);
    expect(verifySignature(SECRET, body, signBody(SECRET, body).slice('sha256='.length))).toBe(false);
  });
});

describe('createWebhookReceiver', () => {
  it('accepts a delivery signed over its raw body and dispatches the event', async () => {
    const { receiver: r, events } = receiver();
    const answer = await r.handle(signed(pythonJsonDumps(PING)));
    expect(answer).toEqual({ status: 200, body: 'ok' });
    expect(events).toEqual([{ kind: 'ping', webhookId: 7, sender: 'admin1' }]);
  });

  it('finds the signature header whatever its case', async () => {
    const { receiver: r } = receiver();
    const body = pythonJsonDumps(PING);
    const answer = await r.handle({
      headers: { 'x-signature-256': signBody(SECRET, body) },
      body: Buffer.from(body),
    });
    expect(answer.status).toBe(200);
  });

  it('rejects with 403 a signature computed over a re-serialised body instead of the bytes sent', async () => {
    // CVAT signs Python's `{"event": "ping", ...}`; JSON.stringify writes `{"event":"ping",...}`.
    const { receiver: r, events } = receiver();
    const sent = pythonJsonDumps(PING);
    const answer = await r.handle({
      headers: { 'X-Signature-256': signBody(SECRET, JSON.stringify(JSON.parse(sent))) },
      body: Buffer.from(sent),
    });
    expect(answer).toEqual({ status: 403, body: 'Invalid signature' });
    expect(events).toEqual([]);
  });

  it('rejects an unsigned delivery with 403', async () => {
    const { receiver: r } = receiver();
    expect(await r.handle({ headers: {}, body: Buffer.from(pythonJsonDumps(PING)) })).toMatchObject({
      status: 403,
    });
  });

  it('answers 400 to a signed body that is not a CVAT payload', async () => {
    const { receiver: r } = receiver();
    expect((await r.handle(signed('not json'))).status).toBe(400);
    expect((await r.handle(signed('{"no": "event"}'))).status).toBe(400);
  });

  it('answers 500 when the handler fails, so that CVAT retries the delivery', async () => {
    const r = createWebhookReceiver({
      secret: SECRET,
      onEvent: () => {
        throw new Error('database down');
      },
    });
    expect(await r.handle(signed(pythonJsonDumps(PING)))).toEqual({
      status: 500,
      body: 'Handler failed: database down',
    });
  });

  it('acknowledges an event it has no use for with 200', async () => {
    const { receiver: r, events } = receiver();
    const answer = await r.handle(
      signed(pythonJsonDumps({ event: 'create:issue', webhook_id: 7, issue: { id: 1 } })),
    );
    expect(answer.status).toBe(200);
    expect(events).toEqual([{ kind: 'other', event: 'create:issue' }]);
  });

  it('refuses to start without a secret', () => {
    expect(() => createWebhookReceiver({ secret: '', onEvent: () => {} })).toThrow(/secret/);
  });
});

describe('parseWebhookEvent', () => {
  it('reads an update without before_update (CVAT ≤ 2.72 omitted it when nothing differed)', () => {
    expect(
      parseWebhookEvent({ event: 'update:task', webhook_id: 7, task: { id: 1, name: 't' }, sender: null }),
    ).toEqual({
      kind: 'task-updated',
      webhookId: 7,
      task: { id: 1, name: 't' },
      previousName: null,
      sender: null,
    });
  });

  it("reads a background worker's sender, which has an email instead of a url", () => {
    const event = parseWebhookEvent({
      event: 'create:task',
      webhook_id: 7,
      task: { id: 1, name: 't', project_id: null },
      sender: { id: 3, username: 'worker1', email: 'w@example.com' },
    });
    expect(event).toMatchObject({ kind: 'task-created', sender: 'worker1', task: { projectId: null } });
  });
});

describe('parseWebhookEvent of completed:request[…]', () => {
  it('reads a failed task creation: no sender, the request with its message', () => {
    const event = parseWebhookEvent({
      event: 'completed:request[create:task]',
      request: {
        status: 'failed',
        message: 'ValueError: No media data found\n',
        id: 'action=create&target=task&target_id=5',
        operation: { type: 'create:task', target: 'task', project_id: 1, task_id: 5, org_id: 3 },
        finished_date: '2026-08-12T10:00:02.356000Z',
        result_url: null,
      },
      webhook_id: 7,
    });
    expect(event).toEqual({
      kind: 'request-completed',
      webhookId: 7,
      request: {
        id: 'action=create&target=task&target_id=5',
        status: 'failed',
        message: 'ValueError: No media data found\n',
        type: 'create:task',
        taskId: 5,
        projectId: 1,
        finishedDate: '2026-08-12T10:00:02.356000Z',
        resultUrl: null,
      },
    });
  });

  it('reads the other completion events the same way (an export has a result_url)', () => {
    const event = parseWebhookEvent({
      event: 'completed:request[export:dataset]',
      request: {
        status: 'finished',
        message: '',
        id: 'action=export&target=task&target_id=5&user_id=2&format=COCO_1~0&subresource=dataset',
        operation: { type: 'export:dataset', target: 'task', project_id: null, task_id: 5 },
        finished_date: '2026-08-12T10:00:02Z',
        result_url: 'http://cvat.test/api/export/download?rq_id=x',
      },
      webhook_id: 7,
    });
    expect(event).toMatchObject({
      kind: 'request-completed',
      request: { type: 'export:dataset', resultUrl: 'http://cvat.test/api/export/download?rq_id=x' },
    });
  });
});

describe('pythonJsonDumps', () => {
  it("writes what Python's json.dumps writes", () => {
    // Expected strings printed by CPython 3 `json.dumps(...)`.
    expect(
      pythonJsonDumps({
        event: 'ping',
        webhook: { id: 7, events: ['create:task', 'update:job'], project_id: null, is_active: true },
        sender: { username: 'admin1' },
      }),
    ).toBe(
      '{"event": "ping", "webhook": {"id": 7, "events": ["create:task", "update:job"], "project_id": null, "is_active": true}, "sender": {"username": "admin1"}}',
    );
    expect(
      pythonJsonDumps({
        name: 'Straßenschilder – v2 😀',
        ctl: 'a\nb\tc\u001f\u007f\\/"',
        empty: {},
        list: [],
        n: -12,
        z: 0,
      }),
    ).toBe(
      '{"name": "Stra\\u00dfenschilder \\u2013 v2 \\ud83d\\ude00", "ctl": "a\\nb\\tc\\u001f\\u007f\\\\/\\"", "empty": {}, "list": [], "n": -12, "z": 0}',
    );
  });
});
