import * as z from 'zod';
import { OrganizationRole } from './choices';
import { BasicUser, DateTime, paginated } from './common';

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

export const PaginatedOrganizationReadList = paginated(OrganizationRead);
export const PaginatedMembershipReadList = paginated(MembershipRead);
export const PaginatedInvitationReadList = paginated(InvitationRead);
