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

/** Hono's RegExpRouter keys for wildcards: they may stand beside anything. */
const WILDCARDS = new Set(['[^]*', '(?:|/[^]*)']);

/** One node of a pattern layer's shape, as Hono's RegExpRouter trie keys its children. */
interface ShapeNode {
  children: Map<string, ShapeNode>;
}

/**
 * The keys Hono's RegExpRouter trie gives a path's tokens (`hono/router/reg-exp-router` trie.ts and
 * node.ts, hono 4): a parameter is keyed by its pattern (`[^/]+` unless given), `/*` at the end and `*`
 * by their wildcards, anything else one character at a time.
 */
function shapeKeys(path: string): string[] {
  const groups: string[] = [];
  const marked = path.replace(/\{(?:\{[\d,]+\}|[^}])+\}/g, (m) => `@\\${groups.push(m) - 1}`);
  const tokens = marked.match(/(?::[^/]+)|(?:\/\*$)|./gs) ?? [];
  return tokens.map((token, i) => {
    if (token === '*') return i === tokens.length - 1 ? '[^]*' : '[^/]+';
    if (token === '/*') return '(?:|/[^]*)';
    if (!token.startsWith(':')) return token;
    const group = /@\\(\d+)$/.exec(token);
    return group ? (groups[Number(group[1])] as string).slice(1, -1) : '[^/]+';
  });
}

/**
 * Whether `keys` fit in a shape beside what it holds: Hono's RegExpRouter refuses a parameter beside any
 * other child of a node, and a character beside a parameter (wildcards excepted). Only the nodes the
 * path shares with the shape are walked.
 */
function fitsShape(root: ShapeNode | undefined, keys: readonly string[]): boolean {
  let node = root;
  for (const key of keys) {
    if (node === undefined) return true;
    const next = node.children.get(key);
    if (next === undefined) {
      for (const k of node.children.keys()) {
        if ((key.length > 1 || k.length > 1) && !WILDCARDS.has(k) && !WILDCARDS.has(key)) return false;
      }
      return true;
    }
    node = next;
  }
  return true;
}

function addShape(root: ShapeNode, keys: readonly string[]): void {
  let node = root;
  for (const key of keys) {
    let next = node.children.get(key);
    if (next === undefined) {
      next = { children: new Map() };
      node.children.set(key, next);
    }
    node = next;
  }
}

/** A RegExpRouter with the shape of what it holds per method, to tell whether a route fits. */
interface PatternLayer<T> {
  router: RegExpRouter<T>;
  shapes: Map<string, ShapeNode>;
}

/**
 * Hono's RegExpRouter, with literal paths (no `:param`, no `*`) kept apart in a map. The RegExpRouter
 * cannot hold a literal segment beside a parameter at the same place (CVAT's `/api/users/self` beside
 * `/api/users/:id`), and one such pair sent a whole app to the slower TrieRouter (bench/, decision 0008).
 * A pattern route that would not fit beside the others (CVAT's `/api/tasks/:id/data/meta` beside the
 * TUS upload's `/api/tasks/:id/data/:file_id{…}`) goes to another RegExpRouter layer (each layer is
 * one more regular expression a request is matched against; an app has one unless it has such pairs).
 * Handlers are merged in the order the routes were added, as Hono's own routers give them.
 */
export class LiteralsApartRouter<T> implements Router<T> {
  readonly name = 'LiteralsApartRouter';
  readonly #layers: PatternLayer<T>[] = [];
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
    this.#layerFor(method, shapeKeys(path)).router.add(method, path, handler);
  }

  /** The first layer the route fits in (each method's routes with every `ALL` route are one RegExpRouter). */
  #layerFor(method: string, keys: string[]): PatternLayer<T> {
    let layer = this.#layers.find((l) =>
      (method === 'ALL' ? [...l.shapes.keys()] : [method, 'ALL']).every((m) =>
        fitsShape(l.shapes.get(m), keys),
      ),
    );
    if (layer === undefined) {
      layer = { router: new RegExpRouter<T>(), shapes: new Map() };
      this.#layers.push(layer);
    }
    let shape = layer.shapes.get(method);
    if (shape === undefined) {
      shape = { children: new Map() };
      layer.shapes.set(method, shape);
    }
    addShape(shape, keys);
    return layer;
  }

  match(method: string, path: string): Result<T> {
    const first = this.#layers[0];
    let result = (first ? first.router.match(method, path) : [[], []]) as [[T, ParamIndexMap][], string[]];
    for (let i = 1; i < this.#layers.length; i++) {
      const more = (this.#layers[i] as PatternLayer<T>).router.match(method, path) as [
        [T, ParamIndexMap][],
        string[],
      ];
      if (more[0].length > 0) result = mergeLayers(result, more, this.#order);
    }
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

/**
 * Two layers' answers as one: each handler with its parameters by index into one stash (the layers'
 * stashes joined), in the order the routes were added.
 */
function mergeLayers<T>(
  a: [[T, ParamIndexMap][], string[]],
  b: [[T, ParamIndexMap][], string[]],
  order: Map<T, number>,
): [[T, ParamIndexMap][], string[]] {
  const stash = [...(a[1] ?? []), ...(b[1] ?? [])];
  const offset = (a[1] ?? []).length;
  const shifted = b[0].map(([h, params]): [T, ParamIndexMap] => {
    const moved: ParamIndexMap = {};
    for (const [name, index] of Object.entries(params)) moved[name] = (index as number) + offset;
    return [h, moved];
  });
  const all = [...a[0], ...shifted];
  all.sort(([x], [y]) => (order.get(x) ?? -1) - (order.get(y) ?? -1));
  return [all, stash];
}

/** The kernel's router: literals apart from a RegExpRouter, else (a route it cannot take) the TrieRouter. */
export function createRouter<T>(): Router<T> {
  return new SmartRouter<T>({ routers: [new LiteralsApartRouter<T>(), new TrieRouter<T>()] });
}
