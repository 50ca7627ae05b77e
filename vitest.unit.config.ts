// The pure modules' tests alone (test/unit): what StrykerJS runs against each mutant (stryker.config.mjs).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts'],
    testTimeout: 20_000,
    globalSetup: ['test/setup/tmpdir.ts'],
  },
});
