// The shim serves `--help` (to a pipe) and `schema` from files written at build time: they must be
// exactly what the bundle itself prints, so they can never go stale.
import { execa } from 'execa';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, REPO_ROOT } from '../helpers/agent-path.js';

const BUNDLE = join(REPO_ROOT, 'dist', 'cli.cjs');

describe('prebuilt --help and schema', () => {
  it.each([
    ['--help'],
    ['-h'],
    ['schema'],
    ['schema', '--output-format', 'json'],
    ['schema', '--output-format', 'stream-json'],
  ])('rho-cursor %s prints what the bundle prints', async (...args) => {
    const [shim, bundle] = await Promise.all([
      execa(BIN, args, { reject: false }),
      execa(process.execPath, [BUNDLE, ...args], { reject: false }),
    ]);
    expect(shim.exitCode).toBe(bundle.exitCode);
    expect(shim.stdout).toBe(bundle.stdout);
    expect(shim.stdout.length).toBeGreaterThan(100);
  });
});
