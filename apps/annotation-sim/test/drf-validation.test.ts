import {
  DataRequest,
  IssueWriteRequest,
  LoginRequest,
  PatchedAccessTokenWriteRequest,
  PatchedJobWriteRequest,
  PatchedWebhookWriteRequest,
  ProjectWriteRequest,
  TaskWriteRequest,
  WebhookWriteRequest,
} from '@sims/annotation-schema';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { updateAccessToken } from '../src/domain/access-tokens';
import type { AccessTokenRec } from '../src/domain/model';
import { organizationPatch } from '../src/domain/organizations';
import { validateFields } from '../src/http/parse';

/** The errors dict DRF answers for `body`, or the validated values. */
function check(schema: z.ZodObject, body: unknown, partial = false) {
  const r = validateFields(body, schema, partial);
  return r.ok ? { value: r.value } : { errors: r.errors };
}

const hook = { target_url: 'http://example.com/hook', type: 'organization', events: ['create:task'] };

describe('the request body', () => {
  it('must be a JSON object', () => {
    for (const [body, name] of [
      [[], 'list'],
      ['x', 'str'],
      [1, 'int'],
      [1.5, 'float'],
      [true, 'bool'],
      [null, 'NoneType'],
    ] as const) {
      expect(check(ProjectWriteRequest, body)).toEqual({
        errors: { non_field_errors: [`Invalid data. Expected a dictionary, but got ${name}.`] },
      });
    }
  });

  it('reports missing required fields in declaration order, and nothing for PATCH', () => {
    const r = check(IssueWriteRequest, { resolved: true });
    expect(r.errors).toEqual({
      frame: ['This field is required.'],
      position: ['This field is required.'],
      job: ['This field is required.'],
      message: ['This field is required.'],
    });
    expect(Object.keys(r.errors ?? {})).toEqual(['frame', 'position', 'job', 'message']);
    expect(check(IssueWriteRequest, { resolved: 'no' }, true)).toEqual({ value: { resolved: false } });
  });

  it('ignores unknown keys and keeps only the fields sent', () => {
    expect(check(ProjectWriteRequest, { name: 'p', color: 'red', __proto__x: 1 })).toEqual({
      value: { name: 'p' },
    });
  });

  it('reports every bad field, in the schema order whatever the body order', () => {
    const r = check(TaskWriteRequest, { subset: 'x'.repeat(65), overlap: -1, name: '' });
    expect(r.errors).toEqual({
      name: ['This field may not be blank.'],
      overlap: ['Ensure this value is greater than or equal to 0.'],
      subset: ['Ensure this field has no more than 64 characters.'],
    });
    expect(Object.keys(r.errors ?? {})).toEqual(['name', 'overlap', 'subset']);
  });
});

describe('null', () => {
  it('is refused unless the field is nullable', () => {
    expect(check(ProjectWriteRequest, { name: null, labels: null, owner_id: null })).toEqual({
      errors: { name: ['This field may not be null.'], labels: ['This field may not be null.'] },
    });
    expect(check(TaskWriteRequest, { name: 't', overlap: null, project_id: null })).toEqual({
      value: { name: 't', overlap: null, project_id: null },
    });
  });
});

describe('CharField', () => {
  it('trims, takes numbers as text, refuses blank unless the schema allows it', () => {
    expect(check(ProjectWriteRequest, { name: '  p  ', bug_tracker: '   ' })).toEqual({
      value: { name: 'p', bug_tracker: '' },
    });
    expect(check(ProjectWriteRequest, { name: 12 })).toEqual({ value: { name: '12' } });
    expect(check(ProjectWriteRequest, { name: ' \t ' })).toEqual({
      errors: { name: ['This field may not be blank.'] },
    });
  });

  it('refuses booleans, lists and objects', () => {
    for (const name of [true, [], {}]) {
      expect(check(ProjectWriteRequest, { name })).toEqual({ errors: { name: ['Not a valid string.'] } });
    }
  });

  it('checks the length after trimming', () => {
    expect(check(ProjectWriteRequest, { name: `${'x'.repeat(256)}  ` })).toEqual({
      value: { name: 'x'.repeat(256) },
    });
    expect(check(ProjectWriteRequest, { name: 'x'.repeat(257) })).toEqual({
      errors: { name: ['Ensure this field has no more than 256 characters.'] },
    });
    expect(check(z.object({ code: z.string().min(3) }), { code: ' ab ' })).toEqual({
      errors: { code: ['Ensure this field has at least 3 characters.'] },
    });
  });
});

