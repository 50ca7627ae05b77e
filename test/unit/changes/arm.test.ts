// A git command forked ahead of need: it runs when asked, as git() would, and never when disarmed.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { armGit, git } from '../../../src/changes/git.js';
import { tempDir } from '../../helpers/cli.js';

// A command with a side effect to look for: git writes a config file.
const writeConfig = (file: string): string[] => ['config', '--file', file, 'rho.armed', 'yes'];

describe('armGit', () => {
  it('runs git only once asked, with what git() would give back', async () => {
    const dir = tempDir('rho-arm-');
    const file = join(dir, 'cfg');
    const armed = armGit(dir, writeConfig(file));
    await new Promise((r) => setTimeout(r, 100));
    expect(existsSync(file)).toBe(false);
    const r = await armed.run();
    expect(r).toEqual({ code: 0, stdout: Buffer.alloc(0), stderr: '' });
    expect(readFileSync(file, 'utf8')).toContain('armed = yes');
    const read = ['config', '--file', file, 'rho.armed'];
    expect(await armGit(dir, read).run()).toEqual(await git(dir, read));
  });

  it("gives git's exit code and message when it fails", async () => {
    const dir = tempDir('rho-arm-');
    const r = await armGit(dir, ['rev-parse', '--verify', 'no-such-ref']).run();
    expect(r.code).toBe(128);
    expect(r.stderr).toMatch(/fatal/);
  });

  it('disarmed, never runs git: its shell exits on the end of its input', async () => {
    const dir = tempDir('rho-arm-');
    const file = join(dir, 'cfg');
    const armed = armGit(dir, writeConfig(file));
    armed.disarm();
    await new Promise((r) => setTimeout(r, 200));
    expect(existsSync(file)).toBe(false);
    // Asked after all, it runs the usual way.
    expect((await armed.run()).code).toBe(0);
    expect(existsSync(file)).toBe(true);
  });
});
