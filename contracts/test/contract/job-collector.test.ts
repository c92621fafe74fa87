import { MatchersV3, type PactV4 } from '@pact-foundation/pact';
import { beforeAll, describe, expect, it } from 'vitest';
import { createCvatHttp } from '../../consumers/cvat-http/src';
import { createJobCollector } from '../../consumers/job-collector/src';
import { annotationStates } from '../../src/states';
import { CVAT_REQUEST, CVAT_RESPONSE, USER } from './support/cvat';
import { addInteractionGiven, createPact, type GivenState, recorded } from './support/pact';

const { integer, number, regex } = MatchersV3;

// Job 7 of task 12: the job of the webhook-receiver pact's `update:job` delivery.
const TASK = { id: 12, name: 'Crossings' } as const;
const JOB_ID = 7;
const LABELS = ['car', 'person'];
const FIRST_LABEL_ID = 3;
const labelId = (name: string) => FIRST_LABEL_ID + LABELS.indexOf(name);
const BOXES = [
  { label: 'car', frame: 0, box: [10.5, 20.5, 110.5, 90.5] },
  { label: 'car', frame: 1, box: [12.5, 22.5, 112.5, 92.5] },
  { label: 'person', frame: 1, box: [300.5, 40.5, 330.5, 140.5] },
] as const;

const USER_STATE = annotationStates.user.with({ username: USER.name, userId: USER.id, token: USER.token });
const TASK_STATE = annotationStates.labelledTaskWithImages.with({
  taskId: TASK.id,
  taskName: TASK.name,
  username: USER.name,
  labels: LABELS,
  firstLabelId: FIRST_LABEL_ID,
  frames: 2,
  jobId: JOB_ID,
});
const DRAWN = annotationStates.jobRectangles.with({
  jobId: JOB_ID,
  username: USER.name,
  source: 'manual',
  rectangles: BOXES.map((b) => [b.frame, labelId(b.label), ...b.box]),
});

describe('job-collector → annotation-sim', () => {
  let pact: PactV4;
  beforeAll(() => {
    pact = createPact('job-collector', 'annotation-sim');
  });

  it('on a job that became completed, reads its annotations and labels and counts the shapes by label', async () => {
    const given = (...states: GivenState[]) => addInteractionGiven(pact, states);
    given(USER_STATE, TASK_STATE, DRAWN)
      .uponReceiving("a request for job 7's annotations, three rectangles an annotator drew")
      .withRequest('GET', `/api/jobs/${JOB_ID}/annotations`, (b) => b.headers(CVAT_REQUEST))
      .willRespondWith(200, (b) =>
        b.headers(CVAT_RESPONSE).jsonBody({
          version: integer(0),
          tags: [],
          shapes: BOXES.map((b, i) => ({
            type: 'rectangle',
            frame: b.frame,
            label_id: labelId(b.label),
            points: [...b.box],
            source: 'manual',
            id: integer(i + 1),
            occluded: false,
            outside: false,
            z_order: 0,
            rotation: number(0),
            group: integer(0),
            attributes: [],
          })),
          tracks: [],
        }),
      );
    await given(USER_STATE, TASK_STATE)
      .uponReceiving("a request for job 7's labels")
      .withRequest('GET', '/api/labels', (b) => b.headers(CVAT_REQUEST).query({ job_id: String(JOB_ID) }))
      .willRespondWith(200, (b) =>
        b.headers(CVAT_RESPONSE).jsonBody({
          count: LABELS.length,
          next: null,
          previous: null,
          results: LABELS.map((name) => ({
            id: labelId(name),
            name,
            color: regex(/^#[0-9a-f]{6}$/, '#2080c0'),
            type: 'rectangle',
            attributes: [],
            sublabels: [],
            has_parent: false,
            task_id: TASK.id,
          })),
        }),
      )
      .executeTest(
        recorded(pact, async (server) => {
          const collector = createJobCollector({
            http: createCvatHttp({ baseUrl: server.url, token: USER.token }),
          });
          const outcome = await collector.onEvent({
            kind: 'job-updated',
            webhookId: 1,
            job: { id: JOB_ID, taskId: TASK.id, state: 'completed', stage: 'annotation' },
            previousState: 'in progress',
            sender: USER.name,
          });
          expect(outcome).toEqual({
            outcome: 'collected',
            summary: {
              jobId: JOB_ID,
              taskId: TASK.id,
              shapes: { 'car/rectangle': 2, 'person/rectangle': 1 },
              tags: 0,
              tracks: 0,
            },
          });
        }),
      );
  });
});
