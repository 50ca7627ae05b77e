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

describe('the bundle, written as the function the shim compiles', () => {
  it('runs itself only as a module of its own: at the top level of a script it is a value, even beside a global `module`', async () => {
    // `node -e` makes `module` a global: the bundle must not take it for its own and run.
    const probe = `const vm = require('vm'), fs = require('fs');
      const f = new vm.Script(fs.readFileSync(${JSON.stringify(BUNDLE)}, 'latin1')).runInThisContext();
      process.stdout.write(JSON.stringify([typeof f, Object.keys(module.exports)]));`;
    const r = await execa(process.execPath, ['-e', probe], { reject: false });
    expect(JSON.parse(r.stdout)).toEqual(['function', []]);
    // Run directly, it starts.
    const direct = await execa(process.execPath, [BUNDLE, '--version'], { reject: false });
    expect(direct.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});
