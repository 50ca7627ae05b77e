// The private dir on a real file system (temp dirs only): the mirror, the mode, the carry-back, the removal.
import { createHash } from 'node:crypto';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { dirname } from 'node:path';
import { prepareFenceDir, sweepStaleFenceDirs } from '../../../src/fence/private-dir.js';

const USER_CONFIG = '{\n  "version": 1,\n  "approvalMode": "unrestricted",\n  "myKey": "mine"\n}\n';
const OVERLAY = '{"version":1,"approvalMode":"allowlist"}\n';
const hash = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

// A user config dir with a cli-config.json, a login file and a subdirectory; and a root for private dirs.
function setup(): { user: string; root: string } {
  const base = mkdtempSync(join(tmpdir(), 'rho-fence-unit-'));
  const user = join(base, 'cursor');
  mkdirSync(join(user, 'projects'), { recursive: true });
  writeFileSync(join(user, 'cli-config.json'), USER_CONFIG);
  writeFileSync(join(user, 'auth.json'), '{"token":"old"}', { mode: 0o600 });
  writeFileSync(join(user, 'projects', 'p.json'), '{}');
  const root = join(base, 'tmp');
  mkdirSync(root);
  return { user, root };
}

describe('prepareFenceDir', () => {
  it('mirrors the user dir by links, with the overlay as a real file, in a 0700 dir', () => {
    const { user, root } = setup();
    const f = prepareFenceDir(user, OVERLAY, root);
    expect(statSync(f.dir).mode & 0o777).toBe(0o700);
    expect(readdirSync(f.dir).sort()).toEqual(['auth.json', 'cli-config.json', 'projects']);
    expect(lstatSync(join(f.dir, 'cli-config.json')).isSymbolicLink()).toBe(false);
    expect(readFileSync(join(f.dir, 'cli-config.json'), 'utf8')).toBe(OVERLAY);
    expect(readFileSync(join(f.dir, 'auth.json'), 'utf8')).toBe('{"token":"old"}');
    expect(readFileSync(join(f.dir, 'projects', 'p.json'), 'utf8')).toBe('{}');
    f.release();
  });

  it('works where the user has no config dir at all', () => {
    const { root } = setup();
    const f = prepareFenceDir(join(root, 'missing'), OVERLAY, root);
    expect(readdirSync(f.dir)).toEqual(['cli-config.json']);
    expect(f.release()).toEqual([]);
    expect(existsSync(f.dir)).toBe(false);
  });
});

