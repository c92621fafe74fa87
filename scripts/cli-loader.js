#!/usr/bin/env node
// A simulator's CLI (docs/decisions/0031-cli-code-cache.md). The build copies this file to dist/main.js,
// beside dist/main.cjs (the whole CLI, one CommonJS bundle) and dist/main.cjs.cache (V8's code cache of
// that bundle, made by the build from a start and a first request). Node 20 compiles an ES module from
// its source at every start; run as a script, the bundle is compiled from the cache instead: the
// functions a start runs arrive compiled. A cache V8 refuses (another Node, other V8 flags) or that
// another build made is not used: the bundle is then compiled from its source, as any script is.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';

const filename = fileURLToPath(new URL('./main.cjs', import.meta.url));
const cacheFile = `${filename}.cache`;

/**
 * The bundle's text, wrapped as CommonJS wraps a module (on its first line, so the line numbers of stack
 * traces stay the bundle's; the shebang line becomes a comment), and the build's id that ends it
 * (`//# sims-build=<id>`). The bundle is ASCII (esbuild escapes the rest; the build checks it), so its
 * bytes read as Latin-1 are its text: several times cheaper than Node 20's UTF-8 read of a megabyte.
 * In a function, so that only the wrapped text stays (V8 keeps it to compile functions from).
 */
function readBundle() {
  const bytes = readFileSync(filename);
  const text = bytes.latin1Slice(0, bytes.length);
  return {
    build: /\/\/# sims-build=([0-9a-f]+)\s*$/.exec(text.slice(-64))?.[1] ?? '',
    wrapped: `(function (exports, require, module, __filename, __dirname) {${text.replace(/^#!/, '//')}\n})`,
  };
}

/**
 * This build's cache, or nothing. The cache starts with the id of the build that made it: V8 itself
 * checks only the source's length, so a cache of another build of the same length would pass.
 */
function cachedData(build) {
  if (build === '' || process.env.SIMS_CODE_CACHE_WRITE) return undefined;
  try {
    const file = readFileSync(cacheFile);
    const header = Buffer.from(`sims-build=${build}\n`);
    return file.subarray(0, header.length).equals(header) ? file.subarray(header.length) : undefined;
  } catch {
    return undefined;
  }
}

function compile() {
  const { build, wrapped } = readBundle();
  const script = new Script(wrapped, { filename, cachedData: cachedData(build) });
  if (process.env.SIMS_CODE_CACHE_WRITE) {
    // The build's warm-up run: at exit, the cache holds every function compiled until then.
    const header = Buffer.from(`sims-build=${build}\n`);
    process.once('exit', () => writeFileSync(cacheFile, Buffer.concat([header, script.createCachedData()])));
  }
  return script;
}

const module = { exports: {} };
compile().runInThisContext()(module.exports, createRequire(filename), module, filename, dirname(filename));
