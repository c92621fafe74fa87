import type { BudgetKind } from '@sims/sim-core';

const MiB = 1024 * 1024;

/**
 * What annotation-sim's namespaces fill besides the request journal, each kind with its share of the
 * process's memory (docs/decisions/0019; `--events-max-bytes`, `--deliveries-max-bytes`,
 * `--requests-max-bytes`). With the journal's 64 MiB the defaults hold 1,000 busy namespaces within
 * about 300 MB of heap (BENCHMARKS.md, figure 9).
 */
export const ANNOTATION_BUDGET_KINDS: readonly BudgetKind[] = [
  { name: 'events', defaultMaxBytes: 64 * MiB, holds: 'event logs (rows of the events API)' },
  {
    name: 'deliveries',
    defaultMaxBytes: 32 * MiB,
    holds: 'webhook delivery rows and outbound journals',
  },
  {
    name: 'requests',
    defaultMaxBytes: 32 * MiB,
    holds: 'finished background requests (with export files kept for download) and events exports',
  },
];
