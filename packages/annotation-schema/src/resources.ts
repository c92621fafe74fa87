import * as z from 'zod';
import { JobStage, JobState } from './choices';
import { BasicUser, DateTime, paginated, Storage } from './common';

export const JobStatus = z.enum(['annotation', 'validation', 'completed']);
export const JobType = z.enum(['annotation', 'ground_truth', 'consensus_replica']);
export const ChunkType = z.enum(['video', 'imageset', 'audio_mp3']);

/** `ProjectRead`. */
export const ProjectRead = z.object({
  url: z.string(),
  id: z.number().int(),
  name: z.string(),
  owner: BasicUser.nullable(),
  assignee: BasicUser.nullable(),
  guide_id: z.number().int().nullable(),
  bug_tracker: z.string(),
  task_subsets: z.array(z.string()),
  created_date: DateTime,
  updated_date: DateTime,
  status: JobStatus,
  dimension: z.string().nullable(),
  organization: z.number().int().nullable(),
  organization_id: z.number().int().nullable(),
  target_storage: Storage.nullable(),
  source_storage: Storage.nullable(),
  tasks: z.object({ count: z.number().int(), url: z.string() }),
  labels: z.object({ url: z.string() }),
  assignee_updated_date: DateTime.nullable(),
});
export type ProjectRead = z.infer<typeof ProjectRead>;

/**
 * `TaskRead` (v2.73). Current CVAT no longer embeds `segments` in the task; the jobs derived from
 * `size` and `segment_size` are listed by `GET /api/jobs?task_id=`.
 */
export const TaskRead = z.object({
  url: z.string(),
  id: z.number().int(),
  name: z.string(),
  project_id: z.number().int().nullable(),
  project_name: z.string().nullable(),
  owner: BasicUser.nullable(),
  assignee: BasicUser.nullable(),
  bug_tracker: z.string(),
  created_date: DateTime,
  updated_date: DateTime,
  overlap: z.number().int().nullable(),
  segment_size: z.number().int(),
  status: JobStatus,
  data_chunk_size: z.number().int().nullable(),
  data_original_chunk_type: ChunkType,
  data_compressed_chunk_type: ChunkType,
  data_cloud_storage_id: z.number().int().nullable(),
  guide_id: z.number().int().nullable(),
  size: z.number().int(),
  image_quality: z.number().int(),
  data: z.number().int().nullable(),
  dimension: z.string(),
  mode: z.string(),
  media_type: z.string(),
  subset: z.string(),
  organization_id: z.number().int().nullable(),
  organization: z.number().int().nullable(),
  target_storage: Storage.nullable(),
  source_storage: Storage.nullable(),
  jobs: z.object({
    count: z.number().int(),
    completed: z.number().int().nullable(),
    validation: z.number().int().nullable(),
    url: z.string(),
  }),
  labels: z.object({ url: z.string() }),
  assignee_updated_date: DateTime.nullable(),
  validation_mode: z.string().nullable(),
  consensus_enabled: z.boolean(),
});
export type TaskRead = z.infer<typeof TaskRead>;

/** A segment of a task: the frames one annotation job covers. */
export const TaskSegment = z.object({ start_frame: z.number().int(), stop_frame: z.number().int() });
export type TaskSegment = z.infer<typeof TaskSegment>;

/** A job inside a segment (CVAT's 2022-era `SimpleJobSerializer`, seed 2.4). */
export const SimpleJob = z.object({
  url: z.string(),
  id: z.number().int(),
  assignee: BasicUser.nullable(),
  status: JobStatus,
  stage: JobStage,
  state: JobState,
});
export type SimpleJob = z.infer<typeof SimpleJob>;

/** A segment with its jobs, as the 2022-era task embedded it (seed 2.4). */
export const TaskSegmentRead = TaskSegment.extend({ jobs: z.array(SimpleJob) });
export type TaskSegmentRead = z.infer<typeof TaskSegmentRead>;

/**
 * The task of seed 2.4 (annotation-sim's `compat.taskSegments`): 2.73's `TaskRead` plus the embedded
 * `segments` list (empty until the task has data).
 */
