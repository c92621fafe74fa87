/**
 * Query values as CVAT's Django reads them. `request.query_params.get(name)`, `query_params[name]` and
 * `request.GET.get(name)` (QueryDict, a MultiValueDict) give the LAST of repeated values; URLSearchParams'
 * `get` (and Hono's `c.req.query`) give the first. Where Django reads every value (`getlist`, DRF's
 * `replace_query_param` building `next`/`previous`), read `getAll` instead.
 */

/** The last value of `name` (`?page_size=1&page_size=5` → `'5'`), or undefined when it is absent. */
export function queryValue(params: URLSearchParams, name: string): string | undefined {
  const values = params.getAll(name);
  return values.length === 0 ? undefined : values[values.length - 1];
}

/**
 * Every parameter with its last value, as `QueryDict.dict()` gives them. The record has no prototype, so
 * a parameter named `constructor` or `__proto__` is a parameter like any other.
 */
export function lastQueryValues(params: URLSearchParams): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  for (const [name, value] of params) out[name] = value;
  return out;
}
