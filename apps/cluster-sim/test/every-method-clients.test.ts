import { v1beta1 as gapicBeta, v1 as gapicV1 } from '@google-cloud/container';
import { container } from '@googleapis/container';
import { credentials } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { DISCOVERY_METHODS, type DiscoveryMethod } from '../src/http/methods.generated';
import { fakeAuth, useSocketSim } from './support/client-sim';
import {
  CALLS,
  clientPath,
  type Expected,
  filledPath,
  paramsFor,
  urlTemplate,
} from './support/discovery-calls';

/**
 * Every method of the discovery table, called through both of Google's Node clients over a socket, in
 * both API versions and in every form (`locations`, legacy `zones`): the simulated answer the request
 * should get, or the 501 naming the method; never the URL-not-found page. The journal shows the request
 * reached the method's own path.
 */

const simOf = useSocketSim(11, { seedEach: true });
const auth = fakeAuth;

/** The path of the last request the simulator journaled. */
async function lastPath(): Promise<string | undefined> {
  const res = await simOf().app.request('/_sim/journal?limit=1');
  const { entries } = (await res.json()) as { entries: { path: string }[] };
  return entries.at(-1)?.path ?? entries[0]?.path;
}

interface Answer {
  status: number;
  body: { error?: { status?: string; message?: string } };
}

function check(method: DiscoveryMethod, answer: Answer) {
  const call = CALLS[method.rpc];
  expect(call, `no call for ${method.rpc}`).toBeDefined();
  const expected = call?.expect as Expected;
  const text = JSON.stringify(answer.body);
  expect(text).not.toContain('was not found on this server');
  expect(answer.status, text).toBe(expected.status);
  if (expected.status === 501) {
    expect(answer.body.error?.status).toBe('UNIMPLEMENTED');
    expect(answer.body.error?.message).toContain(
      `Method google.container.${method.version}.ClusterManager.${method.rpc} (${method.id}) is not simulated by cluster-sim`,
    );
  } else if ('message' in expected) {
    expect(answer.body.error?.message).toMatch(expected.message);
  }
}

const label = (m: DiscoveryMethod) => `${m.version} ${m.id}`;

describe('@googleapis/container (discovery client): every method', () => {
  const clients = {
    v1beta1: () => container({ version: 'v1beta1', rootUrl: `${simOf().url}/`, auth: auth() as never }),
    v1: () => container({ version: 'v1', rootUrl: `${simOf().url}/`, auth: auth() as never }),
  };

  it.each(DISCOVERY_METHODS.map((m) => [label(m), m] as const))('%s', async (_, method) => {
    let target: Record<string, unknown> = clients[method.version]() as unknown as Record<string, unknown>;
    const path = clientPath(method.id);
    const name = path.pop() as string;
    for (const part of path) target = target[part] as Record<string, unknown>;
    const fn = target[name] as (
      params: unknown,
      options: unknown,
    ) => Promise<{ status: number; data: unknown }>;
    expect(typeof fn, method.id).toBe('function');
    const params = paramsFor(urlTemplate(fn), `/${method.version}/${filledPath(method)}`);
    const body = CALLS[method.rpc]?.body ?? {};
    const requestBody =
      method.httpMethod === 'GET' || method.httpMethod === 'DELETE' ? {} : { requestBody: body };
    const answer = await fn.call(target, { ...params, ...requestBody }, { retry: false }).then(
      (res) => ({ status: res.status, body: res.data as Answer['body'] }),
      (err: { response?: { status: number; data: Answer['body'] } }) => {
        if (!err.response) throw err;
        return { status: err.response.status, body: err.response.data };
      },
    );
    check(method, answer);
    expect(await lastPath()).toBe(`/${method.version}/${filledPath(method)}`);
  });
});

/** The GAPIC clients have one method per RPC of their proto; these RPCs are in the discovery table only. */
const NOT_IN_GAPIC = new Set([
  'v1 CompleteControlPlaneUpgrade',
  'v1beta1 GetOpenIDConfig',
  'v1 GetOpenIDConfig',
]);

