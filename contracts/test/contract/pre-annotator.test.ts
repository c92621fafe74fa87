import { MatchersV3, type PactV4 } from '@pact-foundation/pact';
import { beforeAll, describe, expect, it } from 'vitest';
import { createCvatHttp } from '../../consumers/cvat-http/src';
import { createPreAnnotator } from '../../consumers/pre-annotator/src';
import { annotationStates } from '../../src/states';
import { CVAT_REQUEST, CVAT_RESPONSE, USER } from './support/cvat';
import { addInteractionGiven, createPact, type GivenState, recorded } from './support/pact';

const { integer, number, regex, string } = MatchersV3;

const TASK = { id: 42, name: 'Street signs' } as const;
const LABELS = ['sign', 'pole'];
const FIRST_LABEL_ID = 5;
const JOB_ID = 9;
const DATA = { imageQuality: 70, serverFiles: ['signs/0.jpg', 'signs/1.jpg'] };
const RQ_ID = `action=create&target=task&target_id=${TASK.id}`;
const DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;
const date = (example: string) => regex(DATE, example);
// Coordinates with fractions: CVAT keeps points as floats and Python writes `12.0` for a whole one,
// which Pact would not equate with `12`.
const BOXES = [
  { label: 'sign', frame: 0, box: [12.5, 30.25, 80.5, 120.75] },
  { label: 'pole', frame: 1, box: [200.5, 10.5, 215.5, 300.5] },
] as const;
const labelId = (name: string) => FIRST_LABEL_ID + LABELS.indexOf(name);
const SENT_SHAPES = BOXES.map((b) => ({
  type: 'rectangle',
  frame: b.frame,
  label_id: labelId(b.label),
  points: [...b.box],
  source: 'auto',
}));
/** A saved rectangle as CVAT answers it: the sent fields, its new id, and the defaults it filled in. */
const savedShape = (s: (typeof SENT_SHAPES)[number], id: number) => ({
  ...s,
  id: integer(id),
  occluded: false,
  outside: false,
  z_order: 0,
  rotation: number(0),
  group: integer(0),
  attributes: [],
});
const SAVED = {
  version: integer(0),
  tags: [],
  shapes: SENT_SHAPES.map((s, i) => savedShape(s, i + 1)),
  tracks: [],
};

const USER_STATE = annotationStates.user.with({ username: USER.name, userId: USER.id, token: USER.token });
const NO_DATA = annotationStates.labelledTaskWithoutData.with({
  taskId: TASK.id,
  taskName: TASK.name,
  username: USER.name,
  labels: LABELS,
});
const WITH_IMAGES = annotationStates.labelledTaskWithImages.with({
  taskId: TASK.id,
  taskName: TASK.name,
  username: USER.name,
  labels: LABELS,
  firstLabelId: FIRST_LABEL_ID,
  frames: 2,
  jobId: JOB_ID,
});
const RECTANGLES = annotationStates.taskRectangles.with({
  taskId: TASK.id,
  username: USER.name,
  source: 'auto',
  rectangles: BOXES.map((b) => [b.frame, labelId(b.label), ...b.box]),
});

