import type { JournalEntry, JournalFilter } from './types';

/**
 * A journal filter in one line, for messages.
 *
 * @example describeFilter({ operation: 'nodePools.update', status: 200 }) // '{ operation=nodePools.update status=200 }'
 */
export function describeFilter(filter: JournalFilter): string {
  const parts = Object.entries(filter)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${String(v)}`);
  return parts.length === 0 ? '(any request)' : `{ ${parts.join(' ')} }`;
}

/**
 * One journal entry on one line, for messages.
 *
 * @example formatEntry(entry) // '#3 PUT /v1beta1/projects/p/… → 409 nodePools.update [faults: rule-1]'
 */
export function formatEntry(e: JournalEntry): string {
  const op = e.operation ? ` ${e.operation}` : '';
  const faults = e.faults.length > 0 ? ` [faults: ${e.faults.join(', ')}]` : '';
  const status = e.status === 0 ? 'connection fault' : String(e.status);
  return `#${e.seq} ${e.method} ${e.path} → ${status}${op}${faults}`;
}

/**
 * A titled, indented list of entries (the newest `max`), or a line saying there were none.
 *
 * @example formatEntries(await sim.journal.list(), 'Received')
 */
export function formatEntries(entries: JournalEntry[], title: string, max = 20): string {
  if (entries.length === 0) return `${title}: none.`;
  const shown = entries.slice(-max);
  const more = entries.length > shown.length ? `\n  … and ${entries.length - shown.length} earlier` : '';
  return `${title}:${more}\n${shown.map((e) => `  ${formatEntry(e)}`).join('\n')}`;
}
