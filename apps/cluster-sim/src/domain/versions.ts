import { fail, ok, type Result } from './errors';

/** A GKE version such as `1.33.4-gke.1036000`, as comparable numbers. */
interface ParsedVersion {
  major: number;
  minor: number;
  patch: number;
  build: number;
  text: string;
}

const EXPLICIT = /^(\d+)\.(\d+)\.(\d+)-[a-z]+\.(\d+)$/;

function parseVersion(text: string): ParsedVersion | undefined {
  const m = EXPLICIT.exec(text);
  if (!m) return undefined;
  return { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3]), build: Number(m[4]), text };
}

/** Orders versions; unparseable ones sort lowest. */
export function compareVersions(a: string, b: string): number {
  const pa = parseVersion(a);
  const pb = parseVersion(b);
  if (!pa || !pb) return pa ? 1 : pb ? -1 : a.localeCompare(b);
  return pa.major - pb.major || pa.minor - pb.minor || pa.patch - pb.patch || pa.build - pb.build;
}

/** `major * 1000 + minor` of a version (-1 when unparseable), to compare minor versions. */
export function minorOf(text: string): number {
  const v = parseVersion(text);
  return v ? v.major * 1000 + v.minor : -1;
}

export function sortDescending(versions: readonly string[]): string[] {
  return [...versions].sort((a, b) => compareVersions(b, a));
}

export interface VersionRules {
  /** `ServerConfig.validNodeVersions` (or the release channel's validVersions). */
  validNodeVersions: readonly string[];
  /** The cluster's current master version. */
  masterVersion: string;
  /** How many minor versions a node may trail the master by (GKE documents 2). */
  maxNodeSkewMinors: number;
}

/**
 * Resolves a `nodeVersion` alias to the explicit version the pool will store, then checks the
 * skew rules. `-` is the master version; `latest` the highest valid version, capped at the master
 * (a simulator inference: a higher one would be rejected anyway); `1.X` / `1.X.Y` the highest valid
 * version with that prefix; an explicit version must be valid.
 *
 * @example resolveNodeVersion('1.33', rules) // { ok: true, value: '1.33.5-gke.1308000' }
 */
export function resolveNodeVersion(input: string, rules: VersionRules): Result<string> {
  const master = parseVersion(rules.masterVersion);
  let resolved: string | undefined;
  if (input === '-') return ok(rules.masterVersion);
  if (input === 'latest') {
    resolved = sortDescending(rules.validNodeVersions).find(
      (v) => compareVersions(v, rules.masterVersion) <= 0,
    );
  } else if (/^\d+\.\d+$/.test(input) || /^\d+\.\d+\.\d+$/.test(input)) {
    const prefix = `${input}${input.split('.').length === 2 ? '.' : '-'}`;
    resolved = sortDescending(rules.validNodeVersions).find((v) => v.startsWith(prefix));
  } else if (rules.validNodeVersions.includes(input) || input === rules.masterVersion) {
    resolved = input;
  }
  if (resolved === undefined) return fail({ code: 'VERSION_UNSUPPORTED', version: input });
  const v = parseVersion(resolved);
  if (v && master) {
    if (v.major > master.major || (v.major === master.major && v.minor > master.minor)) {
      return fail({ code: 'VERSION_MINOR_ABOVE_MASTER', version: resolved, master: rules.masterVersion });
    }
    if (compareVersions(resolved, rules.masterVersion) > 0) {
      return fail({ code: 'VERSION_ABOVE_MASTER', version: resolved, master: rules.masterVersion });
    }
    if (v.major === master.major && master.minor - v.minor > rules.maxNodeSkewMinors) {
      return fail({
        code: 'VERSION_TOO_OLD',
        version: resolved,
        master: rules.masterVersion,
        maxSkew: rules.maxNodeSkewMinors,
      });
    }
  }
  return ok(resolved);
}

/** Resolves a cluster's requested master version (`latest`, `1.X`, `1.X.Y`, explicit, or empty = default). */
export function resolveMasterVersion(
  input: string | undefined,
  validMasterVersions: readonly string[],
  defaultVersion: string,
): Result<string> {
  if (input === undefined || input === '' || input === '-') return ok(defaultVersion);
  const sorted = sortDescending(validMasterVersions);
  let resolved: string | undefined;
  if (input === 'latest') resolved = sorted[0];
  else if (/^\d+\.\d+$/.test(input)) resolved = sorted.find((v) => v.startsWith(`${input}.`));
  else if (/^\d+\.\d+\.\d+$/.test(input)) resolved = sorted.find((v) => v.startsWith(`${input}-`));
  else if (validMasterVersions.includes(input)) resolved = input;
  return resolved === undefined ? fail({ code: 'MASTER_VERSION_UNSUPPORTED', version: input }) : ok(resolved);
}

/**
 * GKE's rules for changing a running control plane to `target` (an explicit version, aliases already
 * resolved) from `current`: never to an earlier minor version (an earlier patch of the same minor is
 * allowed), and at most one minor version up at a time. The version it already runs is accepted. Both
 * refusals are 400 INVALID_ARGUMENT with a RequestInfo detail; the texts are in FIDELITY.md ("Version
 * aliases"). Unparseable versions are not judged.
 *
 * @example checkMasterVersionChange('1.33.5-gke.1308000', '1.32.9-gke.1108000') // refused: a minor downgrade
 */
export function checkMasterVersionChange(current: string, target: string): Result<string> {
  const from = minorOf(current);
  const to = minorOf(target);
  if (from < 0 || to < 0) return ok(target);
  if (to < from) {
    return fail({
      code: 'INVALID_REQUEST',
      message: `Master cannot be upgraded to "${target}": specified version is not newer than the current version.`,
    });
  }
  if (to - from > 1) {
    return fail({
      code: 'INVALID_REQUEST',
      message: `Master cannot be upgraded to "${target}": cannot upgrade the master more than a minor version at a time.`,
    });
  }
  return ok(target);
}
