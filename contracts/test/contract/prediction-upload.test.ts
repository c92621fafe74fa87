import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MatchersV3, type PactV4 } from '@pact-foundation/pact';
import { beforeAll, describe, expect, it } from 'vitest';
import { createCvatHttp } from '../../consumers/cvat-http/src';
import { createPredictionUploader } from '../../consumers/prediction-upload/src';
import { COCO_INSTANCES, readZipEntry } from '../../consumers/training-pipeline/src';
import { annotationStates } from '../../src/states';
import { CVAT_REQUEST, CVAT_RESPONSE, USER } from './support/cvat';
import { addInteractionGiven, createPact, type GivenState, recorded } from './support/pact';

const { integer, number, regex } = MatchersV3;

const TASK = { id: 42, name: 'Street signs' } as const;
const LABELS = ['sign', 'pole'];
const FIRST_LABEL_ID = 5;
const JOB_ID = 9;
const FORMAT = 'COCO 1.0';
const labelId = (name: string) => FIRST_LABEL_ID + LABELS.indexOf(name);
/**
 * The model's predictions as a COCO 1.0 archive, laid out as CVAT exports one
 * (`annotations/instances_default.json`: the categories named as the task's labels, the images by the
 * task's frame names, `bbox` as `[x, y, w, h]`), sent as the multipart field `annotation_file`. The
 * pact matches the part by its content type (`application/zip`); pact's matching of a JSON part by
 * content type fails on nested objects, so the file goes as the archive CVAT's own export gives.
 */
const PREDICTIONS = fileURLToPath(new URL('./fixtures/predictions-coco-1.0.zip', import.meta.url));
const ARCHIVE = readFileSync(PREDICTIONS);
const INSTANCES = Buffer.from(readZipEntry(ARCHIVE, COCO_INSTANCES) ?? []).toString('utf8');
// What the import leaves: each box a rectangle `[x1, y1, x2, y2]` on its image's frame, of the label
// its category names.
const IMPORTED = [
  { frame: 0, label: 'sign', points: [13, 31.5, 80.5, 120.75] },
  { frame: 1, label: 'pole', points: [201.25, 11.5, 215.75, 300.25] },
];
// CVAT 2.73's RequestId of an annotation import: no user, no format (one import of a target at a time).
const RQ_ID = `action=import&target=task&target_id=${TASK.id}&subresource=annotations`;
const DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;

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
const IMPORTED_STATE = annotationStates.annotationsImported.with({
  taskId: TASK.id,
  format: FORMAT,
  username: USER.name,
  instances: INSTANCES,
});

describe('prediction-upload → annotation-sim', () => {
  let pact: PactV4;
  beforeAll(() => {
    pact = createPact('prediction-upload', 'annotation-sim');
  });

  it("uploads a model's COCO 1.0 predictions as task 42's annotations, follows the import to finished and reads them back", async () => {
    const given = (...states: GivenState[]) => addInteractionGiven(pact, states);
    given(USER_STATE, TASK_STATE)
      .uponReceiving("a request to import a COCO 1.0 archive of predictions as task 42's annotations")
      .withRequest('POST', `/api/tasks/${TASK.id}/annotations`, (b) =>
        b
          .headers(CVAT_REQUEST)
          .query({ format: FORMAT })
          .multipartBody('application/zip', PREDICTIONS, 'annotation_file'),
      )
      .willRespondWith(202, (b) => b.headers(CVAT_RESPONSE).jsonBody({ rq_id: RQ_ID }));
    given(USER_STATE, TASK_STATE, IMPORTED_STATE)
      .uponReceiving("a request for the status of the finished COCO 1.0 import into task 42's annotations")
      .withRequest('GET', `/api/requests/${encodeURIComponent(RQ_ID)}`, (b) => b.headers(CVAT_REQUEST))
      .willRespondWith(200, (b) =>
        b.headers(CVAT_RESPONSE).jsonBody({
          status: 'finished',
          message: '',
          id: RQ_ID,
          operation: { type: 'import:annotations', target: 'task', project_id: null, task_id: TASK.id },
          progress: number(0),
          finished_date: regex(DATE, '2026-08-12T10:00:02.356000Z'),
          owner: { id: USER.id, username: USER.name },
          result_url: null,
        }),
      );
    await given(USER_STATE, TASK_STATE, IMPORTED_STATE)
      .uponReceiving("a request for task 42's annotations, imported from the COCO 1.0 predictions")
      .withRequest('GET', `/api/tasks/${TASK.id}/annotations`, (b) => b.headers(CVAT_REQUEST))
      .willRespondWith(200, (b) =>
        b.headers(CVAT_RESPONSE).jsonBody({
          version: integer(0),
          tags: [],
          shapes: IMPORTED.map((s, i) => ({
            type: 'rectangle',
            id: integer(i + 1),
            frame: s.frame,
            label_id: labelId(s.label),
            points: s.points,
            // An imported shape's source (CVAT's SourceType.FILE).
            source: 'file',
          })),
          tracks: [],
        }),
      )
      .executeTest(
        recorded(pact, async (server) => {
          const uploader = createPredictionUploader({
            http: createCvatHttp({ baseUrl: server.url, token: USER.token }),
            sleep: () => Promise.resolve(),
          });
          const report = await uploader.uploadPredictions(TASK.id, {
            name: 'predictions-coco-1.0.zip',
            content: new Uint8Array(ARCHIVE),
            type: 'application/zip',
          });
          expect(report).toEqual({
            outcome: 'imported',
            rqId: RQ_ID,
            polls: 1,
            readBack: {
              tags: 0,
              shapes: IMPORTED.map((s, i) => ({
                id: i + 1,
                frame: s.frame,
                labelId: labelId(s.label),
                type: 'rectangle',
                points: s.points,
                source: 'file',
              })),
              tracks: 0,
            },
          });
        }),
      );
  });
});
