#!/usr/bin/env node
// The `cluster-sim` binary's entry. It tunes this process's runtime before anything else is loaded: the
// simulator owns the process (@sims/sim-core/runtime says why and what). Then it loads the CLI.
import { keepHeapThroughIdleSpells } from '@sims/sim-core/runtime';

keepHeapThroughIdleSpells();
await import('./cli');
