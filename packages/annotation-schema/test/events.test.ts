import { describe, expect, it } from 'vitest';
import {
  clientEventsRequestSchema,
  clientEventsSchema,
  EVENT_LOG_CSV_COLUMNS,
  queryIdSchema,
  requestSchema,
  rqIdSchema,
} from '../src/events';

describe('events schemas', () => {
  it('accepts the documented 201 body of POST /api/events, previous_event included', () => {
    const body = {
      events: [
        {
          scope: 'click:element',
          obj_name: 'button',
          timestamp: '2026-08-12T10:00:00.412000Z',
          duration: 0,
          payload: '{"x": 1}',
          source: 'client',
          org_id: 1,
          org_slug: 'myorg',
          user_id: 2,
          user_name: 'john',
          user_email: 'john@example.com',
        },
      ],
      previous_event: null,
      timestamp: '2026-08-12T10:00:05Z',
    };
    expect(clientEventsSchema.parse(body)).toEqual(body);
  });

  it('requires timestamp at the top level and scope and timestamp per event', () => {
    expect(clientEventsRequestSchema.safeParse({ events: [] }).success).toBe(false);
    expect(
      clientEventsRequestSchema.safeParse({ timestamp: '2026-01-01T00:00:00Z', events: [{ scope: 'x' }] })
        .success,
    ).toBe(false);
    expect(clientEventsRequestSchema.parse({ timestamp: '2026-01-01T00:00:00Z' }).events).toEqual([]);
  });

  it('rejects empty strings in request events, as minLength 1 says', () => {
    const event = { scope: 'click:element', timestamp: '2026-01-01T00:00:00Z', obj_name: '' };
    expect(
      clientEventsRequestSchema.safeParse({ timestamp: '2026-01-01T00:00:00Z', events: [event] }).success,
    ).toBe(false);
  });

  it('describes a finished events export Request', () => {
    const id = 'action=export&target=events&id=0b5a2b8e-4a57-4f1e-9a53-3b1f4a0c9d11&user_id=1';
    const request = {
      status: 'finished',
      message: '',
      id,
      operation: {
        type: 'export:events',
        target: 'events',
        project_id: null,
        task_id: null,
        job_id: null,
        org_id: null,
        format: null,
        lightweight: null,
      },
      progress: 0,
      created_date: '2026-01-01T00:00:00Z',
      started_date: '2026-01-01T00:00:00.500000Z',
      finished_date: '2026-01-01T00:00:02Z',
      expiry_date: '2026-01-02T00:00:02Z',
      owner: { id: 1, username: 'admin' },
      result_url: `http://localhost/api/events/download?rq_id=${encodeURIComponent(id)}`,
      result_id: null,
    };
    expect(requestSchema.parse(request)).toEqual(request);
    expect(requestSchema.safeParse({ ...request, status: 'deferred' }).success).toBe(false);
  });

  it('describes rq_id and query_id bodies', () => {
    expect(rqIdSchema.parse({ rq_id: 'x' })).toEqual({ rq_id: 'x' });
    expect(queryIdSchema.safeParse({ query_id: 'not-a-uuid' }).success).toBe(false);
  });

  it('lists the CSV columns of the event log in CVAT order', () => {
    expect(EVENT_LOG_CSV_COLUMNS.join(',')).toBe(
      'scope,obj_name,obj_id,obj_val,source,timestamp,count,duration,project_id,task_id,job_id,user_id,user_name,user_email,org_id,org_slug,payload,access_token_id',
    );
  });
});
