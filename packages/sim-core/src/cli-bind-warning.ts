import { isIP } from 'node:net';

/**
 * Whether an address to bind (or a bound one) is reachable from this machine only: `localhost`,
 * 127.0.0.0/8, `::1` (also IPv4-mapped). `0.0.0.0`, `::`, other addresses and other host names are not.
 */
export function isLoopbackHost(host: string): boolean {
  let h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (isIP(h) === 6) {
    // Compressed form: `0:0:0:0:0:0:0:1` is `::1`, `::ffff:127.0.0.1` is `::ffff:7f00:1`.
    h = new URL(`http://[${h}]/`).hostname.slice(1, -1);
    return h === '::1' || /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(h);
  }
  return isIP(h) === 4 && h.startsWith('127.');
}

/**
 * The warning the CLI prints on stderr when the control plane is reachable from the network without
 * an admin token (docs/decisions/0015); `undefined` when it is not.
 *
 * @example openControlPlaneWarning({ name: 'cluster-sim', host: '0.0.0.0', port: 8085 })
 */
export function openControlPlaneWarning(bind: {
  name: string;
  host: string;
  port: number;
  adminToken?: string;
}): string | undefined {
  if (bind.adminToken || isLoopbackHost(bind.host)) return undefined;
  const where =
    bind.host === '0.0.0.0' || bind.host === '::' || bind.host === ''
      ? `${bind.host || '0.0.0.0'} (every network interface)`
      : bind.host;
  return [
    `${bind.name}: WARNING: the control plane is open to the network.`,
    `  It listens on ${where}, port ${bind.port}, without an admin token:`,
    `  anyone who can reach that port can read and replace the simulator's state, add faults,`,
    '  move its clock and read its journal (/_sim/...).',
    '  Set a token with --admin-token <token> or SIM_ADMIN_TOKEN=<token> (control-plane clients',
    '  then send Authorization: Bearer <token> or X-Sim-Admin-Token: <token>),',
    '  or bind loopback only with --host 127.0.0.1.',
  ].join('\n');
}