export const TaskReadWithSegments = TaskRead.extend({ segments: z.array(TaskSegmentRead) }).strict();
export type TaskReadWithSegments = z.infer<typeof TaskReadWithSegments>;

/** `JobRead`. */
export const JobRead = z.object({
  url: z.string(),
  id: z.number().int(),
  task_id: z.number().int(),
  task_name: z.string().nullable(),
  project_id: z.number().int().nullable(),
  project_name: z.string().nullable(),
  assignee: BasicUser.nullable(),
  guide_id: z.number().int().nullable(),
  dimension: z.string(),
  mode: z.string(),
  media_type: z.string(),
  bug_tracker: z.string().nullable(),
  status: JobStatus,
  stage: JobStage,
  state: JobState,
  frame_count: z.number().int(),
  start_frame: z.number().int(),
  stop_frame: z.number().int(),
  data_chunk_size: z.number().int().nullable(),
  data_compressed_chunk_type: ChunkType,
  data_original_chunk_type: ChunkType,
  created_date: DateTime,
  updated_date: DateTime,
  issues: z.object({ url: z.string(), count: z.number().int() }),
  labels: z.object({ url: z.string() }),
  type: JobType,
  organization: z.number().int().nullable(),
  target_storage: Storage.nullable(),
  source_storage: Storage.nullable(),
  assignee_updated_date: DateTime.nullable(),
  parent_job_id: z.number().int().nullable(),
  consensus_replicas: z.number().int(),
  replicas_count: z.number().int(),
});
export type JobRead = z.infer<typeof JobRead>;

/** `IssueRead`. */
export const IssueRead = z.object({
  id: z.number().int(),
  frame: z.number().int(),
  position: z.array(z.number()),
  job: z.number().int(),
  owner: BasicUser.nullable(),
  assignee: BasicUser.nullable(),
  created_date: DateTime.nullable(),
  updated_date: DateTime.nullable(),
  resolved: z.boolean(),
  comments: z.object({ count: z.number().int(), url: z.string() }),
});
export type IssueRead = z.infer<typeof IssueRead>;

/** `CommentRead`. */
export const CommentRead = z.object({
  id: z.number().int(),
  issue: z.number().int(),
  owner: BasicUser.nullable(),
  message: z.string(),
  created_date: DateTime,
  updated_date: DateTime,
});
export type CommentRead = z.infer<typeof CommentRead>;

export const PaginatedProjectReadList = paginated(ProjectRead);
export const PaginatedTaskReadList = paginated(TaskRead);
export const PaginatedJobReadList = paginated(JobRead);
export const PaginatedIssueReadList = paginated(IssueRead);
export const PaginatedCommentReadList = paginated(CommentRead);

/** `Attribute`: a label's attribute spec (`values` as CVAT splits its stored text on new lines). */
const Attribute = z.object({
  id: z.number().int(),
  name: z.string().max(64),
  mutable: z.boolean(),
  input_type: z.enum(['checkbox', 'radio', 'number', 'text', 'select']),
  default_value: z.string().max(128),
  values: z.array(z.string()),
});

/** `Sublabel`: a skeleton's point inside its label. */
const Sublabel = z
  .object({
    id: z.number().int(),
    name: z.string().max(64),
    color: z.string(),
    attributes: z.array(Attribute),
    type: z.string(),
    has_parent: z.boolean(),
  })
  .strict();

/**
 * `Label` (`GET /api/labels/{id}`): `svg` for skeletons only, `project_id` or `task_id` whichever the
 * label has. `type` is free text as CVAT stores what its serializer takes.
 */
export const Label = z
  .object({
    id: z.number().int(),
    name: z.string().max(64),
    color: z.string(),
    attributes: z.array(Attribute),
    type: z.string(),
    svg: z.string().optional(),
    sublabels: z.array(Sublabel),
    project_id: z.number().int().optional(),
    task_id: z.number().int().optional(),
    parent_id: z.number().int().nullable(),
    has_parent: z.boolean(),
  })
  .strict();
export type Label = z.infer<typeof Label>;
