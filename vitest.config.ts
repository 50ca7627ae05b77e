import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // A fresh fork per file (isolate, the default): with one fork for every file (isolate: false, test/unit
    // 126 s -> 34 s at load) the cgroup test's spawn from inside a v2 cgroup timed out once in a fresh-clone CI
    // run, after the files before it had run in the same process.
    // maxWorkers stays vitest's default (cores - 1: one on 2 cores); 3 workers there made the suite slower
    // and its time bounds flaky, the e2e tests being CPU-bound node start-ups.
    globalSetup: ['test/setup/tmpdir.ts'],
    reporters: ['default'],
  },
});
