import { defineConfig } from 'tsup';
import { cliBuild, libraryBuild, verifyBuild } from '../../tsup.shared';

// dist/main.js (+ chunks): the CLI and the Docker image; dist/verify/: `verify`, outside the image;
// dist/lib/: the library (`import { startAnnotationSim } from '@sims/annotation-sim'`), ESM + CommonJS + declarations.
export default defineConfig([cliBuild(), verifyBuild(), libraryBuild({ index: 'src/index.ts' })]);
