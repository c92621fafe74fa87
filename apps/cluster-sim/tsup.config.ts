import { defineConfig } from 'tsup';

// One self-contained ESM file per entry: the Docker image ships dist/main.js and nothing else.
export default defineConfig({
  entry: { main: 'src/main.ts' },
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  bundle: true,
  noExternal: [/.*/],
  splitting: false,
  clean: true,
  banner: {
    js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
  },
});
