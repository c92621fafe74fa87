/**
 * What both generators read of the discovery client `@googleapis/container`: its resource classes and
 * the names the discovery document spells otherwise. generate-methods.mjs reads the built JavaScript
 * (classes indented four spaces), generate-discovery-document.mjs the TypeScript sources (exported,
 * indented two).
 */

/** Names the discovery document spells with a hyphen and the client in camelCase. */
export const DISCOVERY_NAMES = { wellKnown: 'well-known', getOpenidConfiguration: 'getOpenid-configuration' };

/**
 * The client's resource classes: class → its path of resource names (`['projects', 'locations']`).
 * `classHead` is how a class's first line starts (`    class ` or `  export class `).
 */
export function resourcePaths(source, classHead) {
  const indent = classHead.match(/^ */)[0];
  const classRe = new RegExp(`^${classHead}Resource\\$(\\S+) \\{([\\s\\S]*?)^${indent}\\}`, 'gm');
  const paths = new Map([['Projects', ['projects']]]);
  let changed = true;
  while (changed) {
    changed = false;
    for (const [, cls, body] of source.matchAll(classRe)) {
      const own = paths.get(cls);
      if (!own) continue;
      for (const [, prop, child] of body.matchAll(/this\.(\w+) =\s*new Resource\$(\S+)\(/g)) {
        if (!paths.has(child)) {
          paths.set(child, [...own, prop]);
          changed = true;
        }
      }
    }
  }
  return paths;
}
