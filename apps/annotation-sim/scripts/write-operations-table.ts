/**
 * Writes FIDELITY.md's table of CVAT's operations (simulated, chosen, refused with the 501) from the
 * operations list of `@sims/annotation-schema` and the route rows. Run it after adding or removing a row:
 *
 *   pnpm --filter @sims/annotation-sim exec tsx --conditions=@sims/source scripts/write-operations-table.ts
 *
 * test/operations-table.test.ts fails, with the difference, while the table is not what this writes.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { listedRowEntries, operationsTable, withOperationsTable } from '../src/http/operations-table';

const file = join(dirname(fileURLToPath(import.meta.url)), '..', 'FIDELITY.md');
const before = readFileSync(file, 'utf8');
const after = withOperationsTable(before, operationsTable(listedRowEntries()));
if (after === before) console.log('FIDELITY.md: the operations table is current');
else {
  writeFileSync(file, after);
  console.log('FIDELITY.md: operations table written');
}
