// Summarizes a V8 .cpuprofile (node --cpu-prof): the top functions by self time and by inclusive time.
// Usage: node bench/scripts/cpuprofile-top.mjs <file.cpuprofile> [count]
import { readFileSync } from 'node:fs';

const [file, countText] = process.argv.slice(2);
const profile = JSON.parse(readFileSync(file, 'utf8'));
const count = Number(countText ?? 25);
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const self = new Map();
const dt = profile.timeDeltas;
for (let i = 0; i < profile.samples.length; i++)
  self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + (dt[i] ?? 0));
const total = dt.reduce((a, b) => a + b, 0);
const label = (n) => {
  const f = n.callFrame;
  const url = f.url.replace(/^.*\/(node_modules|apps|packages)\//, '$1/');
  return `${f.functionName || '(anonymous)'} ${url}:${f.lineNumber + 1}`;
};
const selfBy = new Map();
const inclBy = new Map();
for (const [id, t] of self) {
  const n = byId.get(id);
  selfBy.set(label(n), (selfBy.get(label(n)) ?? 0) + t);
  const seen = new Set();
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    const l = label(byId.get(cur));
    if (seen.has(l)) continue;
    seen.add(l);
    inclBy.set(l, (inclBy.get(l) ?? 0) + t);
  }
}
const top = (m) =>
  [...m.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([l, t]) => `${((100 * t) / total).toFixed(1).padStart(5)}%  ${l}`)
    .join('\n');
console.log(`total ${(total / 1e6).toFixed(1)} s\n-- self\n${top(selfBy)}\n-- inclusive\n${top(inclBy)}`);
