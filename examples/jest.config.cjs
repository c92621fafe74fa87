// The jest example (jest/*.test.cjs): CommonJS test files that require() the packages' CommonJS build,
// as a project on jest's defaults does. Run with `pnpm exec jest` here; examples/test/jest.test.ts runs it
// as part of the test suite.
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/jest'],
  testMatch: ['**/*.test.cjs'],
};
