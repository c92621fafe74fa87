import { defineConfig } from 'tsup';
import { cliBuild, libraryBuild, verifyBuild } from '../../tsup.shared';

// dist/main.js (the loader), main.cjs and its code cache: the CLI and the Docker image (docs/decisions/0031);
// dist/verify/: `verify`, outside the image;
// dist/lib/: the library (`import { startClusterSim } from '@sims/cluster-sim'`), ESM + CommonJS + declarations.
// The library keeps the protos' JSON import attribute (`with { type: 'json' }`, which Node >= 20.10 needs
// in ESM; esbuild's node20 target would drop it): the gRPC server imports them on first use.
const library = libraryBuild({ index: 'src/index.ts' });
library.esbuildOptions = (options) => {
  options.supported = { ...options.supported, 'import-attributes': true };
};
export default defineConfig([cliBuild(), verifyBuild(), library]);
