import { createHash } from 'node:crypto';
import { regionOf } from './defaults';
import { isZone } from './names';
import type { ClusterRecord, ClusterState } from './state';

/**
 * Read-only answers about clusters and locations: the cluster's JSON Web Key Set (getJwks, which credential
 * rotations change) and the GKE locations of a project (locations.list, v1beta1).
 */

/** SHA-256 blocks of a seed, concatenated to `bytes` bytes. */
function derivedBytes(seed: string, bytes: number): Buffer {
  const blocks: Buffer[] = [];
  for (let i = 0; blocks.length * 32 < bytes; i++) {
    blocks.push(createHash('sha256').update(`${seed}#${i}`).digest());
  }
  return Buffer.concat(blocks).subarray(0, bytes);
}

/** The RS256 signing key of the cluster's n-th credential generation (0: as created). */
function signingKey(record: ClusterRecord, generation: number) {
  const base = `${record.cluster.id ?? ''}/${record.projectId}/${record.location}/${record.name}`;
  const seed = generation === 0 ? base : `${base}/rotation ${generation}`;
  const modulus = derivedBytes(`${seed}/n`, 256);
  // The top bit set (a full 2048-bit modulus) and odd, as an RSA modulus is.
  modulus[0] = (modulus[0] ?? 0) | 0x80;
  modulus[255] = (modulus[255] ?? 0) | 0x01;
  return {
    kty: 'RSA',
    alg: 'RS256',
    use: 'sig',
    kid: derivedBytes(`${seed}/kid`, 20).toString('hex'),
    n: modulus.toString('base64url'),
    e: 'AQAB',
  };
}

/**
 * The cluster's JSON Web Key Set: one RS256 signing key whose modulus (2048 bits) and key id derive from
 * the cluster's id and its credential rotations, so the set is the same on every read and in every replay
 * of a seeded world. During a credential rotation the previous key is listed after the new one (tokens it
 * signed stay valid until the rotation completes). No token is ever signed with them (the simulator runs
 * no Kubernetes API server).
 */
export function clusterJwks(record: ClusterRecord) {
  const generation = record.credentials?.keyRotations ?? 0;
  const rotating = record.credentials?.rotation?.credentials === true;
  return {
    keys: [
      signingKey(record, generation),
      ...(rotating && generation > 0 ? [signingKey(record, generation - 1)] : []),
    ],
  };
}

/**
 * The cluster's OIDC discovery document: the issuer GKE's workload identity documents
 * (`https://container.googleapis.com/v1/projects/{project id}/locations/{location}/clusters/{cluster}`), its
 * `jwks` beside it, and what a Kubernetes service account issuer supports.
 */
export function clusterOpenIdConfig(record: ClusterRecord) {
  const issuer = `https://container.googleapis.com/v1/projects/${record.projectId}/locations/${record.location}/clusters/${record.name}`;
  return {
    issuer,
    jwks_uri: `${issuer}/jwks`,
    response_types_supported: ['id_token'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['RS256'],
    claims_supported: ['iss', 'sub', 'kid'],
    grant_types: ['urn:kubernetes:grant_type:programmatic_authorization'],
  };
}

/** Regions and their zones the simulator lists as GKE locations, besides those of the world's clusters. */
const REGIONS: Readonly<Record<string, readonly string[]>> = {
  'asia-east1': ['a', 'b', 'c'],
  'asia-northeast1': ['a', 'b', 'c'],
  'europe-west1': ['b', 'c', 'd'],
  'europe-west4': ['a', 'b', 'c'],
  'us-central1': ['a', 'b', 'c', 'f'],
  'us-east1': ['b', 'c', 'd'],
  'us-east4': ['a', 'b', 'c'],
  'us-west1': ['a', 'b', 'c'],
};

/** locations.list: every region and zone, sorted by name, as `projects/{p}/locations/{l}`. */
export function listLocations(state: ClusterState, project: string) {
  const names = new Set<string>();
  for (const [region, zones] of Object.entries(REGIONS)) {
    names.add(region);
    for (const z of zones) names.add(`${region}-${z}`);
  }
  for (const record of state.clusters.values()) {
    names.add(record.location);
    names.add(regionOf(record.location));
    for (const zone of record.cluster.locations ?? []) names.add(zone);
  }
  return {
    locations: [...names].sort().map((name) => ({
      type: isZone(name) ? ('ZONE' as const) : ('REGION' as const),
      name: `projects/${project}/locations/${name}`,
    })),
  };
}
