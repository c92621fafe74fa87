/**
 * What a domain decision returns: its value, or the error the app's one renderer turns into the API's
 * answer. Both apps' rules return these instead of throwing for a client's mistake; each app names its
 * own error union as the default (`Result<T>` in `src/domain/errors.ts`).
 */
export type Result<T, E> = { ok: true; value: T } | { ok: false; error: E };

/**
 * A decision that succeeded.
 *
 * @example const r: Result<number, string> = ok(3); // { ok: true, value: 3 }
 */
export const ok = <T>(value: T): Result<T, never> => ({ ok: true, value });

/**
 * A decision that refused, with the error the renderer answers.
 *
 * @example return fail({ code: 'NOT_FOUND' }); // { ok: false, error: { code: 'NOT_FOUND' } }
 */
export const fail = <E>(error: E): Result<never, E> => ({ ok: false, error });
