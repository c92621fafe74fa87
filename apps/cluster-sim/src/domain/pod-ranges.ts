import type { ClusterRecord } from './state';

/**
 * The pod ranges the clusters of each VPC network hold, and the `10.X.0.0/14` GKE gives the next cluster
 * of a network: one derived from the cluster's id, moved on by /14 steps past those that overlap a range
 * another cluster of the network holds (given or chosen: one VPC cannot route one range to two clusters;
 * GKE picks a free one, as the different ranges of public describes show).
 *
 * Kept per seed (and per clusters.create) rather than found by a scan of every cluster for each one:
 * each candidate /14 counts the distinct ranges of the network that overlap it, so a choice looks at
 * the 63 candidates at most, however many clusters the network has.
 */
export interface PodRanges {
  /** The second octet X of the `10.X.0.0/14` chosen for a cluster of `network` whose id is `id`. */
  octetFor(network: string, id: string): number;
  /** Records the range a cluster holds in its network (a range that is no IPv4 CIDR blocks nothing). */
  add(record: ClusterRecord): void;
  /**
   * The work done so far, for tests: ranges looked at (each cluster's, each new distinct range against
   * the candidates, each candidate checked in a choice).
   */
  readonly examined: number;
}

/** The candidates: 10.4.0.0/14, 10.8.0.0/14, … 10.252.0.0/14 (63 of them; 10.0.0.0/14 is never chosen). */
const CANDIDATES = 63;
const candidateOctet = (k: number) => 4 * (1 + k);
const candidateLow = (k: number) => (10 * 2 ** 24 + candidateOctet(k) * 2 ** 16) >>> 0;
const candidateHigh = (k: number) => candidateLow(k) + 2 ** 18 - 1;

/** An IPv4 CIDR's first and last address as numbers (undefined if it is none). */
function ipv4Range(cidr: string): [number, number] | undefined {
  const m = /^(\d+)\.(\d+)\.(\d+)\.(\d+)\/(\d+)$/.exec(cidr);
  if (!m) return undefined;
  const bits = Number(m[5]);
  if (bits > 32) return undefined;
  const address = ((Number(m[1]) << 24) | (Number(m[2]) << 16) | (Number(m[3]) << 8) | Number(m[4])) >>> 0;
  const size = 2 ** (32 - bits);
  const lo = address - (address % size);
  return [lo, lo + size - 1];
}

/** One network's distinct ranges, and how many of them overlap each candidate. */
interface NetworkRanges {
  held: Set<string>;
  blocking: Uint32Array;
}

/**
 * The pod ranges of `clusters` (every network's, or only `network`'s), to which a seed adds each cluster
 * it makes. The first candidate tried is derived from the id (`id[8:10]` as hex, mod 63); when every
 * candidate is taken, the first is given anyway (as before the ranges were kept apart).
 */
export function podRangesOf(clusters: Iterable<ClusterRecord>, network?: string): PodRanges {
  const networks = new Map<string, NetworkRanges>();
  let examined = 0;

  function rangesOf(name: string): NetworkRanges {
    let ranges = networks.get(name);
    if (!ranges) {
      ranges = { held: new Set(), blocking: new Uint32Array(CANDIDATES) };
      networks.set(name, ranges);
    }
    return ranges;
  }

  function hold(name: string, cidr: string | undefined): void {
    examined++;
    if (!cidr) return;
    const ranges = rangesOf(name);
    if (ranges.held.has(cidr)) return;
    ranges.held.add(cidr);
    // A new distinct range: the candidates it overlaps are blocked by one more.
    const range = ipv4Range(cidr);
    examined += CANDIDATES;
    if (!range) return;
    const [a, b] = range;
    for (let k = 0; k < CANDIDATES; k++) {
      if (a <= candidateHigh(k) && candidateLow(k) <= b) ranges.blocking[k] = (ranges.blocking[k] ?? 0) + 1;
    }
  }

  /** Adds a cluster's range (only if it is of `network`, when one is given). */
  function add(record: ClusterRecord): void {
    const c = record.cluster as { networkConfig?: { network?: string }; clusterIpv4Cidr?: string };
    const of = c.networkConfig?.network;
    if (of === undefined || (network !== undefined && of !== network)) examined++;
    else hold(of, c.clusterIpv4Cidr);
  }

  for (const record of clusters) add(record);

  return {
    octetFor(name, id) {
      const blocking = networks.get(name)?.blocking;
      const first = Number.parseInt(id.slice(8, 10), 16) % CANDIDATES;
      for (let step = 0; step < CANDIDATES; step++) {
        const k = (first + step) % CANDIDATES;
        examined++;
        if (!blocking || blocking[k] === 0) return candidateOctet(k);
      }
      return candidateOctet(first);
    },
    add,
    get examined() {
      return examined;
    },
  };
}
