import containerProtos from '@google-cloud/container/build/protos/protos.json' with { type: 'json' };
import { knownBody } from '@sims/sim-core';
// The default import: protobufjs is CommonJS, whose named exports Node's ESM loader cannot see.
import protobuf from 'protobufjs';
import { bridgeRequest } from './bridge-request';
import { type HttpBinding, restRequestOf } from './http-binding';
import { createJsonMapping, type JsonMapping } from './json-mapping';
import type { Http2Sink } from './same-port';
import { addErrorDetails, GRPC_CODES, type RestErrorToStatus, restErrorToStatus } from './status';
import { createUnarySink, grpcFrame, type UnaryMethod } from './unary-transport';

/** Where each gRPC call is answered: the simulator's own app, in process. */
export interface RestApp {
  fetch(request: Request): Response | Promise<Response>;
}

/** The two services served, in the protos Google publishes with @google-cloud/container. */
const SERVICES = ['google.container.v1beta1.ClusterManager', 'google.container.v1.ClusterManager'];

/** Messages → the JSON the REST side reads: enums by name, 64-bit integers as strings, no defaults. */
const TO_OBJECT: protobuf.IConversionOptions = { enums: String, longs: String, bytes: String, json: true };

function bindingsOf(method: protobuf.Method): HttpBinding[] {
  const parsed = (method.parsedOptions ?? []) as Record<string, unknown>[];
  const http = parsed.find((o) => '(google.api.http)' in o)?.['(google.api.http)'] as
    | (HttpBinding & { additional_bindings?: HttpBinding | HttpBinding[] })
    | undefined;
  if (!http) return [];
  const extra = http.additional_bindings;
  return [http, ...(Array.isArray(extra) ? extra : extra ? [extra] : [])];
}

/** A request message's REST request, as the app takes it (the body's bytes and their length). */
interface Transcoded {
  method: string;
  url: string;
  body: Uint8Array<ArrayBuffer> | undefined;
  length: string | undefined;
}

const utf8 = new TextEncoder();

function unaryMethod(
  app: RestApp,
  method: protobuf.Method,
  errorStatus: RestErrorToStatus,
  mapping: JsonMapping,
): UnaryMethod {
  const requestType = method.resolvedRequestType as protobuf.Type;
  const responseType = method.resolvedResponseType as protobuf.Type;
  const bindings = bindingsOf(method);
  // A client repeats its calls (a poll of an operation, a read of the same pool): the REST request
  // transcoded from the last request message is kept, so a repeated one costs no decode and no walk.
  let lastRequest: { bytes: Buffer; rest: Transcoded } | undefined;
  const transcode = (bytes: Uint8Array): Transcoded => {
    if (lastRequest?.bytes.equals(bytes)) return lastRequest.rest;
    const decoded = requestType.decode(bytes);
    const message = mapping.toJson(requestType.toObject(decoded, TO_OBJECT), requestType) as Record<
      string,
      unknown
    >;
    const rest = restRequestOf(bindings, message);
    const body = rest.body === undefined ? undefined : utf8.encode(rest.body);
    const transcoded = {
      method: rest.method,
      url: `http://localhost${rest.path}`,
      body,
      length: body && String(body.byteLength),
    };
    lastRequest = { bytes: Buffer.from(bytes), rest: transcoded };
    return transcoded;
  };
  // The REST side answers a read of an unchanged resource with the same text (its frozen JSON texts):
  // the message framed from the last text is kept, so a repeated read costs no decode and encode.
  let lastAnswer: { text: string; frame: Uint8Array } | undefined;
  const encode = (text: string): Uint8Array => {
    if (lastAnswer?.text === text) return lastAnswer.frame;
    const json = text ? JSON.parse(text) : {};
    const message = responseType.fromObject(mapping.toProtoObject(json, responseType) as object);
    lastAnswer = { text, frame: grpcFrame(responseType.encode(message).finish()) };
    return lastAnswer.frame;
  };
  return async (bytes, metadata) => {
    let rest: Transcoded;
    try {
      rest = transcode(bytes);
    } catch (err) {
      return {
        ok: false,
        error: {
          code: GRPC_CODES.INTERNAL,
          message: `Error deserializing request: ${(err as Error).message}`,
        },
      };
    }
    metadata['content-type'] = 'application/json';
    if (rest.length !== undefined) metadata['content-length'] = rest.length;
    // A lightweight Request, as @hono/node-server hands REST's: undici's is built only if the app
    // asks for what only it has.
    const res = await app.fetch(
      bridgeRequest({ method: rest.method, url: rest.url, headers: metadata, body: rest.body }),
    );
    // The app's answer is @hono/node-server's lightweight Response when the CLI or startClusterSim
    // serves it: its text is read where it is kept, since `text()` would build a native Response and
    // a web stream first.
    const known = knownBody(res);
    const text = known
      ? 'text' in known
        ? known.text
        : new TextDecoder().decode(known.bytes)
      : known === null
        ? ''
        : await res.text();
    if (!res.ok) return { ok: false, error: errorStatus(res.status, text) };
    return { ok: true, frame: encode(text) };
  };
}

/**
 * The gRPC server of the container API: every RPC of both ClusterManager services answered by the
 * simulator's REST app through the RPC's `google.api.http` binding, so one implementation of each rule
 * (auth, namespaces, faults, journal, clock, domain) serves both transports. It listens on no port of
 * its own: connections come from `serveHttp2OnSamePort`.
 */
export function createGrpcSink(app: RestApp): Http2Sink {
  const root = protobuf.Root.fromJSON(containerProtos as protobuf.INamespace);
  addErrorDetails(root);
  root.resolveAll();
  const mapping = createJsonMapping();
  const errorStatus = restErrorToStatus(root);
  const methods = new Map<string, UnaryMethod>();
  for (const serviceName of SERVICES) {
    for (const method of root.lookupService(serviceName).methodsArray) {
      methods.set(`/${serviceName}/${method.name}`, unaryMethod(app, method, errorStatus, mapping));
    }
  }
  return createUnarySink(methods);
}
