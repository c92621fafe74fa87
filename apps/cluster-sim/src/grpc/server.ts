import containerProtos from '@google-cloud/container/build/protos/protos.json' with { type: 'json' };
import {
  type handleUnaryCall,
  type Metadata,
  Server,
  ServerCredentials,
  type ServiceDefinition,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { knownBody } from '@sims/sim-core';
import protobuf from 'protobufjs';
import { type HttpBinding, restRequestOf } from './http-binding';
import { createJsonMapping, type JsonMapping } from './json-mapping';
import type { Http2Sink } from './same-port';
import { addErrorDetails, restErrorToStatus } from './status';

/** Where each gRPC call is answered: the simulator's own app, in process. */
export interface RestApp {
  request(path: string, init: RequestInit): Response | Promise<Response>;
}

/** The two services served, in the protos Google publishes with @google-cloud/container. */
const SERVICES = ['google.container.v1beta1.ClusterManager', 'google.container.v1.ClusterManager'];

/** Messages → the JSON the REST side reads: enums by name, 64-bit integers as strings, no defaults. */
const TO_OBJECT: protobuf.IConversionOptions = { enums: String, longs: String, bytes: String, json: true };

/** Metadata keys that are HTTP/2 or gRPC framing, not headers a REST request carries. */
const NOT_HEADERS = /^(grpc-|content-type$|te$|user-agent$|:)/;

function headersOf(metadata: Metadata): Headers {
  const headers = new Headers({ 'content-type': 'application/json' });
  for (const [key, value] of Object.entries(metadata.getMap())) {
    if (NOT_HEADERS.test(key) || key.endsWith('-bin') || typeof value !== 'string') continue;
    headers.set(key, value);
  }
  return headers;
}

function bindingsOf(method: protobuf.Method): HttpBinding[] {
  const parsed = (method.parsedOptions ?? []) as Record<string, unknown>[];
  const http = parsed.find((o) => '(google.api.http)' in o)?.['(google.api.http)'] as
    | (HttpBinding & { additional_bindings?: HttpBinding | HttpBinding[] })
    | undefined;
  if (!http) return [];
  const extra = http.additional_bindings;
  return [http, ...(Array.isArray(extra) ? extra : extra ? [extra] : [])];
}

function unaryHandler(
  app: RestApp,
  method: protobuf.Method,
  statusRoot: protobuf.Root,
  mapping: JsonMapping,
): handleUnaryCall<protobuf.Message, Uint8Array> {
  const requestType = method.resolvedRequestType as protobuf.Type;
  const responseType = method.resolvedResponseType as protobuf.Type;
  const bindings = bindingsOf(method);
  // The REST side answers a read of an unchanged resource with the same text (its frozen JSON texts):
  // the message encoded from the last text is kept, so a repeated read costs no decode and encode.
  let last: { text: string; bytes: Uint8Array } | undefined;
  const encode = (text: string): Uint8Array => {
    if (last?.text === text) return last.bytes;
    const json = text ? JSON.parse(text) : {};
    const message = responseType.fromObject(mapping.toProtoObject(json, responseType) as object);
    last = { text, bytes: responseType.encode(message).finish() };
    return last.bytes;
  };
  return async (call, callback) => {
    try {
      const message = mapping.toJson(requestType.toObject(call.request, TO_OBJECT), requestType) as Record<
        string,
        unknown
      >;
      const rest = restRequestOf(bindings, message);
      const res = await app.request(`http://localhost${rest.path}`, {
        method: rest.method,
        headers: headersOf(call.metadata),
        body: rest.body,
      });
      // The app's answer is @hono/node-server's lightweight Response when the CLI or startClusterSim
      // serves it: its text is read where it is kept, since \`text()\` would build a native Response and
      // a web stream first (half of a call's cost, bench/ figure 11).
      const known = knownBody(res);
      const text = known ? known.text : known === null ? '' : await res.text();
      if (!res.ok) return callback(restErrorToStatus(statusRoot, res.status, text));
      callback(null, encode(text));
    } catch (err) {
      callback(Object.assign(new Error((err as Error).message), { code: 13 }));
    }
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
  const server = new Server();
  for (const serviceName of SERVICES) {
    const service = root.lookupService(serviceName);
    const definition: Record<string, ServiceDefinition[string]> = {};
    const implementation: UntypedServiceImplementation = {};
    for (const method of service.methodsArray) {
      const requestType = method.resolvedRequestType as protobuf.Type;
      const responseType = method.resolvedResponseType as protobuf.Type;
      definition[method.name] = {
        path: `/${serviceName}/${method.name}`,
        requestStream: false,
        responseStream: false,
        requestSerialize: (m: protobuf.Message) => Buffer.from(requestType.encode(m).finish()),
        requestDeserialize: (b: Buffer) => requestType.decode(b),
        // The handler hands over the encoded message.
        responseSerialize: (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length),
        responseDeserialize: (b: Buffer) => responseType.decode(b),
      };
      implementation[method.name] = unaryHandler(app, method, root, mapping);
    }
    server.addService(definition, implementation);
  }
  const injector = server.createConnectionInjector(ServerCredentials.createInsecure());
  return {
    injectConnection: (socket) => injector.injectConnection(socket),
    destroy: () => {
      injector.destroy();
      server.forceShutdown();
    },
  };
}
