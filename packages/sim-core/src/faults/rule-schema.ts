import * as z from 'zod';
import { inTimeRange } from '../clock';
import { isDurationString } from '../duration';
import { MAX_GLOB_LENGTH } from '../glob';
import { lazy } from '../lazy';

// Built on first use, like the rule schema itself (docs/decisions/0009).
const duration = lazy(() =>
  z.union([
    z.number().nonnegative(),
    z.string().refine(isDurationString, { message: 'expected a duration such as "500ms", "1.5s", "2m"' }),
  ]),
);
/** An absolute clock time (ISO string or epoch ms) or a time relative to the rule's creation (`+30s`). */
const clockTime = lazy(() =>
  z.union([
    z.number().refine(inTimeRange, { message: 'expected a time between years 1 and 9999' }),
    z
      .string()
      .refine((v) => (v.startsWith('+') ? isDurationString(v.slice(1)) : inTimeRange(Date.parse(v))), {
        message: 'expected an ISO-8601 time or "+<duration>" relative to the rule\'s creation',
      }),
  ]),
);

/**
 * A glob from a request: bounded so that matching (pattern length × text length steps) stays cheap.
 * Real resource names and paths are far shorter.
 */
const glob = () => z.string().max(MAX_GLOB_LENGTH, `a pattern is at most ${MAX_GLOB_LENGTH} characters`);

const faultMatchSchema = lazy(() =>
  z
    .object({
      /** The emulated API's own method name, e.g. `nodePools.update`; a list matches any of them. */
      operation: z.union([glob().min(1), z.array(glob().min(1)).min(1)]).optional(),
      /** Resource name glob, e.g. `projects/*\/locations/*\/clusters/c1/nodePools/*`. */
      resource: glob().min(1).optional(),
      method: z
        .string()
        .regex(/^[A-Za-z]+$/, 'expected an HTTP method such as PUT')
        .transform((m) => m.toUpperCase())
        .optional(),
      /** Path glob, matched against the path without any `/_ns/<name>` prefix. */
      path: glob().startsWith('/', 'a path glob starts with "/"').optional(),
      /** Header name → exact value (or glob); names are case-insensitive. */
      headers: z.record(z.string(), glob()).optional(),
      /** Query parameter → exact value (or glob). */
      query: z.record(z.string(), glob()).optional(),
      /** Dotted JSON path in the request body → the value it must equal. */
      body: z.record(z.string(), z.unknown()).optional(),
    })
    .strict(),
);

const faultTriggerSchema = lazy(() =>
  z
    .object({
      /** Fire on the first N matching requests, then stop. */
      times: z.int().min(1).optional(),
      /** Fire only on the N-th matching request (1-based). */
      nth: z.int().min(1).optional(),
      /** Let the first N matching requests through untouched, then fire. */
      after: z.int().min(0).optional(),
      /** Fire with this probability, drawn from the world's seeded generator. */
      probability: z.number().min(0).max(1).optional(),
      /** Fire only while the world's clock is inside [from, to). */
      window: z.object({ from: clockTime().optional(), to: clockTime().optional() }).strict().optional(),
    })
    .strict()
    .refine((t) => !(t.nth !== undefined && t.times !== undefined), {
      message: 'nth and times cannot be combined: nth already fires once',
    }),
);

const httpEffectSchema = lazy(() =>
  z
    .object({
      status: z.int().min(100).max(599),
      headers: z.record(z.string(), z.string()).optional(),
      body: z.unknown().optional(),
    })
    .strict(),
);

const delayEffectSchema = lazy(() =>
  z.union([
    duration(),
    z
      .object({ min: duration(), max: duration() })
      .strict()
      .refine((d) => toMs(d.min) <= toMs(d.max), { message: 'min must not exceed max' }),
  ]),
);

