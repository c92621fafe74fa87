import type { ParamIndexMap, Result, Router } from 'hono/router';
import { RegExpRouter } from 'hono/router/reg-exp-router';
import { SmartRouter } from 'hono/router/smart-router';
import { TrieRouter } from 'hono/router/trie-router';

const NO_PARAMS: ParamIndexMap = {};

interface Literal<T> {
  method: string;
  handler: T;
  order: number;
}

/**
 * Hono's RegExpRouter, with literal paths (no `:param`, no `*`) kept apart in a map. The RegExpRouter
 * cannot hold a literal segment beside a parameter at the same place (CVAT's `/api/users/self` beside
 * `/api/users/:id`), and one such pair sent a whole app to the slower TrieRouter (bench/, decision 0008).
 * A literal path's handlers are merged with the pattern routes' in the order the routes were added,
 * as Hono's own routers give them.
 */
export class LiteralsApartRouter<T> implements Router<T> {
  readonly name = 'LiteralsApartRouter';
  readonly #patterns = new RegExpRouter<T>();
  readonly #literals = new Map<string, Literal<T>[]>();
  readonly #order = new Map<T, number>();
  #added = 0;

  add(method: string, path: string, handler: T): void {
    const order = this.#added++;
    if (!path.includes(':') && !path.includes('*')) {
      const list = this.#literals.get(path);
      if (list) list.push({ method, handler, order });
      else this.#literals.set(path, [{ method, handler, order }]);
      return;
    }
    this.#order.set(handler, order);
    this.#patterns.add(method, path, handler);
  }

  match(method: string, path: string): Result<T> {
    const result = this.#patterns.match(method, path) as [[T, ParamIndexMap][], string[]];
    const literals = this.#literals.get(path)?.filter((r) => r.method === method || r.method === 'ALL');
    if (literals === undefined || literals.length === 0) return result;
    const merged: { handler: T; params: ParamIndexMap; order: number }[] = result[0].map(
      ([handler, params]) => ({ handler, params, order: this.#order.get(handler) ?? -1 }),
    );
    for (const r of literals) merged.push({ handler: r.handler, params: NO_PARAMS, order: r.order });
    merged.sort((a, b) => a.order - b.order);
    return [merged.map((m) => [m.handler, m.params]), result[1]];
  }
}

/** The kernel's router: literals apart from a RegExpRouter, else (a route it cannot take) the TrieRouter. */
export function createRouter<T>(): Router<T> {
  return new SmartRouter<T>({ routers: [new LiteralsApartRouter<T>(), new TrieRouter<T>()] });
}
