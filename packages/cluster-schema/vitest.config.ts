import { defineSimsVitestConfig } from '../../vitest.shared';

export default defineSimsVitestConfig();
