import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import {
  AccessTokenWriteRequest,
  CommentWriteRequest,
  DataRequest,
  InvitationWriteRequest,
  IssueWriteRequest,
  LoginRequest,
  OrganizationWriteRequest,
  PatchedAccessTokenWriteRequest,
  PatchedCommentWriteRequest,
  PatchedIssueWriteRequest,
  PatchedJobWriteRequest,
  PatchedMembershipWriteRequest,
  PatchedOrganizationWriteRequest,
  PatchedProjectWriteRequest,
  PatchedTaskWriteRequest,
  PatchedWebhookWriteRequest,
  ProjectWriteRequest,
  TaskWriteRequest,
  WebhookWriteRequest,
} from '../src/index';

/** Field names in declaration order, and the required ones, as the JSON Schema of the request says. */
function fields(schema: z.ZodObject) {
  const json = z.toJSONSchema(schema, { io: 'input' }) as { properties: object; required?: string[] };
  return { names: Object.keys(json.properties), required: json.required ?? [] };
}

describe('write requests', () => {
  it('declare the serializer fields in their order, with the required ones', () => {
    expect(fields(ProjectWriteRequest)).toEqual({
      names: ['name', 'labels', 'owner_id', 'assignee_id', 'bug_tracker'],
      required: ['name'],
    });
    expect(fields(PatchedProjectWriteRequest)).toEqual({
      names: ['name', 'labels', 'owner_id', 'assignee_id', 'bug_tracker', 'organization_id'],
      required: [],
    });
    expect(fields(TaskWriteRequest)).toEqual({
      names: [
        'name',
        'project_id',
        'owner_id',
        'assignee_id',
        'bug_tracker',
        'overlap',
        'segment_size',
        'labels',
        'subset',
      ],
      required: ['name'],
    });
    expect(fields(PatchedTaskWriteRequest).names).toEqual([
      'name',
      'project_id',
      'owner_id',
      'assignee_id',
      'bug_tracker',
      'labels',
      'subset',
      'organization_id',
    ]);
    expect(fields(DataRequest).required).toEqual(['image_quality']);
    expect(fields(PatchedJobWriteRequest).names).toEqual(['assignee', 'stage', 'state']);
    expect(fields(IssueWriteRequest)).toEqual({
      names: ['frame', 'position', 'job', 'assignee', 'message', 'resolved'],
      required: ['frame', 'position', 'job', 'message'],
    });
    expect(fields(PatchedIssueWriteRequest).names).toEqual(['position', 'assignee', 'resolved']);
    expect(fields(CommentWriteRequest)).toEqual({ names: ['issue', 'message'], required: ['issue'] });
    expect(fields(PatchedCommentWriteRequest).names).toEqual(['message']);
    expect(fields(OrganizationWriteRequest)).toEqual({
      names: ['slug', 'name', 'description', 'contact'],
      required: ['slug'],
    });
    expect(fields(PatchedOrganizationWriteRequest).required).toEqual([]);
    expect(fields(PatchedMembershipWriteRequest).names).toEqual(['role']);
    expect(fields(InvitationWriteRequest).required).toEqual(['role', 'email']);
    expect(fields(AccessTokenWriteRequest)).toEqual({
      names: ['name', 'expiry_date', 'read_only'],
      required: ['name'],
    });
    expect(fields(PatchedAccessTokenWriteRequest).required).toEqual([]);
    expect(fields(LoginRequest).required).toEqual(['password']);
    expect(fields(WebhookWriteRequest)).toEqual({
      names: [
        'target_url',
        'description',
        'type',
        'content_type',
        'secret',
        'is_active',
        'enable_ssl',
        'project_id',
        'events',
      ],
      required: ['target_url', 'type', 'events'],
    });
    expect(fields(PatchedWebhookWriteRequest).names).not.toContain('type');
  });

  it("carry CVAT's constraints", () => {
    const task = z.toJSONSchema(TaskWriteRequest) as { properties: Record<string, Record<string, unknown>> };
    expect(task.properties.name).toMatchObject({ type: 'string', minLength: 1, maxLength: 256 });
    expect(task.properties.subset).toMatchObject({ type: 'string', maxLength: 64 });
    expect(task.properties.subset).not.toHaveProperty('minLength');
    const hook = z.toJSONSchema(WebhookWriteRequest) as {
      properties: Record<string, Record<string, unknown>>;
    };
    expect(hook.properties.target_url).toMatchObject({ format: 'uri', minLength: 1, maxLength: 8192 });
    const data = z.toJSONSchema(DataRequest) as { properties: Record<string, Record<string, unknown>> };
    expect(data.properties.image_quality).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 });
  });

  it('accept well-formed bodies and refuse blank names', () => {
    expect(
      ProjectWriteRequest.safeParse({ name: 'p', owner_id: null, labels: [{ name: 'car' }] }).success,
    ).toBe(true);
    expect(ProjectWriteRequest.safeParse({ name: '' }).success).toBe(false);
    expect(
      IssueWriteRequest.safeParse({ frame: 0, position: [1, 2, 3, 4], job: 1, message: 'm' }).success,
    ).toBe(true);
    expect(PatchedJobWriteRequest.safeParse({ stage: 'done' }).success).toBe(false);
    expect(OrganizationWriteRequest.safeParse({ slug: 'acme', contact: 'anything' }).success).toBe(true);
  });
});
