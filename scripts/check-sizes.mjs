#!/usr/bin/env node
// Sizes the code may not pass without a reason (issue 34; docs/decisions/0024-size-limits.md): no source
// file over 400 lines and no function over 120. A file or function past its limit is listed in
// docs/decisions/0024-size-limits.md's table (its path, and the function's name) with the reason; this
// check fails on one that is not, and on a listed one that is back under its limit (the list stays true).
//
//   node scripts/check-sizes.mjs            checks apps/*/src and packages/*/src
//   node scripts/check-sizes.mjs --report   prints every file and function past its limit
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const ROOT = new URL('..', import.meta.url).pathname;
const FILE_LIMIT = 400;
const FUNCTION_LIMIT = 120;
const DECISION = 'docs/decisions/0024-size-limits.md';
/** Written by tools, not read as code: generated tables and bundles. */
const GENERATED = /(\.generated\.tsx?|\.d\.ts)$/;

function sourceFiles(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'dist') continue;
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (/\.tsx?$/.test(name) && !GENERATED.test(name)) out.push(path);
  }
  return out;
}

function roots() {
  const dirs = [];
  for (const group of ['apps', 'packages'])
    for (const name of readdirSync(join(ROOT, group))) {
      const src = join(ROOT, group, name, 'src');
      try {
        if (statSync(src).isDirectory()) dirs.push(src);
      } catch {}
    }
  return dirs;
}

/** A function's name as a reader finds it: `name`, `Class.method`, `outer › property`. */
function nameOf(node, parents) {
  const own =
    node.name && ts.isIdentifier(node.name)
      ? node.name.text
      : ts.isVariableDeclaration(node.parent) && ts.isIdentifier(node.parent.name)
        ? node.parent.name.text
        : ts.isPropertyAssignment(node.parent) && node.parent.name && 'text' in node.parent.name
          ? node.parent.name.text
          : '(anonymous)';
  return [...parents, own].join(' › ');
}

function functionsOf(file, text) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found = [];
  const lineOf = (pos) => source.getLineAndCharacterOfPosition(pos).line;
  function visit(node, parents) {
    const fn =
      ts.isFunctionDeclaration(node) ||
      ts.isMethodDeclaration(node) ||
      ts.isArrowFunction(node) ||
      ts.isFunctionExpression(node) ||
      ts.isConstructorDeclaration(node) ||
      ts.isGetAccessor(node) ||
      ts.isSetAccessor(node);
    let inner = parents;
    if (fn) {
      const name = nameOf(node, parents);
      const lines = lineOf(node.getEnd()) - lineOf(node.getStart(source)) + 1;
      found.push({ name, lines });
      inner = [...parents, name.split(' › ').pop()];
    }
    ts.forEachChild(node, (child) => visit(child, inner));
  }
  visit(source, []);
  return found;
}

/** The table rows of the decision: `| path | function or — | lines | reason |`. */
function allowed() {
  const rows = new Map();
  const text = readFileSync(join(ROOT, DECISION), 'utf8');
  for (const line of text.split('\n')) {
    const m = line.match(/^\|\s*`([^`]+)`\s*\|\s*(?:`([^`]+)`|—)\s*\|/);
    if (m) rows.set(`${m[1]}${m[2] ? ` ${m[2]}` : ''}`, line);
  }
  return rows;
}

const report = process.argv.includes('--report');
const allow = allowed();
const over = [];
for (const dir of roots())
  for (const file of sourceFiles(dir)) {
    const text = readFileSync(file, 'utf8');
    const path = relative(ROOT, file);
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    if (lines > FILE_LIMIT) over.push({ key: path, what: `file of ${lines} lines (limit ${FILE_LIMIT})` });
    for (const f of functionsOf(file, text))
      if (f.lines > FUNCTION_LIMIT)
        over.push({
          key: `${path} ${f.name}`,
          what: `function of ${f.lines} lines (limit ${FUNCTION_LIMIT})`,
        });
  }

if (report) for (const o of over) console.log(`${o.key}: ${o.what}`);
const unlisted = over.filter((o) => !allow.has(o.key));
const overKeys = new Set(over.map((o) => o.key));
const stale = [...allow.keys()].filter((k) => !overKeys.has(k));
for (const o of unlisted) console.error(`${o.key}: ${o.what}, with no reason in ${DECISION}`);
for (const k of stale) console.error(`${k}: listed in ${DECISION} but within its limit now (remove the row)`);
if (unlisted.length + stale.length > 0) process.exit(1);
console.log(`sizes: ${over.length} past their limits, each with its reason in ${DECISION}`);