function toMs(d: number | string): number {
  if (typeof d === 'number') return d;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(d);
  const unit: Record<string, number> = { ms: 1, s: 1e3, m: 6e4, h: 3.6e6, d: 8.64e7 };
  return m ? Number(m[1]) * (unit[m[2] as string] as number) : 0;
}

const connectionEffectSchema = lazy(() => z.enum(['reset', 'hang', 'truncate']));

/**
 * A simulator's domain fault effects: effect name → schema of its value in a rule. Declared with the
 * rule schema that validates them; `defineDomainEffects` (domain-effects.ts) builds one and reads the
 * values back.
 */
export type DomainEffectSchemas = Record<string, z.ZodType>;

/** The default shape of an `error` effect; simulators pass a stricter one of their own. */
export const defaultErrorEffectSchema = lazy(() =>
  z.object({ status: z.union([z.string().min(1), z.int()]), message: z.string().optional() }).passthrough(),
);

/**
 * Builds the schema of a fault rule for one simulator: the generic effects plus its own domain
 * effects (`operationFails`, `exportDelay`, …). Unknown effect kinds are rejected by name.
 */
export function createFaultRuleSchema(options: {
  errorEffect?: z.ZodType | (() => z.ZodType);
  domainEffects?: DomainEffectSchemas;
}) {
  const domain = options.domainEffects ?? {};
  const errorEffect = options.errorEffect ?? defaultErrorEffectSchema;
  const effectShape: Record<string, z.ZodType> = {
    error: (typeof errorEffect === 'function' ? errorEffect() : errorEffect).optional(),
    http: httpEffectSchema().optional(),
    delay: delayEffectSchema().optional(),
    connection: connectionEffectSchema().optional(),
  };
  for (const [kind, schema] of Object.entries(domain)) effectShape[kind] = schema.optional();
  const known = Object.keys(effectShape);
  const effect = z
    .object(effectShape)
    .strict()
    .superRefine((e, ctx) => {
      const present = Object.keys(e).filter((k) => e[k] !== undefined);
      if (present.length === 0) {
        ctx.addIssue({ code: 'custom', message: `an effect needs one of: ${known.join(', ')}` });
      }
      const terminal = present.filter((k) => k === 'error' || k === 'http' || k === 'connection');
      if (terminal.length > 1) {
        ctx.addIssue({
          code: 'custom',
          message: `${terminal.join(' and ')} cannot be combined in one effect`,
        });
      }
      const domainKinds = present.filter((k) => k in domain);
      if (domainKinds.length > 0 && present.length > domainKinds.length) {
        ctx.addIssue({
          code: 'custom',
          message: `domain effect ${domainKinds.join(', ')} cannot be combined with generic effects`,
        });
      }
    });
  return z
    .object({
      id: z
        .string()
        .regex(/^[A-Za-z0-9._:-]{1,100}$/, 'an id is 1-100 letters, digits, ".", "_", ":" or "-"')
        .optional(),
      description: z.string().optional(),
      match: faultMatchSchema().default({}),
      trigger: faultTriggerSchema().default({}),
      phase: z.enum(['before', 'after']).default('before'),
      effect,
    })
    .strict();
}

export type FaultMatch = z.infer<ReturnType<typeof faultMatchSchema>>;
export type FaultTrigger = z.infer<ReturnType<typeof faultTriggerSchema>>;
export type HttpEffect = z.infer<ReturnType<typeof httpEffectSchema>>;
export type DelayEffect = z.infer<ReturnType<typeof delayEffectSchema>>;
export type ConnectionEffect = z.infer<ReturnType<typeof connectionEffectSchema>>;

/** A validated rule as given (before the engine adds its counters). */
export interface FaultRuleSpec {
  id?: string;
  description?: string;
  match: FaultMatch;
  trigger: FaultTrigger;
  phase: 'before' | 'after';
  effect: {
    error?: { status: string | number; message?: string; [key: string]: unknown };
    http?: HttpEffect;
    delay?: DelayEffect;
    connection?: ConnectionEffect;
    [domainKind: string]: unknown;
  };
}
