/** Stored records. Field names are CVAT's model attribute names (`assignee_id`, not `assignee`): update
 * payloads report changes in those names. */

type Privilege = 'admin' | 'user' | 'worker';
export type OrgRole = 'worker' | 'supervisor' | 'maintainer' | 'owner';

export interface UserRec {
  id: number;
  username: string;
  first_name: string;
  last_name: string;
  email: string;
  password: string;
  privilege: Privilege;
  is_superuser: boolean;
  is_staff: boolean;
  is_active: boolean;
  date_joined: string;
  last_login: string | null;
}

export interface OrganizationRec {
  id: number;
  slug: string;
  name: string;
  description: string;
  contact: Record<string, unknown>;
  owner_id: number | null;
  created_date: string;
  updated_date: string;
}

export interface MembershipRec {
  id: number;
  user_id: number;
  organization_id: number;
  is_active: boolean;
  joined_date: string | null;
  role: OrgRole;
}

export interface InvitationRec {
  key: string;
  created_date: string;
  sent_date: string | null;
  owner_id: number | null;
  membership_id: number;
}

/** An attribute of a label (CVAT's `AttributeSpec`); `values` is kept '\n'-joined, as CVAT's model keeps it. */
export interface AttributeSpecRec {
  id: number;
  name: string;
  mutable: boolean;
  input_type: string;
  default_value: string;
  values: string;
}

/**
 * A label (CVAT's `Label`): of a project or of a task (one of the two ids is set), a sublabel when it has
 * a parent (a skeleton's point; it keeps its root's project or task). `type` is free text as CVAT stores
 * it; `svg` is the skeleton's drawing (CVAT's `Skeleton` row), null for other labels.
 */
export interface LabelRec {
  id: number;
  name: string;
  color: string;
  type: string;
  project_id: number | null;
  task_id: number | null;
  parent_id: number | null;
  svg: string | null;
  attributes: AttributeSpecRec[];
}

export interface ProjectRec {
  id: number;
  name: string;
  owner_id: number | null;
  assignee_id: number | null;
  bug_tracker: string;
  organization_id: number | null;
  status: 'annotation' | 'validation' | 'completed';
  created_date: string;
  updated_date: string;
  assignee_updated_date: string | null;
}

/** One frame of a task's data as `data/meta` lists it: the file's name and its image's size. */
export interface FrameRec {
  name: string;
  width: number;
  height: number;
}

export interface TaskRec {
  id: number;
  name: string;
  project_id: number | null;
  owner_id: number | null;
  assignee_id: number | null;
  bug_tracker: string;
  organization_id: number | null;
  overlap: number | null;
  segment_size: number;
  size: number;
  mode: string;
  dimension: string;
  subset: string;
  status: 'annotation' | 'validation' | 'completed';
  image_quality: number;
  data_id: number | null;
  data_chunk_size: number | null;
  created_date: string;
  updated_date: string;
  assignee_updated_date: string | null;
  /**
   * The frames of the upload that made (or is making) its data, in CVAT's order; absent for data seeded
   * without files (then `frame_000000.jpg`, … of 640×480, as exports name them). Not a model field.
   */
  frames?: FrameRec[];
}

export interface JobRec {
  id: number;
  task_id: number;
  start_frame: number;
  stop_frame: number;
  assignee_id: number | null;
  stage: 'annotation' | 'validation' | 'acceptance';
  state: 'new' | 'in progress' | 'completed' | 'rejected';
  status: 'annotation' | 'validation' | 'completed';
  type: 'annotation' | 'ground_truth' | 'consensus_replica';
  created_date: string;
  updated_date: string;
  assignee_updated_date: string | null;
}

export interface IssueRec {
  id: number;
  frame: number;
  position: number[];
  job_id: number;
  owner_id: number | null;
  assignee_id: number | null;
  resolved: boolean;
  created_date: string;
  updated_date: string;
}

export interface CommentRec {
  id: number;
  issue_id: number;
  owner_id: number | null;
  message: string;
  created_date: string;
  updated_date: string;
}

export interface WebhookRec {
  id: number;
  target_url: string;
  description: string;
  /** Sorted, de-duplicated event keys (CVAT stores them comma-joined). */
  events: string[];
  type: 'project' | 'organization';
  content_type: 'application/json';
  secret: string;
  is_active: boolean;
  enable_ssl: boolean;
  owner_id: number | null;
  project_id: number | null;
  organization_id: number | null;
  created_date: string;
  updated_date: string;
}

export interface DeliveryRec {
  id: number;
  webhook_id: number;
  event: string;
  status_code: number | null;
  redelivery: boolean;
  attempt: number | null;
  request_duration: number | null;
  changed_fields: string;
  /** The payload as a JSON value; its bytes are `pythonJsonDumps(request)`. */
  request: unknown;
  response: string;
  created_date: string;
  updated_date: string;
}

export interface SessionRec {
  key: string;
  user_id: number;
  csrf: string;
}

export interface AccessTokenRec {
  id: number;
  key: string;
  user_id: number;
  name: string;
  read_only: boolean;
  expiry_date: string | null;
  created_date?: string;
  updated_date?: string;
}

export type ResourceKind =
  | 'project'
  | 'task'
  | 'job'
  | 'issue'
  | 'comment'
  | 'organization'
  | 'membership'
  | 'invitation'
  | 'label';
