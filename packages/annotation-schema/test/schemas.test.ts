import { describe, expect, it } from 'vitest';
import { EventsEnum, PROJECT_WEBHOOK_EVENT_ORDER, WEBHOOK_EVENT_CATALOGUE, WebhookRead } from '../src/index';

describe('webhook schemas', () => {
  it('lists the 28 event keys of CVAT 2.73 and 21 of them for project webhooks', () => {
    expect(WEBHOOK_EVENT_CATALOGUE).toHaveLength(28);
    expect(EventsEnum.options).toHaveLength(28);
    expect(PROJECT_WEBHOOK_EVENT_ORDER).toHaveLength(21);
    expect(PROJECT_WEBHOOK_EVENT_ORDER.slice(-2)).toEqual(['update:project', 'delete:project']);
  });

  it('accepts a webhook without last_status and last_delivery_date', () => {
    const webhook = {
      id: 1,
      url: 'http://localhost/api/webhooks/1',
      target_url: 'http://example.com/hook',
      description: '',
      type: 'project',
      content_type: 'application/json',
      is_active: true,
      enable_ssl: true,
      created_date: '2026-01-01T00:00:00Z',
      updated_date: '2026-01-01T00:00:00.123000Z',
      owner: null,
      project_id: 1,
      organization: null,
      events: ['create:task'],
    };
    expect(WebhookRead.parse(webhook)).toEqual(webhook);
  });

  it('rejects an unknown event key', () => {
    expect(EventsEnum.safeParse('create:organization').success).toBe(false);
  });
});
