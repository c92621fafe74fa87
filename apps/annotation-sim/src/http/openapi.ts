import {
  CommentRead,
  DetailError,
  InvitationRead,
  IssueRead,
  JobRead,
  Label,
  MembershipRead,
  OrganizationRead,
  ProjectRead,
  TaskRead,
  Token,
  User,
  WebhookDeliveryRead,
  WebhookEvents,
  WebhookRead,
  WebhookWriteRequest,
} from '@sims/annotation-schema';
import type { RouteEntry } from '@sims/sim-core';
import * as z from 'zod';
import { SIMULATOR_VERSION } from '../definition';
import { schemaOperationId } from './cvat-operations';
import { simpleFiltersOf } from './routes/filter-terms';
import { filterSchema } from './routes/simple-filters';

/** CVAT operationIds that do not follow `<resource>_<list|create|retrieve|update|partial_update|destroy>`. */
const SPECIAL: Record<string, string> = {
  'get /api/webhooks/events': 'webhooks_retrieve_events',
  'post /api/webhooks/{id}/ping': 'webhooks_create_ping',
  'post /webhooks/{id}/ping': 'webhooks_create_ping',
  'get /api/webhooks/{id}/deliveries': 'webhooks_list_deliveries',
  'get /api/webhooks/{id}/deliveries/{delivery_id}': 'webhooks_retrieve_deliveries',
  'post /api/webhooks/{id}/deliveries/{delivery_id}/redelivery': 'webhooks_create_deliveries_redelivery',
  'post /api/auth/login': 'auth_create_login',
  'post /api/auth/logout': 'auth_create_logout',
  'post /api/auth/signing': 'auth_create_signing',
  'get /api/users/self': 'users_retrieve_self',
  'post /api/tasks/{id}/data/': 'tasks_create_data',
  'post /api/projects/{id}/dataset/export': 'projects_create_dataset_export',
  'post /api/tasks/{id}/dataset/export': 'tasks_create_dataset_export',
  'post /api/jobs/{id}/dataset/export': 'jobs_create_dataset_export',
  'post /api/projects/{id}/backup/export': 'projects_create_backup_export',
  'post /api/tasks/{id}/backup/export': 'tasks_create_backup_export',
  'post /api/projects/backup/': 'projects_create_backup',
  'post /api/projects/backup': 'projects_create_backup',
  'post /api/tasks/backup/': 'tasks_create_backup',
  'post /api/tasks/backup': 'tasks_create_backup',
  'post /api/tasks/{id}/annotations': 'tasks_create_annotations',
  'post /api/tasks/{id}/annotations/': 'tasks_create_annotations',
  'post /api/jobs/{id}/annotations': 'jobs_create_annotations',
  'post /api/jobs/{id}/annotations/': 'jobs_create_annotations',
  'post /api/invitations/{key}/accept': 'invitations_accept',
  'post /api/invitations/{key}/decline': 'invitations_decline',
  'get /api/auth/access_tokens/self': 'auth_retrieve_access_tokens_self',
};

const READ: Record<string, string> = {
  webhooks: 'WebhookRead',
  projects: 'ProjectRead',
  tasks: 'TaskRead',
  jobs: 'JobRead',
  labels: 'Label',
  issues: 'IssueRead',
  comments: 'CommentRead',
  organizations: 'OrganizationRead',
  memberships: 'MembershipRead',
  invitations: 'InvitationRead',
  users: 'User',
};

const PAGE = ['page', 'page_size'];
const ORG = ['org', 'org_id'];
const MODEL_LIST = ['search', 'sort', 'filter'];
/**
 * The query parameters each list view reads besides its simple filters, by CVAT's names: paging, the
 * organization context, `search`, `sort` and `filter` (and the requests list's and the events API's own
 * filters). A model view's simple filters come from the table its handler filters with
 * (filter-terms.ts' SIMPLE_FILTERS), so what is declared is what is read.
 */
const LIST_QUERY: Record<string, readonly string[]> = {
  '/api/users': [...PAGE, ...ORG, ...MODEL_LIST],
  '/api/auth/access_tokens': PAGE,
  '/api/organizations': [...PAGE, ...MODEL_LIST],
  '/api/memberships': [...PAGE, ...ORG, ...MODEL_LIST],
  '/api/invitations': [...PAGE, ...ORG, ...MODEL_LIST],
  '/api/projects': [...PAGE, ...ORG, ...MODEL_LIST],
  '/api/tasks': [...PAGE, ...ORG, ...MODEL_LIST],
  '/api/jobs': [...PAGE, ...ORG, ...MODEL_LIST],
  '/api/labels': [...PAGE, ...ORG, ...MODEL_LIST, 'job_id', 'project_id', 'task_id'],
  '/api/issues': [...PAGE, ...ORG, ...MODEL_LIST],
  '/api/comments': [...PAGE, ...ORG, ...MODEL_LIST],
  '/api/webhooks': [...PAGE, ...ORG, ...MODEL_LIST],
  '/api/webhooks/{id}/deliveries': PAGE,
  '/api/requests': [
    ...PAGE,
    ...ORG,
    'sort',
    'filter',
    'action',
    'format',
    'job_id',
    'project_id',
    'status',
    'subresource',
    'target',
    'task_id',
  ],
  '/api/events': [
    'action',
    'filename',
    'from',
    'job_id',
    'org_id',
    'project_id',
    'query_id',
    'task_id',
    'to',
    'user_id',
  ],
};

