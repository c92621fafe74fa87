import type fc from 'fast-check';
import type { FuzzRequest, InProcessApp } from '../http';
import type { InvariantOptions } from '../invariants';

/** A simulator answering in-process: `app.request()` with a `Request`, or a path and init. */
interface SimApp extends InProcessApp {
  request(input: Request | string, init?: RequestInit): Response | Promise<Response>;
}

export interface Instance {
  app: SimApp;
  close(): void | Promise<void>;
}

/** What a campaign needs to fuzz one API of one simulator. */
export interface FuzzSetup {
  /** e.g. `cluster-sim API`, `annotation-sim control plane`. */
  api: string;
  /** A fresh simulator (no socket). */
  create(): Promise<Instance>;
  /** Resets and seeds the namespace the requests use; `variant` picks settings (a batch's choice). */
  prepare(inst: Instance, variant: number): Promise<void>;
  /** Something that moves the world on (a clock advance), done once at a random point of a batch. */
  tick?(inst: Instance): Promise<void>;
  /** Requests to send. */
  requests: fc.Arbitrary<FuzzRequest>;
  invariants: InvariantOptions;
  /** Time limits for a request: long polls are aborted early (their 408 is fine). */
  timeouts(req: FuzzRequest): { timeoutMs: number; abortAfterMs?: number };
  /** Ambiguities met (written to the findings file as notes, not failures). */
  notes: Set<string>;
  /** How many operations the served document lists (for the report). */
  operationCount: number;
  /** Every hostile query on every list route of the served document, once (query-hostile.ts). */
  listQuerySweep?: FuzzRequest[];
}

/** Headers of a request and the `/_ns/<name>` prefix its path gets (or ''). */
export interface HeaderChoice {
  headers: [string, string][];
  tags: string[];
  pathPrefix: string;
}
