import { describe, expect, it } from 'vitest';
import { processClientEvents } from '../../src/domain/events/client-events';

const caller = { user: { id: 1, username: 'admin', email: 'admin@example.com' }, org: null };
const T = (s: string) => `2026-08-12T10:${s}Z`;
const received = Date.parse('2026-08-12T10:10:00Z') * 1000;

function workingTime(events: Record<string, unknown>[], previous?: Record<string, unknown>) {
  const r = processClientEvents(
    { timestamp: '2026-08-12T10:10:00Z', events, ...(previous ? { previous_event: previous } : {}) },
    caller,
    received,
    { id: 'req' },
  );
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  return r.value.records
    .filter((x) => x.scope === 'send:working_time')
    .map((x) => ({ job: x.job_id, ms: x.duration, at: new Date(x.timestamp).toISOString() }));
}

describe('send:working_time', () => {
  it('sums gaps shorter than 100 s and ignores longer ones', () => {
    expect(
      workingTime([
        { scope: 'load:job', job_id: 1, timestamp: T('00:00') },
        { scope: 'click:element', job_id: 1, timestamp: T('00:30') },
        { scope: 'click:element', job_id: 1, timestamp: T('02:30') }, // 120 s: idle
        { scope: 'click:element', job_id: 1, timestamp: T('02:40') },
      ]),
    ).toEqual([{ job: 1, ms: 40_000, at: '2026-08-12T10:00:00.000Z' }]);
  });

  it('adds the duration of change:frame events', () => {
    expect(
      workingTime([
        { scope: 'change:frame', job_id: 1, duration: 2500, timestamp: T('00:00') },
        { scope: 'click:element', job_id: 1, timestamp: T('00:01') }, // inside the frame's span
      ]),
    ).toEqual([{ job: 1, ms: 2500, at: '2026-08-12T10:00:00.000Z' }]);
  });

  it('counts from previous_event and attributes each gap to the ids of the event before it', () => {
    expect(
      workingTime(
        [
          { scope: 'click:element', job_id: 2, timestamp: T('00:10') },
          { scope: 'click:element', job_id: 2, timestamp: T('00:15') },
        ],
        { scope: 'load:job', job_id: 1, timestamp: T('00:00') },
      ),
    ).toEqual([
      { job: 1, ms: 10_000, at: '2026-08-12T10:00:10.000Z' },
      { job: 2, ms: 5_000, at: '2026-08-12T10:00:15.000Z' },
    ]);
  });

  it('emits nothing for a batch without events or without measurable time', () => {
    expect(workingTime([])).toEqual([]);
    expect(workingTime([{ scope: 'load:job', timestamp: T('00:00') }])).toEqual([]);
  });

  it('reports previous_event errors nested under its key', () => {
    const r = processClientEvents(
      { timestamp: '2026-08-12T10:10:00Z', previous_event: { timestamp: 'x' } },
      caller,
      received,
      { id: 'req' },
    );
    expect(r).toEqual({
      ok: false,
      error: {
        code: 'VALIDATION',
        body: {
          previous_event: {
            scope: ['This field is required.'],
            timestamp: [
              'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].',
            ],
          },
        },
      },
    });
  });
});
