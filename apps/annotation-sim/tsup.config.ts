import { defineConfig } from 'tsup';
import { cliBuild, libraryBuild, verifyBuild } from '../../tsup.shared';

// dist/main.js (the loader), main.cjs and its code cache: the CLI and the Docker image (docs/decisions/0031);
// dist/verify/: `verify`, outside the image;
// dist/lib/: the library (`import { startAnnotationSim } from '@sims/annotation-sim'`), ESM + CommonJS + declarations.
export default defineConfig([cliBuild(), verifyBuild(), libraryBuild({ index: 'src/index.ts' })]);
