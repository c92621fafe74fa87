/** The user a consumer of the REST API authenticates as. */
import { annotationStates } from '@sims/contracts';
import { int, paramsOf, str } from '@sims/pact-verify';
import { nextIdWillBe, type StateContext, type StateTable, seed, userByName } from '../state-support';

const a = annotationStates;

/** A regular user with that id, whose API key is `token` (noted as the session's current user). */
async function userAuthenticates(ctx: StateContext, params: unknown) {
  const p = paramsOf(params, a.user.template, 'username', 'userId', 'token');
  const username = str(p.username, 'username');
  const token = str(p.token, 'token');
  const id = int(p.userId, 'userId');
  if (userByName(ctx, username)) throw new Error(`user ${username} exists already`);
  nextIdWillBe(ctx, 'users', id);
  await seed(ctx, { users: [{ username, privilege: 'user', token }] });
  const u = userByName(ctx, username);
  if (u?.id !== id) throw new Error(`seeding gave user ${username} id ${u?.id}, not ${id}`);
  ctx.currentUser = { id, username };
}

export const userStates: StateTable = {
  [a.user.template]: userAuthenticates,
};