describe('@google-cloud/container (GAPIC, REST fallback): every method', () => {
  const client = (version: 'v1beta1' | 'v1') => {
    const Client = version === 'v1beta1' ? gapicBeta.ClusterManagerClient : gapicV1.ClusterManagerClient;
    return new Client({
      fallback: true,
      apiEndpoint: '127.0.0.1',
      port: simOf().port,
      protocol: 'http',
      authClient: auth(),
    } as unknown as ConstructorParameters<typeof Client>[0]);
  };
  const discovery = {
    v1beta1: container({ version: 'v1beta1', rootUrl: 'http://unused/' }),
    v1: container({ version: 'v1', rootUrl: 'http://unused/' }),
  };

  it('lacks exactly the RPCs its proto does not have', async () => {
    const gapic = { v1beta1: client('v1beta1'), v1: client('v1') };
    const missing = DISCOVERY_METHODS.filter((m) => {
      const rpc = m.rpc.charAt(0).toLowerCase() + m.rpc.slice(1);
      return typeof (gapic[m.version] as unknown as Record<string, unknown>)[rpc] !== 'function';
    }).map((m) => `${m.version} ${m.rpc}`);
    expect(new Set(missing)).toEqual(NOT_IN_GAPIC);
    await Promise.all([gapic.v1beta1.close(), gapic.v1.close()]);
  });

  it.each(
    DISCOVERY_METHODS.filter((m) => !NOT_IN_GAPIC.has(`${m.version} ${m.rpc}`)).map(
      (m) => [label(m), m] as const,
    ),
  )('%s', async (_, method) => {
    const gke = client(method.version);
    // The request fields are the discovery client's path parameters: GAPIC picks the binding they fill.
    let target: Record<string, unknown> = discovery[method.version] as unknown as Record<string, unknown>;
    const path = clientPath(method.id);
    const name = path.pop() as string;
    for (const part of path) target = target[part] as Record<string, unknown>;
    const params = paramsFor(
      urlTemplate(target[name] as (...args: never[]) => unknown),
      `/${method.version}/${filledPath(method)}`,
    );
    const rpc = method.rpc.charAt(0).toLowerCase() + method.rpc.slice(1);
    const call = (gke as unknown as Record<string, (req: unknown) => Promise<unknown[]>>)[rpc] as (
      req: unknown,
    ) => Promise<unknown[]>;
    const answer = await call.call(gke, { ...params, ...(CALLS[method.rpc]?.body ?? {}) }).then(
      () => ({ status: 200, body: {} }),
      (err: { code?: number; message?: string }) => {
        // The REST fallback rejects with the HTTP status and the Google error JSON as its message.
        let body: Answer['body'] = {};
        try {
          body = JSON.parse(err.message ?? '') as Answer['body'];
        } catch {
          throw err;
        }
        return { status: err.code ?? 0, body };
      },
    );
    check(method, answer);
    expect(await lastPath()).toBe(`/${method.version}/${filledPath(method)}`);
    await gke.close();
  });
});

/** The HTTP status Google's front end gives each gRPC code (google.rpc.Code's mapping). */
const HTTP_OF_CODE: Record<number, number> = { 3: 400, 5: 404, 9: 400, 10: 409, 12: 501, 16: 401 };
const NAME_OF_CODE: Record<number, string> = {
  3: 'INVALID_ARGUMENT',
  5: 'NOT_FOUND',
  9: 'FAILED_PRECONDITION',
  10: 'ABORTED',
  12: 'UNIMPLEMENTED',
  16: 'UNAUTHENTICATED',
};

describe('@google-cloud/container (GAPIC, its default gRPC transport): every method', () => {
  const client = (version: 'v1beta1' | 'v1') => {
    const Client = version === 'v1beta1' ? gapicBeta.ClusterManagerClient : gapicV1.ClusterManagerClient;
    return new Client({
      apiEndpoint: '127.0.0.1',
      port: simOf().port,
      sslCreds: credentials.createInsecure(),
    } as unknown as ConstructorParameters<typeof Client>[0]);
  };
  const discovery = {
    v1beta1: container({ version: 'v1beta1', rootUrl: 'http://unused/' }),
    v1: container({ version: 'v1', rootUrl: 'http://unused/' }),
  };
  // Insecure channel credentials carry no token: the call sends it as metadata.
  const callOptions = { otherArgs: { headers: { authorization: 'Bearer fake-token' } }, retry: null };

  it.each(
    DISCOVERY_METHODS.filter((m) => !NOT_IN_GAPIC.has(`${m.version} ${m.rpc}`)).map(
      (m) => [label(m), m] as const,
    ),
  )('%s', async (_, method) => {
    const gke = client(method.version);
    let target: Record<string, unknown> = discovery[method.version] as unknown as Record<string, unknown>;
    const path = clientPath(method.id);
    const name = path.pop() as string;
    for (const part of path) target = target[part] as Record<string, unknown>;
    const params = paramsFor(
      urlTemplate(target[name] as (...args: never[]) => unknown),
      `/${method.version}/${filledPath(method)}`,
    );
    const rpc = method.rpc.charAt(0).toLowerCase() + method.rpc.slice(1);
    const call = (gke as unknown as Record<string, (req: unknown, o: unknown) => Promise<unknown[]>>)[
      rpc
    ] as (req: unknown, o: unknown) => Promise<unknown[]>;
    const request = { ...params, ...(CALLS[method.rpc]?.body ?? {}) };
    const answer = await call.call(gke, request, callOptions).then(
      () => ({ status: 200, body: {} }),
      (err: { code?: number; details?: string }) => {
        const code = err.code ?? -1;
        if (HTTP_OF_CODE[code] === undefined) throw err;
        return {
          status: HTTP_OF_CODE[code] as number,
          body: { error: { status: NAME_OF_CODE[code], message: err.details } },
        };
      },
    );
    check(method, answer);
    expect(await lastPath()).toBe(`/${method.version}/${filledPath(method)}`);
    await gke.close();
  });
});
