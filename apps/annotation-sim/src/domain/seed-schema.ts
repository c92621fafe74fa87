/**
 * The seed shape of `POST /_sim/seed` and scenario `seed:`, checked with sim-core's `parseInput` by the
 * definition before `applySeed` (seed.ts) reads it.
 */
import { lazy } from '@sims/sim-core';
import * as z from 'zod';
import { seedAnnotationsSchema } from './annotations/seed';
import { EVENT_KEYS } from './webhooks';

/** A label's attribute: `values` as a list, as the API takes it. */
const attribute = () =>
  z
    .object({
      name: z.string().min(1),
      input_type: z.enum(['checkbox', 'radio', 'number', 'text', 'select']),
      mutable: z.boolean().default(false),
      values: z.array(z.string()).default([]),
      default_value: z.string().optional(),
    })
    .strict();

/** A skeleton's point. */
const point = () =>
  z
    .object({
      name: z.string().min(1),
      color: z.string().optional(),
      type: z.string().optional(),
      attributes: z.array(attribute()).default([]),
    })
    .strict();

/** A label as `POST /api/projects` takes it: a colour computed as CVAT's when none is given. */
const label = () =>
  z
    .object({
      name: z.string().min(1),
      color: z.string().optional(),
      type: z.string().optional(),
      attributes: z.array(attribute()).default([]),
      sublabels: z.array(point()).default([]),
      svg: z.string().optional(),
    })
    .strict();

/**
 * The seed shape of `POST /_sim/seed` and scenario `seed:` (resources refer to each other by name).
 * Built on first use (docs/decisions/0009): a process that is never seeded never builds it.
 */
export const seedSchema = lazy(() =>
  z
    .object({
      users: z
        .array(
          z
            .object({
              username: z.string().regex(/^[\w.@+-]+$/),
              password: z.string().default('password'),
              email: z.string().optional(),
              first_name: z.string().default(''),
              last_name: z.string().default(''),
              privilege: z.enum(['admin', 'user', 'worker']).default('user'),
              is_superuser: z.boolean().optional(),
              is_active: z.boolean().default(true),
              /** A DRF token key (`Authorization: Token <key>`). */
              token: z.string().min(1).max(40).optional(),
              access_tokens: z
                .array(
                  z
                    .object({
                      key: z.string().min(1),
                      name: z.string().default('token'),
                      read_only: z.boolean().default(false),
                      expiry_date: z.string().nullable().default(null),
                    })
                    .strict(),
                )
                .default([]),
            })
            .strict(),
        )
        .default([]),
      organizations: z
        .array(
          z
            .object({
              slug: z
                .string()
                .regex(/^[-a-zA-Z0-9_]+$/)
                .max(16),
              name: z.string().default(''),
              owner: z.string(),
              members: z
                .array(
                  z
                    .object({ user: z.string(), role: z.enum(['worker', 'supervisor', 'maintainer']) })
                    .strict(),
                )
                .default([]),
              invitations: z
                .array(
                  z
                    .object({ user: z.string(), role: z.enum(['worker', 'supervisor', 'maintainer']) })
                    .strict(),
                )
                .default([]),
            })
            .strict(),
        )
        .default([]),
      projects: z
        .array(
          z
            .object({
              name: z.string().min(1),
              owner: z.string(),
              assignee: z.string().optional(),
              org: z.string().optional(),
              labels: z.array(label()).default([]),
            })
            .strict(),
        )
        .default([]),
      tasks: z
        .array(
          z
            .object({
              name: z.string().min(1),
              owner: z.string(),
              assignee: z.string().optional(),
              project: z.string().optional(),
              org: z.string().optional(),
              /** Frames of data: jobs are derived from size, segment_size and overlap. */
              size: z.number().int().min(0).default(0),
              segment_size: z.number().int().min(0).default(0),
              overlap: z.number().int().min(0).nullable().default(null),
              subset: z.string().default(''),
              labels: z.array(label()).default([]),
              /** Tags and shapes on the task's frames, stored in the jobs that hold them. */
              annotations: seedAnnotationsSchema().optional(),
            })
            .strict(),
        )
        .default([]),
      webhooks: z
        .array(
          z
            .object({
              target_url: z.string().min(1),
              type: z.enum(['project', 'organization']),
              events: z.array(z.enum(EVENT_KEYS as [string, ...string[]])).default([]),
              owner: z.string(),
              project: z.string().optional(),
              org: z.string().optional(),
              secret: z.string().max(64).default(''),
              description: z.string().default(''),
              is_active: z.boolean().default(true),
              enable_ssl: z.boolean().default(true),
            })
            .strict(),
        )
        .default([]),
    })
    .strict(),
);

export type SeedInput = z.input<ReturnType<typeof seedSchema>>;

/** A seed as it is applied (defaults filled in). */
export type Seed = z.output<ReturnType<typeof seedSchema>>;
