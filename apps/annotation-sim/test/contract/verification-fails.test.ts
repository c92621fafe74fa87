import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { annotationStates, webhookMessageStates } from '@sims/contracts';
import { verifyPacts } from '@sims/pact-verify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { annotationSimProviders } from '../../src/verify/provider';

const APP = fileURLToPath(new URL('../../', import.meta.url));
const TOKEN = '9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b';

/** Wrong on purpose: the webhook is 10, the message says 99; the project is "Street scenes", the pact says otherwise. */
const WRONG_MESSAGE_PACT = {
  consumer: { name: 'wrong-receiver' },
  provider: { name: 'annotation-sim-webhooks' },
  interactions: [
    {
      type: 'Asynchronous/Messages',
      description: 'a create:task delivery with the wrong webhook id',
      providerStates: [
        {
          name: webhookMessageStates.projectWebhook.template,
          params: { webhookId: 10, projectId: 1, events: ['create:task'], secret: 's3cret' },
        },
        {
          name: webhookMessageStates.taskCreated.template,
          params: { username: 'alice', taskId: 42, taskName: 'Street signs', projectId: 1 },
        },
      ],
      contents: {
        content: { event: 'create:task', webhook_id: 99, task: { id: 42, name: 'Street signs' } },
        contentType: 'application/json',
        encoded: false,
      },
      metadata: { 'Content-Type': 'application/json' },
    },
  ],
  metadata: { pactSpecification: { version: '4.0' } },
};

const WRONG_HTTP_PACT = {
  consumer: { name: 'wrong-admin' },
  provider: { name: 'annotation-sim' },
  interactions: [
    {
      type: 'Synchronous/HTTP',
      description: 'a read of project 1 expecting another name',
      providerStates: [
        { name: annotationStates.user.template, params: { username: 'alice', userId: 2, token: TOKEN } },
        {
          name: annotationStates.project.template,
          params: { projectId: 1, projectName: 'Street scenes', username: 'alice' },
        },
      ],
      request: {
        method: 'GET',
        path: '/api/projects/1',
        headers: { Authorization: [`Token ${TOKEN}`], Accept: ['application/vnd.cvat+json'] },
      },
      response: {
        status: 200,
        body: { content: { id: 1, name: 'Country roads' }, contentType: 'application/json', encoded: false },
      },
    },
  ],
  metadata: { pactSpecification: { version: '4.0' } },
};

describe('annotation-sim verification rejects wrong pacts', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'wrong-pacts-'));
    writeFileSync(join(dir, 'wrong-receiver.json'), JSON.stringify(WRONG_MESSAGE_PACT, null, 2));
    writeFileSync(join(dir, 'wrong-admin.json'), JSON.stringify(WRONG_HTTP_PACT, null, 2));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reports a message whose webhook_id the payload factory does not produce, and an HTTP body with the wrong project name', async () => {
    const result = await verifyPacts({ providers: annotationSimProviders, pacts: [dir], log: () => {} });
    expect(result.ok).toBe(false);
    const byProvider = Object.fromEntries(result.results.map((r) => [r.provider, r]));
    expect(byProvider['annotation-sim-webhooks']?.mismatches).toEqual([
      {
        interaction: expect.stringContaining('a create:task delivery with the wrong webhook id'),
        details: [expect.stringMatching(/\$\.webhook_id.*Expected 10 .* to be equal to 99/)],
      },
    ]);
    expect(byProvider['annotation-sim']?.mismatches).toEqual([
      {
        interaction: expect.stringContaining('a read of project 1 expecting another name'),
        details: [
          expect.stringMatching(/\$\.name.*Expected 'Street scenes' .* to be equal to 'Country roads'/),
        ],
      },
    ]);
    expect(result.results.flatMap((r) => r.stateFailures)).toEqual([]);
  });

  it('exits 1 from the verify command and prints the report with both mismatches', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/verify/main.ts', dir], {
      cwd: APP,
      encoding: 'utf8',
      env: { ...process.env, PACT_DO_NOT_TRACK: 'true' },
      timeout: 50_000,
    });
    expect(run.status, run.stderr).toBe(1);
    expect(run.stdout).toContain('pact-verify: annotation-sim: FAILED');
    expect(run.stdout).toContain('pact-verify: annotation-sim-webhooks: FAILED');
    expect(run.stdout).toMatch(/\$\.webhook_id/);
    expect(run.stdout).toMatch(/\$\.name/);
  });
});
