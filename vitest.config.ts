import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // One fork runs every file (no test file keeps state in the process: each e2e test spawns its own CLI);
    // a fresh fork per file cost ~1.5 s each on a loaded 2-core machine (test/unit: 126 s -> 34 s).
    isolate: false,
    // maxWorkers stays vitest's default (cores - 1: one on 2 cores); 3 workers there made the suite slower
    // and its time bounds flaky, the e2e tests being CPU-bound node start-ups.
    globalSetup: ['test/setup/tmpdir.ts'],
    reporters: ['default'],
  },
});
