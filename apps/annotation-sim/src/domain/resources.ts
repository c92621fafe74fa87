/**
 * The mutations the seed applies, gathered from their resources' modules: each resource's rules and
 * mutations live in its own module (`projects.ts`, `tasks.ts`, `organizations.ts`, `invitations.ts`,
 * …), the change machinery in `mutation.ts`.
 */
export { createInvitation } from './invitations';
export type { MutationContext } from './mutation';
export { createOrganization } from './organizations';
export { createProject } from './projects';
export { attachTaskData, createTask } from './tasks';
