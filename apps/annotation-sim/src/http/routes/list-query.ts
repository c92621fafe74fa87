import type { Result } from '../../domain/errors';
import type { ApiRequest } from '../api';
import { type FilterTerms, orderingOf } from '../json-logic-columns';
import { jsonLogicFilter } from '../json-logic-filter';
import { searchFilter, sortBy } from '../pagination';
import { applySimpleFilters, type SimpleFilters } from './simple-filters';

/** What a model list view reads from its query, besides paging (CVAT's filter backends' attributes). */
export interface ListQuery<T> {
  /** `filter_fields` through `lookup_fields`: the JSON Logic terms, and the simple filters' columns. */
  terms: FilterTerms<T>;
  /** `simple_filters` (filter-terms.ts' SIMPLE_FILTERS). */
  simpleFilters: SimpleFilters;
  /** `search_fields`, each read as the text the database searches. */
  search: ((item: T) => unknown)[];
  /** `ordering_fields` when they are not the filter terms (dates in time order either way). */
  ordering?: Record<string, (item: T) => unknown>;
  /** `ordering`: the default sort key. */
  defaultOrder: string;
}

/**
 * A list view's items narrowed and sorted by its query, by CVAT's filter backends in their order:
 * SimpleFilter (a 400 naming every refused value), SearchFilter, OrderingFilter, JsonLogicFilter. The
 * caller checks the query's bounds first (checkListQuery, right after authentication).
 */
export function queryList<T>(r: ApiRequest, items: T[], list: ListQuery<T>): Result<T[]> {
  const simple = applySimpleFilters(items, (name) => r.query(name), list.simpleFilters, list.terms, r.state);
  if (!simple.ok) return simple;
  const searched = searchFilter(simple.value, r.query('search'), list.search);
  if (!searched.ok) return searched;
  const sorted = sortBy(
    searched.value,
    r.query('sort'),
    list.ordering ?? orderingOf(list.terms),
    list.defaultOrder,
  );
  if (!sorted.ok) return sorted;
  return jsonLogicFilter(sorted.value, r.query('filter'), list.terms);
}
