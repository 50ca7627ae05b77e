import { defineConfig } from 'vitest/config';

// Two projects, both run by `npm test`, two workers (one per core on CI's 2-core machine; the e2e tests spend
// much of their time waiting on the processes they start, so a second worker roughly halves their wall time).
export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    maxWorkers: 2,
    globalSetup: ['test/setup/tmpdir.ts'],
    reporters: ['default'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          // The pure modules' tests share a fork (test/unit: 40 s isolated -> 10 s shared on a quiet 2-core
          // machine). The cgroup v2 test is not among them: it writes its own pid into cgroup.procs, and its
          // spawn timed out once in a fresh-clone CI run after the files before it had run in the same process.
          exclude: ['test/unit/agent/cgroup.test.ts'],
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'process',
          // A fresh fork per file: these start the built CLI, agents and ptys, and some change process state.
          include: [
            'test/e2e/**/*.test.ts',
            'test/replay/**/*.test.ts',
            'test/peer/**/*.test.ts',
            'test/unit/agent/cgroup.test.ts',
          ],
          isolate: true,
        },
      },
    ],
  },
});
