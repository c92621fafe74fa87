import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import * as schemas from '@sims/cluster-schema';
import { oneofFields, UpdateNodePoolRequest } from '@sims/cluster-schema';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { parseRequest } from '../src/http/parse';
import { CLUSTER, createHarness, type Harness, LOC, OPS, POOL } from './support/harness';

/**
 * `null` inside maps and lists, and oneofs, as Google's front end parses proto3 JSON: its converter
 * (protobuf's util/internal ProtoStreamObjectWriter) keeps a map entry written `null` with the value
 * type's default (test `MapAcceptsNullValue`) and writes nothing for a `null` list element; a second
 * member of one oneof is `InvalidValue("oneof", "oneof field '{oneof}' is already set. Cannot set
 * '{name}'")` (ProtoWriter::ValidOneof), which Google APIs answer as `Invalid value at '{message}' (oneof), …`.
 * No answer carries zod's own wording.
 */
let h: Harness;
beforeEach(async () => {
  h = createHarness();
  await h.seedDefault();
});
afterEach(() => h.close());

const FINGERPRINT = 'a9dc16a7';

/** Runs the operation an answer started to DONE and returns the cluster as clients then read it. */
async function settle(op: { name: string }) {
  await h.advance('5m');
  expect((await h.get(`${OPS}/${op.name}`)).body.status).toBe('DONE');
  return (await h.get(CLUSTER)).body;
}

function badPayload(res: { status: number; body: { error: { message: string; status: string } } }) {
  expect(res.status).toBe(400);
  expect(res.body.error.status).toBe('INVALID_ARGUMENT');
  return res.body.error.message;
}

describe('null inside a map or a list', () => {
  it('setResourceLabels: a label written null is a label with an empty value', async () => {
    const body = { resourceLabels: { a: null, team: 'x' }, labelFingerprint: FINGERPRINT };
    expect(parseRequest(schemas.SetLabelsRequest, body, true)).toEqual({
      ok: true,
      value: { resourceLabels: { a: '', team: 'x' }, labelFingerprint: FINGERPRINT },
    });
    const op = await h.post(`${CLUSTER}:setResourceLabels`, body);
    expect(op.status, op.text).toBe(200);
    // proto3 JSON writes every map entry, an empty value too.
    expect((await settle(op.body)).resourceLabels).toEqual({ a: '', team: 'x' });
  });

  it('setLocations: a null element is no element', async () => {
    const op = await h.post(`${CLUSTER}:setLocations`, {
      locations: ['us-central1-a', null, 'us-central1-b'],
    });
    expect(op.status, op.text).toBe(200);
    expect((await settle(op.body)).locations).toEqual(['us-central1-a', 'us-central1-b']);
  });

  it('nodePools.update: null labels and tags inside their wrappers', async () => {
    const body = { labels: { labels: { env: null } }, tags: { tags: [null, 'web'] } };
    const parsed = parseRequest(UpdateNodePoolRequest, body, true);
    expect(parsed.ok && parsed.value).toEqual({ labels: { labels: { env: '' } }, tags: { tags: ['web'] } });
    const res = await h.put(POOL, body);
    expect(res.status, res.text).toBe(200);
    await h.advance('1h');
    const pool = (await h.get(POOL)).body;
    expect(pool.config.tags).toEqual(['web']);
    expect(pool.config.labels).toEqual({ env: '' });
  });

  it('the parser: defaults by value type, dropped list elements of every kind, paths in Google syntax', () => {
    const maps = parseRequest(
      schemas.SetMaintenancePolicyRequest,
      {
        maintenancePolicy: { window: { maintenanceExclusions: { holidays: null } } },
      },
      true,
    );
    expect(maps).toEqual({
      ok: true,
      value: { maintenancePolicy: { window: { maintenanceExclusions: { holidays: {} } } } },
    });
    const lists = parseRequest(
      schemas.CreateClusterRequest,
      {
        cluster: { name: 'c9', nodePools: [null, { name: 'np', config: { tags: [null], taints: [null] } }] },
      },
      true,
    );
    expect(lists).toEqual({
      ok: true,
      value: { cluster: { name: 'c9', nodePools: [{ name: 'np', config: { tags: [], taints: [] } }] } },
    });
    // A wrong element after a null one keeps its index in the body.
    const wrong = parseRequest(schemas.SetLocationsRequest, { locations: [null, 'a', 5] }, true);
    expect(wrong.ok ? undefined : wrong.error).toEqual({
      code: 'BAD_PAYLOAD',
      violations: [
        { field: 'locations[2]', description: "Invalid value at 'locations[2]' (TYPE_STRING), 5" },
      ],
    });
  });

  it('a wrong map value or list element is the front end type error, at `[key]` / `[index]`', async () => {
    const labels = await h.post(`${CLUSTER}:setResourceLabels`, {
      resourceLabels: { a: 5 },
      labelFingerprint: FINGERPRINT,
    });
    expect(badPayload(labels)).toBe("Invalid value at 'resource_labels[a]' (TYPE_STRING), 5");
    const locations = await h.post(`${CLUSTER}:setLocations`, { locations: ['us-central1-a', true] });
    expect(badPayload(locations)).toBe("Invalid value at 'locations[1]' (TYPE_STRING), true");
  });
});