describe('pre-annotator → annotation-sim', () => {
  let pact: PactV4;
  beforeAll(() => {
    pact = createPact('pre-annotator', 'annotation-sim');
  });

  it("makes a task with the model's labels, sends its images, uploads the model's boxes and reads them back", async () => {
    const given = (...states: GivenState[]) => addInteractionGiven(pact, states);
    given(USER_STATE)
      .uponReceiving('a request to create a task with two rectangle labels in no project')
      .withRequest('POST', '/api/tasks', (b) =>
        b.headers(CVAT_REQUEST).jsonBody({
          name: TASK.name,
          labels: LABELS.map((name) => ({ name, type: 'rectangle' })),
        }),
      )
      .willRespondWith(201, (b) =>
        b.headers(CVAT_RESPONSE).jsonBody({
          id: integer(TASK.id),
          name: TASK.name,
          project_id: null,
          status: 'annotation',
          labels: { url: string(`http://localhost/api/labels?task_id=${TASK.id}`) },
        }),
      );
    given(USER_STATE, NO_DATA)
      .uponReceiving('a request to create the data of labelled task 42 from files on the share')
      .withRequest('POST', `/api/tasks/${TASK.id}/data/`, (b) =>
        b.headers(CVAT_REQUEST).jsonBody({ image_quality: 70, server_files: DATA.serverFiles }),
      )
      .willRespondWith(202, (b) => b.headers(CVAT_RESPONSE).jsonBody({ rq_id: RQ_ID }));
    given(
      USER_STATE,
      NO_DATA,
      annotationStates.taskCreationFinished.with({ rqId: RQ_ID, username: USER.name }),
    )
      .uponReceiving('a request for the status of the finished creation of labelled task 42')
      .withRequest('GET', `/api/requests/${encodeURIComponent(RQ_ID)}`, (b) => b.headers(CVAT_REQUEST))
      .willRespondWith(200, (b) =>
        b.headers(CVAT_RESPONSE).jsonBody({
          status: 'finished',
          message: '',
          id: RQ_ID,
          operation: {
            type: 'create:task',
            target: 'task',
            project_id: null,
            task_id: TASK.id,
            job_id: null,
            org_id: null,
            format: null,
            lightweight: null,
          },
          progress: number(0),
          created_date: date('2026-08-12T10:00:00.104000Z'),
          started_date: date('2026-08-12T10:00:00.104000Z'),
          finished_date: date('2026-08-12T10:00:02.356000Z'),
          expiry_date: date('2026-08-12T10:08:22.356000Z'),
          owner: { id: USER.id, username: USER.name },
          result_url: null,
          result_id: null,
        }),
      );
    given(USER_STATE, WITH_IMAGES)
      .uponReceiving("a request for task 42's labels")
      .withRequest('GET', '/api/labels', (b) => b.headers(CVAT_REQUEST).query({ task_id: String(TASK.id) }))
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
      );
    given(USER_STATE, WITH_IMAGES)
      .uponReceiving("a request to replace task 42's annotations with the model's two rectangles")
      .withRequest('PUT', `/api/tasks/${TASK.id}/annotations`, (b) =>
        b.headers(CVAT_REQUEST).jsonBody({ version: 0, tags: [], shapes: SENT_SHAPES, tracks: [] }),
      )
      .willRespondWith(200, (b) => b.headers(CVAT_RESPONSE).jsonBody(SAVED));
    await given(USER_STATE, WITH_IMAGES, RECTANGLES)
      .uponReceiving("a request for task 42's annotations, two rectangles of the model")
      .withRequest('GET', `/api/tasks/${TASK.id}/annotations`, (b) => b.headers(CVAT_REQUEST))
      .willRespondWith(200, (b) => b.headers(CVAT_RESPONSE).jsonBody(SAVED))
      .executeTest(
        recorded(pact, async (server) => {
          const annotator = createPreAnnotator({
            http: createCvatHttp({ baseUrl: server.url, token: USER.token }),
            sleep: () => Promise.resolve(),
          });
          const report = await annotator.preAnnotate(
            TASK.name,
            LABELS,
            DATA,
            BOXES.map((b) => ({ ...b, box: [...b.box] as [number, number, number, number] })),
          );
          const shapes = BOXES.map((b, i) => ({
            id: i + 1,
            frame: b.frame,
            labelId: labelId(b.label),
            type: 'rectangle',
            points: [...b.box],
            source: 'auto',
          }));
          expect(report).toEqual({
            outcome: 'uploaded',
            taskId: TASK.id,
            saved: { tags: 0, shapes, tracks: 0 },
            readBack: { tags: 0, shapes, tracks: 0 },
          });
        }),
      );
  });
});
