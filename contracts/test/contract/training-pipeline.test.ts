import { fileURLToPath } from 'node:url';
import { MatchersV3, type PactV4 } from '@pact-foundation/pact';
import { beforeAll, describe, expect, it } from 'vitest';
import { createCvatHttp } from '../../consumers/cvat-http/src';
import { createTrainingPipeline } from '../../consumers/training-pipeline/src';
import { annotationStates } from '../../src/states';
import { CVAT_REQUEST, CVAT_RESPONSE, USER } from './support/cvat';
import { addInteractionGiven, createPact, type GivenState, recorded } from './support/pact';

const { number, regex, url } = MatchersV3;

const TASK = { id: 42, name: 'Street signs' } as const;
const LABELS = ['sign', 'pole'];
const FIRST_LABEL_ID = 5;
const JOB_ID = 9;
const FORMAT = 'COCO 1.0';
const labelId = (name: string) => FIRST_LABEL_ID + LABELS.indexOf(name);
// The pre-annotator's boxes: what a model saved, now exported to train the next one.
const BOXES = [
  { label: 'sign', frame: 0, box: [12.5, 30.25, 80.5, 120.75] },
  { label: 'pole', frame: 1, box: [200.5, 10.5, 215.5, 300.5] },
] as const;
// CVAT 2.73's RequestId: an export of a dataset without images is one of its annotations
// (`subresource=annotations`), its format with `.` written `~` and ` ` written `_`, the user's id in it.
const RQ_ID = `action=export&target=task&target_id=${TASK.id}&user_id=${USER.id}&format=COCO_1~0&subresource=annotations`;
const DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;
/**
 * What the export answers for this task (CVAT's COCO writer: `annotations/instances_default.json`, the
 * categories in label order from 1, an image per frame, `bbox` as `[x, y, w, h]`). The pact matches the
 * download by its content type only: the bytes carry dates.
 */
const ARCHIVE = fileURLToPath(new URL('./fixtures/task-42-coco-1.0.zip', import.meta.url));

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
const SAVED = annotationStates.taskRectangles.with({
  taskId: TASK.id,
  username: USER.name,
  source: 'auto',
  rectangles: BOXES.map((b) => [b.frame, labelId(b.label), ...b.box]),
});
const EXPORTED = annotationStates.datasetExportFinished.with({
  taskId: TASK.id,
  format: FORMAT,
  username: USER.name,
});

describe('training-pipeline → annotation-sim', () => {
  let pact: PactV4;
  beforeAll(() => {
    pact = createPact('training-pipeline', 'annotation-sim');
  });

  it("exports task 42's dataset in COCO 1.0, follows the request to finished, downloads the archive and reads its boxes", async () => {
    const given = (...states: GivenState[]) => addInteractionGiven(pact, states);
    given(USER_STATE, TASK_STATE, SAVED)
      .uponReceiving("a request to export task 42's dataset in COCO 1.0 without images")
      .withRequest('POST', `/api/tasks/${TASK.id}/dataset/export`, (b) =>
        b.headers(CVAT_REQUEST).query({ format: FORMAT, save_images: 'false' }),
      )
      .willRespondWith(202, (b) => b.headers(CVAT_RESPONSE).jsonBody({ rq_id: RQ_ID }));
    given(USER_STATE, TASK_STATE, SAVED, EXPORTED)
      .uponReceiving("a request for the status of the finished COCO 1.0 export of task 42's dataset")
      .withRequest('GET', `/api/requests/${encodeURIComponent(RQ_ID)}`, (b) => b.headers(CVAT_REQUEST))
      .willRespondWith(200, (b) =>
        b.headers(CVAT_RESPONSE).jsonBody({
          status: 'finished',
          message: '',
          id: RQ_ID,
          operation: {
            type: 'export:annotations',
            target: 'task',
            project_id: null,
            task_id: TASK.id,
            job_id: null,
            format: FORMAT,
          },
          progress: number(0),
          finished_date: regex(DATE, '2026-08-12T10:00:02.356000Z'),
          owner: { id: USER.id, username: USER.name },
          // Absolute, built from the request's host; the pipeline follows it as given.
          result_url: url([
            'api',
            'tasks',
            String(TASK.id),
            'dataset',
            regex(/download\?rq_id=.+/, `download?rq_id=${encodeURIComponent(RQ_ID)}`),
          ]),
        }),
      );
    await given(USER_STATE, TASK_STATE, SAVED, EXPORTED)
      .uponReceiving("a request to download the finished COCO 1.0 export of task 42's dataset")
      .withRequest('GET', `/api/tasks/${TASK.id}/dataset/download`, (b) =>
        b.headers({ Authorization: CVAT_REQUEST.Authorization }).query({ rq_id: RQ_ID }),
      )
      .willRespondWith(200, (b) => b.binaryFile('application/zip', ARCHIVE))
      .executeTest(
        recorded(pact, async (server) => {
          const pipeline = createTrainingPipeline({
            http: createCvatHttp({ baseUrl: server.url, token: USER.token }),
            sleep: () => Promise.resolve(),
          });
          const report = await pipeline.fetchTrainingSet(TASK.id);
          expect(report).toEqual({
            outcome: 'exported',
            rqId: RQ_ID,
            polls: 1,
            set: {
              images: [
                { file: 'frame_000000.jpg', width: 640, height: 480 },
                { file: 'frame_000001.jpg', width: 640, height: 480 },
              ],
              categories: LABELS,
              // COCO's [x, y, width, height] of each saved [x1, y1, x2, y2].
              boxes: [
                { image: 'frame_000000.jpg', category: 'sign', bbox: [12.5, 30.25, 68, 90.5] },
                { image: 'frame_000001.jpg', category: 'pole', bbox: [200.5, 10.5, 15, 290] },
              ],
            },
          });
        }),
      );
  });
});
