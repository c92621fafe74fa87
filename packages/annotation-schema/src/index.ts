export {
  EventsEnum,
  JobStage,
  JobState,
  OrganizationRole,
  WebhookContentType,
  WebhookType,
} from './choices';
export type { BasicUser as BasicUserType, Paginated, User as UserType } from './common';
export { BasicUser, DateTime, paginated, Storage, Token, User, WorkerSender } from './common';
export {
  CVAT_OPERATIONS,
  CVAT_SCHEMA_VERSION,
  type CvatOperation,
} from './cvat-operations.generated';
export { DetailError, FieldErrors, ListError, StringError } from './errors';
export {
  clientEventsRequestSchema,
  clientEventsSchema,
  cvatDateTimeSchema,
  EVENT_LOG_CSV_COLUMNS,
  eventRequestSchema,
  eventSchema,
  paginatedRequestListSchema,
  queryIdSchema,
  requestDataOperationSchema,
  requestSchema,
  requestStatusSchema,
  rqIdSchema,
  userIdentifiersSchema,
} from './events';
export {
  BasicOrganization,
  InvitationRead,
  MembershipRead,
  OrganizationRead,
  PaginatedInvitationReadList,
  PaginatedMembershipReadList,
  PaginatedOrganizationReadList,
} from './organizations';
export {
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
} from './requests';
export {
  ChunkType,
  CommentRead,
  IssueRead,
  JobRead,
  JobStatus,
  JobType,
  Label,
  PaginatedCommentReadList,
  PaginatedIssueReadList,
  PaginatedJobReadList,
  PaginatedProjectReadList,
  PaginatedTaskReadList,
  ProjectRead,
  SimpleJob,
  TaskRead,
  TaskReadWithSegments,
  TaskSegment,
  TaskSegmentRead,
} from './resources';
export { About, DatasetFormat, DatasetFormats, FileInfo, Plugins } from './server';
export { PROJECT_WEBHOOK_EVENT_ORDER, WEBHOOK_EVENT_CATALOGUE } from './webhook-events';
export {
  CreateEventPayload,
  DeleteEventPayload,
  PaginatedWebhookDeliveryReadList,
  PaginatedWebhookReadList,
  PingPayload,
  UpdateEventPayload,
  WebhookDeliveryRead,
  WebhookEvents,
  WebhookRead,
} from './webhooks';
