import { defineSimsVitestConfig } from '../../vitest.shared.ts';

export default defineSimsVitestConfig({ shareModules: true });
