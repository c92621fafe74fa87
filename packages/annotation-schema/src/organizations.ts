import * as z from 'zod';
import { BasicUser, DateTime, paginated } from './common';

export const OrganizationRole = z.enum(['worker', 'supervisor', 'maintainer', 'owner']);
export type OrganizationRole = z.infer<typeof OrganizationRole>;

/** `OrganizationRead`. */
export const OrganizationRead = z.object({
  id: z.number().int(),
  slug: z.string().regex(/^[-a-zA-Z0-9_]+$/),
  name: z.string(),
  description: z.string(),
  created_date: DateTime,
  updated_date: DateTime,
  contact: z.record(z.string(), z.unknown()),
  owner: BasicUser.nullable(),
});
export type OrganizationRead = z.infer<typeof OrganizationRead>;

/** `OrganizationWriteRequest` (`slug` required; the patched variant has nothing required). */
export const OrganizationWriteRequest = z.object({
  slug: z
    .string()
    .min(1)
    .max(16)
    .regex(/^[-a-zA-Z0-9_]+$/),
  name: z.string().max(64).optional(),
  description: z.string().optional(),
  contact: z.record(z.string(), z.unknown()).optional(),
});
export type OrganizationWriteRequest = z.infer<typeof OrganizationWriteRequest>;

/** `MembershipRead`. */
export const MembershipRead = z.object({
  id: z.number().int(),
  user: BasicUser,
  organization: z.number().int(),
  is_active: z.boolean(),
  joined_date: DateTime.nullable(),
  role: OrganizationRole,
  invitation: z.string().nullable(),
});
export type MembershipRead = z.infer<typeof MembershipRead>;

/** `BasicOrganization`. */
export const BasicOrganization = z.object({ id: z.number().int(), slug: z.string() });

/** `InvitationRead`. */
export const InvitationRead = z.object({
  key: z.string(),
  created_date: DateTime,
  owner: BasicUser.nullable(),
  role: OrganizationRole,
  user: BasicUser,
  organization: z.number().int(),
  expired: z.boolean().nullable(),
  accepted: z.boolean(),
  organization_info: BasicOrganization,
});
export type InvitationRead = z.infer<typeof InvitationRead>;

/** `InvitationWriteRequest`. */
export const InvitationWriteRequest = z.object({ role: OrganizationRole, email: z.string().min(1) });
export type InvitationWriteRequest = z.infer<typeof InvitationWriteRequest>;

export const PaginatedOrganizationReadList = paginated(OrganizationRead);
export const PaginatedMembershipReadList = paginated(MembershipRead);
export const PaginatedInvitationReadList = paginated(InvitationRead);
