/** Projects of the REST API's states. */
import { annotationStates } from '@sims/contracts';
import { int, paramsOf, str } from '@sims/pact-verify';
import { ensureProject, type StateContext, type StateTable, userByName } from '../state-support';

const a = annotationStates;

/** A sandbox project with that id and name, owned by the user of an earlier state. */
async function projectOwned(ctx: StateContext, params: unknown) {
  const p = paramsOf(params, a.project.template, 'projectId', 'projectName', 'username');
  const owner = str(p.username, 'username');
  if (!userByName(ctx, owner)) throw new Error(`no user ${owner}: a user state must come first`);
  await ensureProject(ctx, int(p.projectId, 'projectId'), owner, str(p.projectName, 'projectName'));
}

export const projectStates: StateTable = {
  [a.project.template]: projectOwned,
};