describe('release', () => {
  it("leaves the user's cli-config.json byte-identical though the agent rewrote its copy", () => {
    const { user, root } = setup();
    const before = hash(join(user, 'cli-config.json'));
    const f = prepareFenceDir(user, OVERLAY, root);
    writeFileSync(join(f.dir, 'cli-config.json.tmp'), '{"version":1}');
    renameSync(join(f.dir, 'cli-config.json.tmp'), join(f.dir, 'cli-config.json'));
    writeFileSync(join(f.dir, 'cli-config.json.bad'), 'broken');
    expect(f.release()).toEqual([]);
    expect(hash(join(user, 'cli-config.json'))).toBe(before);
    expect(existsSync(join(user, 'cli-config.json.bad'))).toBe(false);
  });

  it('carries back a login refreshed by temp file and rename, with its mode', () => {
    const { user, root } = setup();
    const f = prepareFenceDir(user, OVERLAY, root);
    writeFileSync(join(f.dir, 'auth.json.tmp-1'), '{"token":"new"}', { mode: 0o600 });
    renameSync(join(f.dir, 'auth.json.tmp-1'), join(f.dir, 'auth.json'));
    expect(f.release()).toEqual([]);
    expect(readFileSync(join(user, 'auth.json'), 'utf8')).toBe('{"token":"new"}');
    expect(statSync(join(user, 'auth.json')).mode & 0o777).toBe(0o600);
    expect(readdirSync(user).sort()).toEqual(['auth.json', 'cli-config.json', 'projects']);
  });

  it('carries back new files, new directories and new links; writes inside linked dirs are already home', () => {
    const { user, root } = setup();
    const f = prepareFenceDir(user, OVERLAY, root);
    writeFileSync(join(f.dir, 'statsig.json'), 'new');
    mkdirSync(join(f.dir, 'chats', 'a'), { recursive: true });
    writeFileSync(join(f.dir, 'chats', 'a', 'log'), 'hello');
    symlinkSync('projects/p.json', join(f.dir, 'current'));
    writeFileSync(join(f.dir, 'projects', 'q.json'), 'through the link');
    expect(f.release()).toEqual([]);
    expect(readFileSync(join(user, 'statsig.json'), 'utf8')).toBe('new');
    expect(readFileSync(join(user, 'chats', 'a', 'log'), 'utf8')).toBe('hello');
    expect(readFileSync(join(user, 'current'), 'utf8')).toBe('{}');
    expect(readFileSync(join(user, 'projects', 'q.json'), 'utf8')).toBe('through the link');
    expect(readdirSync(user).filter((n) => n.includes('rho-cursor'))).toEqual([]);
  });

  it("never deletes the user's files, even when the agent removed its link", () => {
    const { user, root } = setup();
    const f = prepareFenceDir(user, OVERLAY, root);
    unlinkSync(join(f.dir, 'auth.json'));
    f.release();
    expect(readFileSync(join(user, 'auth.json'), 'utf8')).toBe('{"token":"old"}');
  });

  it('removes the private dir, links only (never their targets), and is idempotent', () => {
    const { user, root } = setup();
    const f = prepareFenceDir(user, OVERLAY, root);
    expect(f.release()).toEqual([]);
    expect(existsSync(f.dir)).toBe(false);
    expect(readdirSync(root)).toEqual([]);
    expect(readdirSync(user).sort()).toEqual(['auth.json', 'cli-config.json', 'projects']);
    expect(readFileSync(join(user, 'projects', 'p.json'), 'utf8')).toBe('{}');
    expect(f.release()).toEqual([]);
  });

  it('reports what it could not carry back, and still removes the dir', () => {
    const { user, root } = setup();
    const f = prepareFenceDir(user, OVERLAY, root);
    // A file where the user has a directory cannot replace it.
    unlinkSync(join(f.dir, 'projects'));
    writeFileSync(join(f.dir, 'projects'), 'a file now');
    const problems = f.release();
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/could not carry projects back/);
    expect(existsSync(f.dir)).toBe(false);
    expect(statSync(join(user, 'projects')).isDirectory()).toBe(true);
  });
});

describe('prepareFenceDir with a hostile agent', () => {
  it('never opens a FIFO the agent left in the private dir (it would block the teardown): reported, not carried', () => {
    const { user, root } = setup();
    const f = prepareFenceDir(user, OVERLAY, root);
    expect(spawnSync('mkfifo', [join(f.dir, 'trap')]).status).toBe(0);
    const problems = f.release();
    expect(problems).toEqual([expect.stringMatching(/could not carry trap back.*not a regular file/)]);
    expect(existsSync(join(user, 'trap'))).toBe(false);
    expect(existsSync(f.dir)).toBe(false);
  });
});

describe('sweepStaleFenceDirs', () => {
  it('carries back and removes what a SIGKILLed run left, and leaves live runs alone', () => {
    const { user, root } = setup();
    const live = prepareFenceDir(user, OVERLAY, root);
    const killed = prepareFenceDir(user, OVERLAY, root);
    writeFileSync(join(killed.dir, 'auth.json.tmp'), '{"token":"from the killed run"}');
    renameSync(join(killed.dir, 'auth.json.tmp'), join(killed.dir, 'auth.json'));
    // The killed run's dir, named as if by a process that is gone.
    const dead = spawnSync(process.execPath, ['-e', '0']).pid;
    const runDir = dirname(killed.dir);
    const staleDir = runDir.replace(`-${process.pid}-`, `-${dead}-`);
    renameSync(runDir, staleDir);
    const done = sweepStaleFenceDirs(root);
    expect(done).toEqual([`released ${staleDir} left by pid ${dead}`]);
    expect(existsSync(staleDir)).toBe(false);
    expect(readFileSync(join(user, 'auth.json'), 'utf8')).toBe('{"token":"from the killed run"}');
    expect(existsSync(live.dir)).toBe(true);
    live.release();
    expect(readdirSync(root)).toEqual([]);
  });

  it('never shows the agent the owner file', () => {
    const { user, root } = setup();
    const f = prepareFenceDir(user, OVERLAY, root);
    expect(readdirSync(f.dir)).not.toContain('owner.json');
    f.release();
  });
});