describe('URLField', () => {
  it("takes what Django's URLValidator takes", () => {
    for (const url of [
      'http://example.com/hook',
      'HTTPS://Example.COM:8443/a?b=c#d',
      'http://localhost:8080/x',
      'http://10.0.0.1/',
      'http://[::1]:3000/',
      'ftp://user:pw@files.example.org/',
      'http://xn--bcher-kva.example/',
    ]) {
      expect(check(WebhookWriteRequest, { ...hook, target_url: ` ${url} ` }).value?.target_url).toBe(url);
    }
  });

  it('refuses other schemes, bad hosts and blank', () => {
    for (const url of [
      'mailto:a@b.cd',
      'example.com',
      'http://exa mple.com',
      'http://256.0.0.1/',
      'http://a',
    ]) {
      expect(check(WebhookWriteRequest, { ...hook, target_url: url })).toEqual({
        errors: { target_url: ['Enter a valid URL.'] },
      });
    }
    expect(check(WebhookWriteRequest, { ...hook, target_url: '' })).toEqual({
      errors: { target_url: ['This field may not be blank.'] },
    });
  });

  it('reports the length and the URL checks together', () => {
    expect(check(WebhookWriteRequest, { ...hook, target_url: 'x'.repeat(8193) })).toEqual({
      errors: {
        target_url: ['Ensure this field has no more than 8192 characters.', 'Enter a valid URL.'],
      },
    });
  });
});

describe('IntegerField', () => {
  it('takes whole numbers and their digits', () => {
    expect(check(DataRequest, { image_quality: ' 70 ', chunk_size: 0 })).toEqual({
      value: { image_quality: 70, chunk_size: 0 },
    });
    expect(check(TaskWriteRequest, { name: 't', segment_size: '99999999999' }).value?.segment_size).toBe(
      99999999999,
    );
  });

  it('refuses fractions, text and booleans', () => {
    for (const image_quality of [1.5, '1.5', 'abc', '', true, [1], {}]) {
      expect(check(DataRequest, { image_quality })).toEqual({
        errors: { image_quality: ['A valid integer is required.'] },
      });
    }
  });

  it('checks the bounds the schema declares', () => {
    expect(check(DataRequest, { image_quality: 0 })).toEqual({
      errors: { image_quality: ['Ensure this value is greater than or equal to 1.'] },
    });
    expect(check(DataRequest, { image_quality: '101' })).toEqual({
      errors: { image_quality: ['Ensure this value is less than or equal to 100.'] },
    });
  });
});

describe('BooleanField', () => {
  it("takes DRF's true and false spellings", () => {
    for (const v of [true, 'true', 'True', 'on', 'YES', 'y', '1', 1]) {
      expect(check(IssueWriteRequest, { resolved: v }, true)).toEqual({ value: { resolved: true } });
    }
    for (const v of [false, 'false', 'Off', 'no', 'N', '0', 0]) {
      expect(check(IssueWriteRequest, { resolved: v }, true)).toEqual({ value: { resolved: false } });
    }
  });

  it('refuses anything else', () => {
    for (const v of ['maybe', 2, '', [], {}]) {
      expect(check(IssueWriteRequest, { resolved: v }, true)).toEqual({
        errors: { resolved: ['Must be a valid boolean.'] },
      });
    }
  });
});

describe('ChoiceField', () => {
  it('takes a choice, numbers as their text', () => {
    expect(check(PatchedJobWriteRequest, { stage: 'validation', state: 'in progress' })).toEqual({
      value: { stage: 'validation', state: 'in progress' },
    });
    expect(check(z.object({ level: z.enum(['1', '2']) }), { level: 2 })).toEqual({ value: { level: '2' } });
  });

  it('quotes a bad value as Python prints it', () => {
    for (const [stage, shown] of [
      ['done', 'done'],
      [true, 'True'],
      [false, 'False'],
      [3, '3'],
      [[1], '[1]'],
    ] as const) {
      expect(check(PatchedJobWriteRequest, { stage })).toEqual({
        errors: { stage: [`"${shown}" is not a valid choice.`] },
      });
    }
  });
});

