import { MatchersV3, type PactV4 } from '@pact-foundation/pact';
import { beforeAll, describe, expect, it } from 'vitest';
import { createCvatHttp } from '../../consumers/cvat-http/src';
import { createTaskCreator } from '../../consumers/task-creator/src';
import { annotationStates } from '../../src/states';
import { CVAT_REQUEST, CVAT_RESPONSE, PROJECT, USER } from './support/cvat';
import { createPact, recorded } from './support/pact';

const { number, regex } = MatchersV3;

const TASK = { id: 42, name: 'Street signs' } as const;
const DATA = { imageQuality: 70, serverFiles: ['street/frame_000.jpg', 'street/frame_001.jpg'] };
// A task creation request is named after its task alone: no uuid, no user (FIDELITY, reference §1.4).
const RQ_ID = `action=create&target=task&target_id=${TASK.id}`;
// DRF's ISO 8601 in UTC: microseconds when there are any, `Z` for +00:00.
const DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;
const date = (example: string) => regex(DATE, example);

const USER_STATE = annotationStates.user.with({ username: USER.name, userId: USER.id, token: USER.token });
const PROJECT_STATE = annotationStates.project.with({
  projectId: PROJECT.id,
  projectName: PROJECT.name,
  username: USER.name,
});
const TASK_STATE = annotationStates.taskWithoutData.with({
  taskId: TASK.id,
  taskName: TASK.name,
  projectId: PROJECT.id,
});

function creatorFor(serverUrl: string) {
  return createTaskCreator({
    http: createCvatHttp({ baseUrl: serverUrl, token: USER.token }),
    sleep: () => Promise.resolve(),
  });
}

describe('task-creator → annotation-sim', () => {
  let pact: PactV4;
  beforeAll(() => {
    pact = createPact('task-creator', 'annotation-sim');
  });

  it("sends a task's data and follows its creation request until it is finished", async () => {
    pact
      .addInteraction()
      .given(...USER_STATE)
      .given(...PROJECT_STATE)
      .given(...TASK_STATE)
      .uponReceiving('a request to create the data of task 42 from files on the share')
      .withRequest('POST', `/api/tasks/${TASK.id}/data/`, (b) =>
        b.headers(CVAT_REQUEST).jsonBody({ image_quality: 70, server_files: DATA.serverFiles }),
      )
      // `RqIdSerializer`; the id is fixed by the task, so it is pinned exactly.
      .willRespondWith(202, (b) => b.headers(CVAT_RESPONSE).jsonBody({ rq_id: RQ_ID }));
    await pact
      .addInteraction()
      .given(...USER_STATE)
      .given(...PROJECT_STATE)
      .given(...TASK_STATE)
      .given(...annotationStates.taskCreationFinished.with({ rqId: RQ_ID, username: USER.name }))
      .uponReceiving('a request for the status of the finished creation of task 42')
      .withRequest('GET', `/api/requests/${encodeURIComponent(RQ_ID)}`, (b) => b.headers(CVAT_REQUEST))
      .willRespondWith(200, (b) =>
        // `RequestSerializer` (reference §1.5): a sandbox task of project 1, so `org_id` is null; task
        // creation gives no file and no result id.
        b.headers(CVAT_RESPONSE).jsonBody({
          status: 'finished',
          message: '',
          id: RQ_ID,
          operation: {
            type: 'create:task',
            target: 'task',
            project_id: PROJECT.id,
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
          // The end plus RQ's default result_ttl (500 s).
          expiry_date: date('2026-08-12T10:08:22.356000Z'),
          owner: { id: USER.id, username: USER.name },
          result_url: null,
          result_id: null,
        }),
      )
      .executeTest(
        recorded(pact, async (server) => {
          const report = await creatorFor(server.url).createTaskData(TASK.id, DATA);
          expect(report).toEqual({
            outcome: 'created',
            rqId: RQ_ID,
            polls: 1,
            request: {
              id: RQ_ID,
              status: 'finished',
              message: '',
              type: 'create:task',
              taskId: TASK.id,
              projectId: PROJECT.id,
              finishedDate: '2026-08-12T10:00:02.356000Z',
              resultUrl: null,
            },
          });
        }),
      );
  });
});
