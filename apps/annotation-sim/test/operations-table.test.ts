import { readFileSync } from 'node:fs';
import { CVAT_OPERATIONS, CVAT_SCHEMA_VERSION } from '@sims/annotation-schema';
import { describe, expect, it } from 'vitest';
import { journalOperation, rowOperations } from '../src/http/cvat-operations';
import {
  chosenWithoutRow,
  listedRowEntries,
  operationStates,
  operationsTable,
  TABLE_END,
  TABLE_START,
} from '../src/http/operations-table';

/**
 * The generated list of CVAT's operations (packages/annotation-schema/src/cvat-operations.generated.ts,
 * from scripts/generate-cvat-operations.mjs) is checked for its own consistency, never against the
 * schema file; FIDELITY.md's table against what the list and the rows give now.
 */
const FIDELITY = readFileSync(new URL('../FIDELITY.md', import.meta.url), 'utf8');
const shape = (method: string, path: string) =>
  `${method} ${path.replace(/\{[^}]+\}/g, '{}').replace(/\/$/, '')}`;

describe("the list of CVAT's operations", () => {
  it("holds CVAT 2.73.0's 153 operations, each operationId and each method and path once", () => {
    expect(CVAT_SCHEMA_VERSION).toBe('2.73.0');
    expect(FIDELITY).toContain(`baseline **v${CVAT_SCHEMA_VERSION}**`);
    expect(CVAT_OPERATIONS).toHaveLength(153);
    expect(new Set(CVAT_OPERATIONS.map((o) => o.operationId)).size).toBe(153);
    // Told apart even with parameter names and a trailing slash left out, as the 501's matcher reads them.
    expect(new Set(CVAT_OPERATIONS.map((o) => shape(o.method, o.path))).size).toBe(153);
  });

  it('has well-formed entries: an /api/ path template, a route method, a snake_case operationId', () => {
    for (const op of CVAT_OPERATIONS) {
      expect(op.path, op.operationId).toMatch(/^\/api(\/([a-z0-9_-]+|\{[a-z_]+\}))+\/?$/);
      expect(['get', 'post', 'put', 'patch', 'delete']).toContain(op.method);
      expect(op.operationId).toMatch(/^[a-z0-9]+_[a-z0-9_]+$/);
    }
    // What the schema's `security` admits without credentials: auth's own views (and no `security` at all).
    expect(CVAT_OPERATIONS.filter((o) => o.anonymous).map((o) => o.operationId)).toEqual([
      'auth_create_login',
      'auth_create_logout',
      'auth_create_password_reset',
      'auth_create_password_reset_confirm',
      'auth_create_register',
      'auth_retrieve_rules',
    ]);
  });

  it('gives each operation the journal name its row has', () => {
    const entries = listedRowEntries();
    const routed = rowOperations(entries);
    expect(routed.size).toBeGreaterThan(70);
    for (const [operationId, entry] of routed)
      expect(entry.operation, operationId).toBe(journalOperation(operationId));
  });
});

describe("FIDELITY.md's table of operations", () => {
  it('is what the operations and the rows give now', () => {
    const start = FIDELITY.indexOf(TABLE_START);
    const end = FIDELITY.indexOf(TABLE_END) + TABLE_END.length;
    expect(start, 'FIDELITY.md has no operations table').toBeGreaterThanOrEqual(0);
    // On a difference: pnpm --filter @sims/annotation-sim exec tsx --conditions=@sims/source scripts/write-operations-table.ts
    expect(FIDELITY.slice(start, end)).toBe(operationsTable(listedRowEntries()));
  });

  it('lists every operation once with its state, and no chosen operation without its row', () => {
    const states = operationStates(listedRowEntries());
    expect(states).toHaveLength(153);
    expect(states.filter((s) => s.state === 'refused').length).toBeGreaterThan(0);
    expect(chosenWithoutRow(listedRowEntries())).toEqual([]);
    for (const s of states) {
      const row = FIDELITY.split('\n').filter((line) => line.startsWith(`| \`${s.operationId}\` |`));
      expect(row, s.operationId).toHaveLength(1);
    }
  });
});
