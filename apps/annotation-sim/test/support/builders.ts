/** Fixture builder for webhook request bodies: `aWebhook().forProject(1).withEvents('create:task').build()`. */
export function aWebhook() {
  const body: Record<string, unknown> = {
    target_url: 'http://127.0.0.1:9/hook',
    type: 'project',
    events: ['create:task'],
    content_type: 'application/json',
  };
  const builder = {
    forProject(id: number) {
      body.type = 'project';
      body.project_id = id;
      return builder;
    },
    forOrganization() {
      body.type = 'organization';
      delete body.project_id;
      return builder;
    },
    to(url: string) {
      body.target_url = url;
      return builder;
    },
    withEvents(...events: string[]) {
      body.events = events;
      return builder;
    },
    withSecret(secret: string) {
      body.secret = secret;
      return builder;
    },
    with(fields: Record<string, unknown>) {
      Object.assign(body, fields);
      return builder;
    },
    without(...keys: string[]) {
      for (const k of keys) delete body[k];
      return builder;
    },
    build: () => ({ ...body }),
  };
  return builder;
}
