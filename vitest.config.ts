import { defineConfig } from 'vitest/config';

// Three projects, all run by `npm test`, on two workers (one per core on CI's 2-core machine; the process
// tests spend much of their time waiting on the processes they start, so a second worker roughly halves
// their wall time).
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
          // machine).
          exclude: ['test/unit/agent/cgroup.test.ts'],
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'process',
          // These start the built CLI, agents and ptys; none changes the state of the process it runs in
          // (its environment, cwd, signal handlers or timers), so they share a fork too: a fresh fork per
          // file cost ~14 s of CPU in all (the fork, and vitest's and execa's imports, 34 times).
          include: ['test/e2e/**/*.test.ts', 'test/replay/**/*.test.ts', 'test/peer/**/*.test.ts'],
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'cgroup',
          // The cgroup test writes its own pid into a cgroup's cgroup.procs to spawn inside it: a fork of its
          // own (its spawn timed out once in a fresh-clone CI run after other files had run in its process).
          include: ['test/unit/agent/cgroup.test.ts'],
          isolate: true,
        },
      },
    ],
  },
});