/** zod's wording, which must never reach an answer. */
const ZOD_WORDING = /Invalid input|expected|received/;

/** Anything JSON can put where a string map value or a string list element belongs. */
const anyValue = fc.oneof(
  fc.constant(null),
  fc.string({ maxLength: 4 }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant({}),
  fc.constant([]),
  fc.dictionary(fc.string({ maxLength: 3 }), fc.oneof(fc.constant(null), fc.integer()), { maxKeys: 2 }),
  fc.array(fc.oneof(fc.constant(null), fc.string({ maxLength: 3 })), { maxLength: 2 }),
);
const aMap = fc.oneof(
  fc.dictionary(fc.stringMatching(/^[a-z][a-z0-9-]{0,5}$/), anyValue, { maxKeys: 3 }),
  anyValue,
);
const aList = fc.oneof(fc.array(anyValue, { maxLength: 3 }), anyValue);

describe('no zod wording in any answer (fuzz)', () => {
  const requests: [string, fc.Arbitrary<[string, string, unknown]>][] = [
    [
      'clusters.create nodePools[0].config.labels',
      aMap.map((labels) => [
        'POST',
        `${LOC}/clusters`,
        { cluster: { name: 'c9', nodePools: [{ name: 'np', initialNodeCount: 1, config: { labels } }] } },
      ]),
    ],
    ['nodePools.update labels', aMap.map((labels) => ['PUT', POOL, { labels: { labels } }])],
    ['nodePools.update tags', aList.map((tags) => ['PUT', POOL, { tags: { tags } }])],
    ['setLocations', aList.map((locations) => ['POST', `${CLUSTER}:setLocations`, { locations }])],
    [
      'setResourceLabels',
      aMap.map((resourceLabels) => [
        'POST',
        `${CLUSTER}:setResourceLabels`,
        { resourceLabels, labelFingerprint: FINGERPRINT },
      ]),
    ],
  ];
  for (const [name, request] of requests) {
    it(name, async () => {
      await fc.assert(
        fc.asyncProperty(request, async ([method, path, body]) => {
          const res = await h.request(method, path, { body });
          // GKE's own fingerprint text says "the expected one is": not zod's.
          const text = res.text.replace(/the expected one is/g, '');
          expect(text, JSON.stringify(body)).not.toMatch(ZOD_WORDING);
          expect(res.status, res.text).toBeLessThan(500);
        }),
        { numRuns: 40 },
      );
    });
  }

  it('the parser alone, for every request schema: nothing but the front end texts', () => {
    const bodies = fc.dictionary(
      fc.constantFrom('locations', 'resourceLabels', 'labels', 'tags', 'nodePool', 'cluster', 'update'),
      fc.oneof(aMap, aList, fc.record({ config: fc.record({ labels: aMap, tags: aList }) })),
      { maxKeys: 3 },
    );
    const requestSchemas = Object.entries(schemas).filter(([n]) => n.endsWith('Request')) as [
      string,
      z.ZodType,
    ][];
    expect(requestSchemas.length).toBeGreaterThan(15);
    fc.assert(
      fc.property(fc.constantFrom(...requestSchemas), bodies, ([, schema], body) => {
        const result = parseRequest(schema, body, false);
        if (!result.ok) expect(JSON.stringify(result.error)).not.toMatch(ZOD_WORDING);
      }),
      { numRuns: 400 },
    );
  });
  it('what zod alone refuses is still answered in the front end form (the safety net)', () => {
    // The walk checks every type the request schemas have; a check only zod knows stands for one it may miss.
    const schema = z.object({
      labels: z.record(z.string(), z.string().min(2)).optional(),
      items: z.array(z.object({ fooBar: z.int().max(3).optional() })).optional(),
    });
    const result = parseRequest(schema, { labels: { k: 'x' }, items: [{}, { fooBar: 4 }] }, true);
    expect(result.ok ? undefined : result.error).toEqual({
      code: 'BAD_PAYLOAD',
      violations: [
        { field: 'labels[k]', description: `Invalid value at 'labels[k]' (TYPE_STRING), "x"` },
        { field: 'items[1].foo_bar', description: "Invalid value at 'items[1].foo_bar' (TYPE_INT32), 4" },
      ],
    });
  });
});

describe('oneofs', () => {
  const daily = { startTime: '03:00' };
  const recurring = {
    window: { startTime: '2026-01-03T03:00:00Z', endTime: '2026-01-03T07:00:00Z' },
    recurrence: 'FREQ=WEEKLY;BYDAY=SA',
  };

  it('setMaintenancePolicy refuses a second member of MaintenanceWindow.policy, naming it as sent', async () => {
    const both = await h.post(`${CLUSTER}:setMaintenancePolicy`, {
      maintenancePolicy: { window: { dailyMaintenanceWindow: daily, recurringWindow: recurring } },
    });
    expect(badPayload(both)).toBe(
      "Invalid value at 'maintenance_policy.window' (oneof), oneof field 'policy' is already set. Cannot set 'recurringWindow'",
    );
    expect(both.body.error.details[0].fieldViolations[0].field).toBe('maintenance_policy.window');
    const snake = await h.post(`${CLUSTER}:setMaintenancePolicy`, {
      maintenance_policy: { window: { recurring_window: recurring, daily_maintenance_window: {} } },
    });
    expect(badPayload(snake)).toBe(
      "Invalid value at 'maintenance_policy.window' (oneof), oneof field 'policy' is already set. Cannot set 'daily_maintenance_window'",
    );
    expect((await h.get(OPS)).body.operations).toBeUndefined();
  });

  it('a member written null sets nothing', async () => {
    const current = (await h.get(CLUSTER)).body.maintenancePolicy.resourceVersion;
    const op = await h.post(`${CLUSTER}:setMaintenancePolicy`, {
      maintenancePolicy: {
        window: { recurringWindow: null, dailyMaintenanceWindow: daily },
        resourceVersion: current,
      },
    });
    expect(op.status, op.text).toBe(200);
    expect((await settle(op.body)).maintenancePolicy.window.dailyMaintenanceWindow.startTime).toBe('03:00');
  });

  it('clusters.create: the same oneof inside the Cluster', async () => {
    const res = await h.post(`${LOC}/clusters`, {
      cluster: {
        name: 'c9',
        initialNodeCount: 1,
        maintenancePolicy: { window: { recurringWindow: recurring, dailyMaintenanceWindow: daily } },
      },
    });
    expect(badPayload(res)).toBe(
      "Invalid value at 'cluster.maintenance_policy.window' (oneof), oneof field 'policy' is already set. Cannot set 'dailyMaintenanceWindow'",
    );
  });

  it('nodePools.update: the oneofs of the hand-written BlueGreenSettings and SwapConfig', async () => {
    const rollout = await h.put(POOL, {
      upgradeSettings: {
        strategy: 'BLUE_GREEN',
        blueGreenSettings: { standardRolloutPolicy: { batchNodeCount: 1 }, autoscaledRolloutPolicy: {} },
      },
    });
    expect(badPayload(rollout)).toBe(
      "Invalid value at 'upgrade_settings.blue_green_settings' (oneof), oneof field 'rollout_policy' is already set. Cannot set 'autoscaledRolloutPolicy'",
    );
    const batch = await h.put(POOL, {
      upgradeSettings: {
        blueGreenSettings: { standardRolloutPolicy: { batchPercentage: 0.5, batchNodeCount: 1 } },
      },
    });
    expect(badPayload(batch)).toBe(
      "Invalid value at 'upgrade_settings.blue_green_settings.standard_rollout_policy' (oneof), oneof field 'update_batch_size' is already set. Cannot set 'batchNodeCount'",
    );
    const swap = await h.put(POOL, {
      linuxNodeConfig: {
        swapConfig: {
          enabled: true,
          bootDiskProfile: { swapSizeGib: '4' },
          dedicatedLocalSsdProfile: { diskCount: '1' },
        },
      },
    });
    expect(badPayload(swap)).toBe(
      "Invalid value at 'linux_node_config.swap_config' (oneof), oneof field 'performance_profile' is already set. Cannot set 'dedicatedLocalSsdProfile'",
    );
    const size = parseRequest(
      UpdateNodePoolRequest,
      {
        linuxNodeConfig: {
          swapConfig: { ephemeralLocalSsdProfile: { swapSizePercent: 10, swapSizeGib: '4' } },
        },
      },
      true,
    );
    expect(size.ok ? undefined : size.error).toEqual({
      code: 'BAD_PAYLOAD',
      violations: [
        {
          field: 'linux_node_config.swap_config.ephemeral_local_ssd_profile',
          description:
            "Invalid value at 'linux_node_config.swap_config.ephemeral_local_ssd_profile' (oneof), oneof field 'swap_size' is already set. Cannot set 'swapSizeGib'",
        },
      ],
    });
    // One member is fine, under v1 as under v1beta1.
    for (const version of ['v1', 'v1beta1'] as const) {
      const one = parseRequest(
        UpdateNodePoolRequest,
        { upgradeSettings: { blueGreenSettings: { standardRolloutPolicy: { batchPercentage: 0.5 } } } },
        true,
        version,
      );
      expect(one.ok).toBe(true);
    }
  });

  it('every oneof of the proto that a request schema can carry two members of is marked', () => {
    const require = createRequire(import.meta.url);
    const pkg = require.resolve('@google-cloud/container/package.json');
    const root = JSON.parse(readFileSync(join(dirname(pkg), 'build', 'protos', 'protos.json'), 'utf8'));
    interface ProtoMessage {
      nested?: Record<string, ProtoMessage>;
      fields?: Record<string, { type: string; options?: { json_name?: string } }>;
      oneofs?: Record<string, { oneof: string[] }>;
    }
    const types = new Map<string, ProtoMessage>();
    const index = (ns: ProtoMessage, prefix: string) => {
      for (const [name, node] of Object.entries(ns.nested ?? {})) {
        const full = prefix ? `${prefix}.${name}` : name;
        if (node.fields) types.set(full, node);
        index(node, full);
      }
    };
    index(root, '');
    const resolve = (name: string, scope: string) => {
      const parts = scope.split('.');
      for (let i = parts.length; i >= 0; i--) {
        const candidate = [...parts.slice(0, i), name].join('.');
        if (types.has(candidate)) return candidate;
      }
      return undefined;
    };
    type Def = {
      type: string;
      innerType?: z.ZodType;
      element?: z.ZodType;
      valueType?: z.ZodType;
      shape?: Record<string, z.ZodType>;
    };
    const defOf = (s: z.ZodType) => (s as unknown as { _zod: { def: Def } })._zod.def;
    const unwrap = (s: z.ZodType): z.ZodType => {
      const def = defOf(s);
      if (def.type === 'optional' || def.type === 'nullable' || def.type === 'default')
        return unwrap(def.innerType as z.ZodType);
      if (def.type === 'array') return unwrap(def.element as z.ZodType);
      if (def.type === 'record') return unwrap(def.valueType as z.ZodType);
      return s;
    };
    const checked = new Set<string>();
    const seen = new Set<string>();
    const missing: string[] = [];
    let ids = 0;
    const idOf = new WeakMap<z.ZodType, number>();
    const visit = (schema: z.ZodType, full: string) => {
      const inner = unwrap(schema);
      const def = defOf(inner);
      if (def.type !== 'object') return;
      if (!idOf.has(inner)) idOf.set(inner, ids++);
      const key = `${idOf.get(inner)}|${full}`;
      if (seen.has(key)) return;
      seen.add(key);
      const message = types.get(full) as ProtoMessage;
      const shape = def.shape ?? {};
      const jsonOf = (f: string) => message.fields?.[f]?.options?.json_name ?? f;
      for (const [camel, { oneof }] of Object.entries(message.oneofs ?? {})) {
        const present = oneof.map(jsonOf).filter((m) => Object.hasOwn(shape, m));
        if (present.length < 2) continue;
        const name = camel.replace(/[A-Z]/g, (ch) => `_${ch.toLowerCase()}`);
        checked.add(`${full}.${name}`);
        for (const member of present) {
          if (oneofFields(inner)?.get(member) !== name) missing.push(`${full}.${name}: ${member}`);
        }
      }
      for (const [field, spec] of Object.entries(message.fields ?? {})) {
        const child = shape[jsonOf(field)];
        const type = resolve(spec.type, full);
        if (child !== undefined && type !== undefined) visit(child, type);
      }
    };
    for (const [name, schema] of Object.entries(schemas)) {
      if (name.endsWith('Request') && types.has(`google.container.v1beta1.${name}`)) {
        visit(schema as z.ZodType, `google.container.v1beta1.${name}`);
      }
    }
    expect(missing).toEqual([]);
    expect([...checked].sort()).toEqual(
      expect.arrayContaining([
        'google.container.v1beta1.BlueGreenSettings.rollout_policy',
        'google.container.v1beta1.BlueGreenSettings.StandardRolloutPolicy.update_batch_size',
        'google.container.v1beta1.LinuxNodeConfig.SwapConfig.performance_profile',
        'google.container.v1beta1.LinuxNodeConfig.SwapConfig.BootDiskProfile.swap_size',
        'google.container.v1beta1.LinuxNodeConfig.SwapConfig.EphemeralLocalSsdProfile.swap_size',
        'google.container.v1beta1.MaintenanceWindow.policy',
      ]),
    );
  });
});
