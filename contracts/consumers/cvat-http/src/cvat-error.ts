/**
 * CVAT's error bodies, as Django REST framework 3.17 renders them (reference cvat-webhooks-events.md §4.2):
 * `{"detail": "..."}` for auth, permission and not-found; `{"<field>": ["..."], "non_field_errors": ["..."]}`
 * for serializer validation; a bare list `["..."]` for a ValidationError raised outside a serializer; and,
 * on a few endpoints, a bare string.
 */
export type CvatError =
  | {
      readonly kind: 'validation';
      readonly status: number;
      /** Field errors by field name; values that are not string lists (nested errors) are JSON text. */
      readonly fieldErrors: Readonly<Record<string, readonly string[]>>;
      /** `non_field_errors`, a bare list's items, or a bare string. */
      readonly nonFieldErrors: readonly string[];
    }
  | {
      readonly kind: 'unauthenticated' | 'forbidden' | 'not-found';
      readonly status: number;
      readonly detail: string;
    }
  | { readonly kind: 'unexpected'; readonly status: number; readonly body: unknown };

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function messages(value: unknown): string[] {
  if (isStringList(value)) return value;
  if (typeof value === 'string') return [value];
  return [JSON.stringify(value)];
}

/**
 * Classifies a non-success CVAT answer.
 *
 * @example
 * parseCvatError(400, { target_url: ['Enter a valid URL.'] });
 * // { kind: 'validation', status: 400, fieldErrors: { target_url: ['Enter a valid URL.'] }, nonFieldErrors: [] }
 */
export function parseCvatError(status: number, body: unknown): CvatError {
  const detail =
    typeof body === 'object' &&
    body !== null &&
    !Array.isArray(body) &&
    typeof (body as { detail?: unknown }).detail === 'string'
      ? (body as { detail: string }).detail
      : undefined;
  if (status === 401 && detail !== undefined) return { kind: 'unauthenticated', status, detail };
  if (status === 403 && detail !== undefined) return { kind: 'forbidden', status, detail };
  if (status === 404 && detail !== undefined) return { kind: 'not-found', status, detail };
  if (status !== 400) return { kind: 'unexpected', status, body };

  if (isStringList(body) || typeof body === 'string') {
    return { kind: 'validation', status, fieldErrors: {}, nonFieldErrors: messages(body) };
  }
  if (typeof body !== 'object' || body === null) return { kind: 'unexpected', status, body };
  const fieldErrors: Record<string, string[]> = {};
  let nonFieldErrors: string[] = [];
  for (const [field, value] of Object.entries(body)) {
    // `detail` on a 400 is a parse error of the request itself ("JSON parse error - …").
    if (field === 'non_field_errors' || field === 'detail')
      nonFieldErrors = nonFieldErrors.concat(messages(value));
    else fieldErrors[field] = messages(value);
  }
  return { kind: 'validation', status, fieldErrors, nonFieldErrors };
}
