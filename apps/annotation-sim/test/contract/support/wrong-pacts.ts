import { annotationStates, webhookMessageStates } from '@sims/contracts';

const TOKEN = '9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b';

/** Wrong on purpose: the webhook is 10, the message says 99; the project is "Street scenes", the pact says otherwise. */
export const WRONG_MESSAGE_PACT = {
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

export const WRONG_HTTP_PACT = {
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
