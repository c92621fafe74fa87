/**
 * annotation-sim as a Pact provider, twice: `annotation-sim` (the CVAT REST API, over HTTP) and
 * `annotation-sim-webhooks` (webhook deliveries as messages). Each session is a fresh in-process
 * simulator on the manual clock whose webhook sender is injected (no network: the receiver states
 * decide the answers), with a handler for every provider state of contracts/STATES.md. The handlers are
 * named functions in `states/`, one file a resource family, each exporting its table by state template;
 * they set the world up through `/_sim/seed`, `/_sim/events/exports`, `/_sim/requests` and the API itself
 * (`state-support.ts`), and messages are checked against the engine's deliveries (`messages.ts`).
 * Development-time only: `src/main.ts` never imports this file, so pact stays out of the Docker image.
 */
import { STATUS_CODES } from 'node:http';
import type { ProviderDefinition, ProviderSession } from '@sims/pact-verify';
import { createAnnotationSim, type OutboundRequest, type OutboundResult, startAnnotationSim } from '../index';
import { producedMessage } from './messages';
import {
  type Answers,
  bindStateTables,
  createStateContext,
  resetStateContext,
  type StateTable,
} from './state-support';
import { annotationDataStates } from './states/annotations';
import { eventExportStates } from './states/events';
import { organizationStates } from './states/organizations';
import { projectStates } from './states/projects';
import { requestStates } from './states/requests';
import { taskStates } from './states/tasks';
import { userStates } from './states/users';
import { webhookStates } from './states/webhooks';

/** Every family's states; both providers get them all (each pact names only its own). */
const STATE_TABLES: readonly StateTable[] = [
  userStates,
  projectStates,
  webhookStates,
  eventExportStates,
  taskStates,
  requestStates,
  organizationStates,
  annotationDataStates,
];

/** A webhook sender that answers as the receiver states said, and records every request in `sent`. */
function injectedSender(answers: Answers, sent: OutboundRequest[]) {
  return async (req: OutboundRequest): Promise<OutboundResult> => {
    sent.push(req);
    const status = answers.get(req.url);
    if (status === undefined) {
      // No state says who listens there, and verification never leaves the process.
      const host = new URL(req.url).hostname;
      return {
        kind: 'connection-error',
        message: `HTTPSConnectionPool(host='${host}', port=443): Max retries exceeded (no receiver in this verification)`,
      };
    }
    return { kind: 'response', status, body: STATUS_CODES[status] ?? '' };
  };
}

/** A session over a fresh simulator: on a socket for HTTP pacts, in-process with messages otherwise. */
async function startSession(socket: boolean): Promise<ProviderSession> {
  const answers: Answers = new Map();
  const sent: OutboundRequest[] = [];
  const options = { clock: { mode: 'manual' as const }, sender: injectedSender(answers, sent) };
  const session = socket
    ? await (async () => {
        const sim = await startAnnotationSim({ ...options, port: 0 });
        return { sim, baseUrl: sim.url, close: () => sim.close() };
      })()
    : (() => {
        const sim = createAnnotationSim(options);
        return { sim, baseUrl: undefined, close: async () => sim.close() };
      })();
  const ctx = createStateContext(session.sim, answers, sent);
  return {
    ...(session.baseUrl ? { baseUrl: session.baseUrl } : {}),
    async reset() {
      resetStateContext(ctx);
      const res = await session.sim.app.request('/_sim/reset', { method: 'POST' });
      if (!res.ok) throw new Error(`POST /_sim/reset answered ${res.status}`);
    },
    states: bindStateTables(ctx, STATE_TABLES),
    ...(socket ? {} : { message: async () => producedMessage(ctx) }),
    close: session.close,
  };
}

/** The providers annotation-sim verifies: the CVAT REST API, and its webhook deliveries as messages. */
export const annotationSimProviders: ProviderDefinition[] = [
  { name: 'annotation-sim', start: () => startSession(true) },
  { name: 'annotation-sim-webhooks', start: () => startSession(false) },
];
