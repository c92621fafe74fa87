import { defineConfig } from 'tsup';

// Self-contained ESM (nothing external): dist/main.js plus chunks it imports on first use (the YAML
// parser for scenario files), which is why the Docker image copies all of dist/ (docs/decisions/0009).
export default defineConfig({
  entry: { main: 'src/main.ts' },
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  bundle: true,
  noExternal: [/.*/],
  splitting: true,
  clean: true,
  banner: {
    js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
  },
});
