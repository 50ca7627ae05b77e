// Mutation testing (StrykerJS) of the pure modules against their unit tests: do the tests fail when the code
// is broken? `npm run mutation` runs every directory below; `npm run mutation -- --mutate 'src/acp/**/*.ts'`
// one of them. The report: reports/mutation/mutation.html (and the table printed at the end).
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.unit.config.ts' },
  plugins: ['@stryker-mutator/vitest-runner'],
  mutate: [
    'src/policy/**/*.ts',
    'src/acp/**/*.ts',
    'src/events/**/*.ts',
    'src/structured/**/*.ts',
    'src/lifecycle/**/*.ts',
  ],
  coverageAnalysis: 'perTest',
  concurrency: 2,
  timeoutMS: 10_000,
  reporters: ['clear-text', 'progress', 'html'],
  thresholds: { high: 95, low: 90, break: null },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
