import { describe, expect, it } from 'vitest';
import { parseCvatError } from '../consumers/cvat-http/src';

describe('parseCvatError', () => {
  it('reads serializer field errors and non_field_errors', () => {
    expect(
      parseCvatError(400, { target_url: ['Enter a valid URL.'], non_field_errors: ['Invalid events list'] }),
    ).toEqual({
      kind: 'validation',
      status: 400,
      fieldErrors: { target_url: ['Enter a valid URL.'] },
      nonFieldErrors: ['Invalid events list'],
    });
  });

  it('reads the bare list a ValidationError outside a serializer renders', () => {
    expect(parseCvatError(400, ["'from' must be before than 'to'"])).toMatchObject({
      kind: 'validation',
      nonFieldErrors: ["'from' must be before than 'to'"],
    });
  });

  it('reads a plain-string field error and a nested list error', () => {
    expect(
      parseCvatError(400, {
        scope: 'Event scope **x** is not allowed from client',
        events: [{}, { timestamp: ['This field is required.'] }],
      }),
    ).toMatchObject({
      fieldErrors: {
        scope: ['Event scope **x** is not allowed from client'],
        events: ['[{},{"timestamp":["This field is required."]}]'],
      },
    });
  });

  it('reads detail bodies by status', () => {
    expect(parseCvatError(401, { detail: 'Invalid token.' })).toEqual({
      kind: 'unauthenticated',
      status: 401,
      detail: 'Invalid token.',
    });
    expect(parseCvatError(404, { detail: 'No Webhook matches the given query.' })).toMatchObject({
      kind: 'not-found',
    });
  });

  it('keeps anything else as unexpected, body included', () => {
    expect(parseCvatError(500, '<html>Server Error</html>')).toEqual({
      kind: 'unexpected',
      status: 500,
      body: '<html>Server Error</html>',
    });
  });
});