/** A query parameter as CVAT's schema types it: paging and ids integers, the rest text. */
function queryParameter(name: string) {
  const integer = name === 'page' || name === 'page_size' || (name.endsWith('_id') && name !== 'query_id');
  return { name, in: 'query', required: false, schema: { type: integer ? 'integer' : 'string' } };
}

/** The query parameters of a list view: its own, then its simple filters as CVAT's schema types them. */
function listParameters(path: string) {
  const own = (LIST_QUERY[path] ?? []).map(queryParameter);
  const simple = simpleFiltersOf(path).map(([name, filter]) => ({
    name,
    in: 'query',
    required: false,
    description: `A simple equality filter for the ${name} field`,
    schema: filterSchema(filter),
  }));
  return [...own, ...simple];
}

/** CVAT's operationId of a (method, path): its OpenAPI schema's names, not the journal's operation name. */
export function cvatOperationId(method: string, path: string): string {
  const special = SPECIAL[`${method} ${path}`] ?? schemaOperationId(method, path);
  if (special) return special;
  const parts = path.split('/').filter(Boolean).slice(1);
  const family = parts.filter((p) => !p.startsWith('{')).join('_');
  const detail = path.endsWith('}');
  const action =
    {
      get: detail ? 'retrieve' : 'list',
      post: 'create',
      put: 'update',
      patch: 'partial_update',
      delete: 'destroy',
    }[method] ?? method;
  return `${family}_${action}`;
}

/**
 * The emulated API's OpenAPI document at `/openapi.json`: every route row's path (`routeEntries` of
 * the rows, in their order) with CVAT's operationId, and the wire shapes from `@sims/annotation-schema`
 * as components.
 */
export function buildOpenApi(routes: readonly RouteEntry[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const { path, method } of routes) {
    const family = path.split('/')[2] ?? '';
    const read = READ[family];
    const detail = path.endsWith('}');
    const schemaRef = read ? { $ref: `#/components/schemas/${read}` } : undefined;
    const ok =
      method === 'delete' ? '204' : method === 'post' && !SPECIAL[`${method} ${path}`] ? '201' : '200';
    const content =
      schemaRef && ok !== '204' && !SPECIAL[`${method} ${path}`]
        ? {
            'application/vnd.cvat+json': {
              schema:
                method === 'get' && !detail
                  ? {
                      type: 'object',
                      properties: {
                        count: { type: 'integer' },
                        next: { type: 'string', nullable: true },
                        previous: { type: 'string', nullable: true },
                        results: { type: 'array', items: schemaRef },
                      },
                    }
                  : schemaRef,
            },
          }
        : undefined;
    const params = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => ({
      name: m[1],
      in: 'path',
      required: true,
      schema: { type: 'string' },
    }));
    const query = method === 'get' ? listParameters(path) : [];
    paths[path] ??= {};
    (paths[path] as Record<string, unknown>)[method] = {
      operationId: cvatOperationId(method, path),
      parameters: [...params, ...query],
      responses: {
        [ok]: { description: 'OK', ...(content ? { content } : {}) },
        '401': {
          description: 'Authentication credentials were not provided.',
          content: { 'application/vnd.cvat+json': { schema: { $ref: '#/components/schemas/DetailError' } } },
        },
      },
    };
  }
  const schemas: Record<string, unknown> = {};
  const components = {
    WebhookRead,
    WebhookWriteRequest,
    WebhookDeliveryRead,
    WebhookEvents,
    ProjectRead,
    TaskRead,
    JobRead,
    Label,
    IssueRead,
    CommentRead,
    OrganizationRead,
    MembershipRead,
    InvitationRead,
    User,
    Token,
    DetailError,
  };
  for (const [name, schema] of Object.entries(components))
    schemas[name] = z.toJSONSchema(schema as z.ZodType, { target: 'openapi-3.0', unrepresentable: 'any' });
  return {
    openapi: '3.0.3',
    info: {
      title: 'annotation-sim: CVAT v2.73.0 (simulated)',
      version: SIMULATOR_VERSION,
      description:
        'The emulated CVAT surface. Auth: Token, Bearer (personal access token), session + CSRF, Basic. The control plane is documented at /_sim/openapi.json.',
    },
    paths,
    components: {
      schemas,
      securitySchemes: {
        tokenAuth: { type: 'apiKey', in: 'header', name: 'Authorization', 'x-token-prefix': 'Token' },
        accessTokenAuth: { type: 'http', scheme: 'bearer' },
        sessionAuth: { type: 'apiKey', in: 'cookie', name: 'sessionid' },
        csrfAuth: { type: 'apiKey', in: 'cookie', name: 'csrftoken' },
        csrfHeaderAuth: { type: 'apiKey', in: 'header', name: 'X-CSRFToken' },
        basicAuth: { type: 'http', scheme: 'basic' },
      },
    },
  };
}
