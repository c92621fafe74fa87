/**
 * What the generators read of Google's discovery clients (`@googleapis/container`, `@googleapis/compute`):
 * their resource classes, the names the discovery document spells otherwise, each method's URL, HTTP
 * method and parameters, and the `Params$…` interfaces. generate-methods.mjs reads the built JavaScript
 * (classes indented four spaces); generate-discovery-document.mjs and generate-compute-discovery.mjs the
 * TypeScript sources (exported, indented two).
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

/** The `Params$…` interfaces: name → fields (`[name, tsType]`), `requestBody`'s message if any. */
export function paramInterfaces(source) {
  const out = new Map();
  const re = /^ {2}export interface (Params\$\S+) extends StandardParameters \{([\s\S]*?)^ {2}\}/gm;
  for (const [, name, body] of source.matchAll(re)) {
    const fields = [];
    let request;
    // Each field with its doc comment: the client's comment starts with "Deprecated." where the document
    // marks the parameter `deprecated` (the legacy projectId/zone/clusterId of a `{+name}` method).
    const fieldRe = /(?:\/\*\*([\s\S]*?)\*\/\s*)?^\s*'?([\w.$-]+)'?\?: ([^;]+);/gm;
    for (const [, doc = '', field, type] of body.matchAll(fieldRe)) {
      if (field === 'requestBody') request = type.replace(/^Schema\$/, '');
      else fields.push([field, type, /^\s*\*\s*Deprecated\./.test(doc)]);
    }
    out.set(name, { fields, request });
  }
  return out;
}

/** Every method of a client source: class, name, its Params interface, response, URL and parameters. */
export function clientMethods(source) {
  const re =
    /^ {2}export class Resource\$(\S+) \{|^ {4}(\w+)\(\n\s+params\?: (Params\$\S+),\n\s+options\?: MethodOptions\n\s+\): Promise<\s*GaxiosResponseWithHTTP2<Schema\$(\w+)>\s*>;|url: \(\s*rootUrl\s*\+\s*'\/([^']+)'|method: '(\w+)',|requiredParams: \[([^\]]*)\]|pathParams: \[([^\]]*)\]/gm;
  const out = [];
  let cls;
  const list = (text) => [...text.matchAll(/'([^']+)'/g)].map((m) => m[1]);
  for (const m of source.matchAll(re)) {
    if (m[1]) cls = m[1];
    else if (m[2]) out.push({ cls, name: m[2], params: m[3], response: m[4] });
    else if (m[5]) out[out.length - 1].url = m[5];
    else if (m[6]) out[out.length - 1].httpMethod = m[6];
    else if (m[7] !== undefined) out[out.length - 1].required = list(m[7]);
    else out[out.length - 1].pathParams = list(m[8]);
  }
  return out;
}

/** A parameter's discovery type from the client's TypeScript type. */
export function paramType(ts) {
  if (ts === 'string') return 's';
  if (ts === 'number') return 'i';
  if (ts === 'boolean') return 'b';
  if (ts === 'string[]') return 's[]';
  throw new Error(`no discovery type for ${ts}`);
}