describe('MultipleChoiceField', () => {
  it('takes a list of choices, without repeats', () => {
    expect(
      check(PatchedWebhookWriteRequest, { events: ['create:task', 'update:job', 'create:task'] }),
    ).toEqual({
      value: { events: ['create:task', 'update:job'] },
    });
    expect(check(PatchedWebhookWriteRequest, { events: [] })).toEqual({ value: { events: [] } });
  });

  it('refuses a non-list and reports the first bad item', () => {
    expect(check(PatchedWebhookWriteRequest, { events: 'create:task' })).toEqual({
      errors: { events: ['Expected a list of items but got type "str".'] },
    });
    expect(check(PatchedWebhookWriteRequest, { events: { a: 1 } })).toEqual({
      errors: { events: ['Expected a list of items but got type "dict".'] },
    });
    expect(check(PatchedWebhookWriteRequest, { events: ['update:job', 'nope', null] })).toEqual({
      errors: { events: ['"nope" is not a valid choice.'] },
    });
    expect(check(PatchedWebhookWriteRequest, { events: [null] })).toEqual({
      errors: { events: ['"None" is not a valid choice.'] },
    });
  });
});

describe('ListField of FloatField', () => {
  it('takes numbers and their text', () => {
    expect(check(IssueWriteRequest, { position: [1, '2.5', ' 3 ', -0.5] }, true)).toEqual({
      value: { position: [1, 2.5, 3, -0.5] },
    });
  });

  it('reports the bad items by index', () => {
    expect(check(IssueWriteRequest, { position: [1, 'a', 2, null, ''] }, true)).toEqual({
      errors: {
        position: {
          1: ['A valid number is required.'],
          3: ['A valid number is required.'],
          4: ['A valid number is required.'],
        },
      },
    });
    expect(check(IssueWriteRequest, { position: '1,2' }, true)).toEqual({
      errors: { position: ['Expected a list of items but got type "str".'] },
    });
  });
});

describe('fields taken as any JSON value', () => {
  it('keep what was sent', () => {
    const labels = [{ name: 'car' }, 7, 'x'];
    expect(check(ProjectWriteRequest, { name: 'p', labels })).toEqual({ value: { name: 'p', labels } });
  });
});

describe('the walk', () => {
  it('refuses a schema field it has no DRF field for', () => {
    expect(() => check(z.object({ when: z.date() }), { when: 1 })).toThrow('no DRF field for a zod date');
  });

  it('gives values the schema itself accepts', () => {
    const r = check(WebhookWriteRequest, { ...hook, is_active: 'off', project_id: '3', secret: ' s ' });
    expect(r.value).toEqual({ ...hook, is_active: false, project_id: 3, secret: 's' });
    expect(WebhookWriteRequest.safeParse(r.value).success).toBe(true);
  });

  it('checks a login body as LoginSerializerEx: blank names allowed, a password required and not blank', () => {
    expect(check(LoginRequest, {})).toEqual({ errors: { password: ['This field is required.'] } });
    expect(check(LoginRequest, { username: '', password: ' ' })).toEqual({
      errors: { password: ['This field may not be blank.'] },
    });
    expect(check(LoginRequest, { email: 3, password: 'pw' })).toEqual({
      value: { email: '3', password: 'pw' },
    });
    expect(check(LoginRequest, [])).toEqual({
      errors: { non_field_errors: ['Invalid data. Expected a dictionary, but got list.'] },
    });
  });
});

describe('checks after the fields', () => {
  it("refuse a bad slug in a partial update as in a create (Django's validate_slug)", () => {
    expect(organizationPatch({ slug: 'bad slug!' })).toEqual({
      ok: false,
      error: {
        code: 'INVALID',
        errors: { slug: ['Enter a valid “slug” consisting of letters, numbers, underscores or hyphens.'] },
      },
    });
    expect(organizationPatch({ slug: 'good_slug-1' })).toEqual({ ok: true, value: { slug: 'good_slug-1' } });
  });

  it("answer a blank expiry date with DRF's datetime format error", () => {
    const fields = validateFields({ expiry_date: ' ' }, PatchedAccessTokenWriteRequest, true);
    expect(fields).toEqual({ ok: true, value: { expiry_date: '' } });
    const token = { name: 't', read_only: false, expiry_date: null } as AccessTokenRec;
    expect(updateAccessToken(token, fields.ok ? fields.value : {}, 0)).toEqual({
      ok: false,
      error: {
        code: 'INVALID',
        errors: {
          expiry_date: [
            'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].',
          ],
        },
      },
    });
  });
});
