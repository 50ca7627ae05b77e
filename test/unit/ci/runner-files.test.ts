// GitHub's file commands put back as they were, also where the agent made their folder read-only. That case
// exists only for the runner's ordinary user (root writes into a read-only folder anyway), so the module runs
// as `nobody` here (setpriv), bundled for the test with esbuild.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { RunnerFiles } from '../../../src/ci/runner-files.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
// `under`: /tmp for the case run as nobody (the suite's own temporary folder is root's alone).
const scratch = (under = tmpdir()): string => {
  const d = mkdtempSync(join(under, 'rho-runner-files-'));
  dirs.push(d);
  return d;
};

describe('RunnerFiles', () => {
  it('puts back what the agent appended, removes a file it made, and replaces a link without following it', () => {
    const dir = scratch();
    const env = join(dir, 'set_env');
    const path = join(dir, 'add_path');
    const victim = join(dir, 'victim');
    writeFileSync(env, 'A=1\n');
    writeFileSync(victim, 'mine\n');
    const files = RunnerFiles.watch({ GITHUB_ENV: env, GITHUB_PATH: path })!;
    writeFileSync(env, 'A=1\nNODE_OPTIONS=--require /tmp/evil.js\n');
    execFileSync('ln', ['-s', victim, path]);
    expect(files.check()).toEqual([
      { name: 'GITHUB_ENV', path: env, restored: true },
      { name: 'GITHUB_PATH', path, restored: true },
    ]);
    expect(readFileSync(env, 'utf8')).toBe('A=1\n');
    expect(() => readFileSync(path)).toThrow();
    expect(readFileSync(victim, 'utf8')).toBe('mine\n');
    expect(files.check()).toEqual([]);
  });

  const setpriv = spawnSync('setpriv', ['--version']).status === 0;
  it.skipIf(!setpriv || process.getuid?.() !== 0)(
    'as the runner user: a folder the agent made read-only does not keep what it wrote',
    () => {
      const dir = scratch('/tmp');
      const bundle = join(dir, 'runner-files.cjs');
      buildSync({
        entryPoints: [join(__dirname, '../../../src/ci/runner-files.ts')],
        bundle: true,
        platform: 'node',
        format: 'cjs',
        outfile: bundle,
        logLevel: 'silent',
      });
      const work = join(dir, 'commands');
      execFileSync('mkdir', [work]);
      const env = join(work, 'set_env');
      writeFileSync(env, '');
      chownSync(work, 65534, 65534);
      chownSync(env, 65534, 65534);
      chmodSync(dir, 0o755);
      const driver = `
        const fs = require('fs');
        const { RunnerFiles } = require(${JSON.stringify(bundle)});
        const files = RunnerFiles.watch({ GITHUB_ENV: ${JSON.stringify(env)} });
        fs.appendFileSync(${JSON.stringify(env)}, 'LD_PRELOAD=/tmp/evil.so\\n');
        fs.chmodSync(${JSON.stringify(work)}, 0o555);
        const found = files.check();
        process.stdout.write(JSON.stringify({ found, now: fs.readFileSync(${JSON.stringify(env)}, 'utf8') }));`;
      const out = execFileSync(
        'setpriv',
        ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '-e', driver],
        { cwd: dir, env: { PATH: process.env.PATH, HOME: dir }, encoding: 'utf8' },
      );
      expect(JSON.parse(out)).toEqual({
        found: [{ name: 'GITHUB_ENV', path: env, restored: true }],
        now: '',
      });
    },
  );
});
