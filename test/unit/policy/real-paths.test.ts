// Where a path through a symlink lands, and the bound on what an agent's paths cost to look up.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { globForms, LOOKUPS_MAX, withRealPaths } from '../../../src/policy/real-paths.js';

const base = mkdtempSync(join(tmpdir(), 'rho-real-paths-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));
const cwd = join(base, 'ws');
mkdirSync(join(cwd, 'src'), { recursive: true });
mkdirSync(join(base, 'outside'));
symlinkSync(join(base, 'outside'), join(cwd, 'src', 'out'));
symlinkSync('../.env', join(cwd, 'src', 'env'));
symlinkSync('loop', join(cwd, 'loop'));

describe('withRealPaths', () => {
  it('adds where a path through a symlink lands, in the workspace or outside it', () => {
    expect(withRealPaths(['src/out/x'], cwd)).toEqual(['src/out/x', join(base, 'outside', 'x')]);
    expect(withRealPaths(['src/out/../y'], cwd)).toEqual(['src/out/../y', join(base, 'y')]);
    expect(withRealPaths(['src/env'], cwd)).toEqual(['src/env', join(cwd, '.env')]);
    // Exactly the workspace's parent is outside it too.
    expect(withRealPaths(['src/out/..'], cwd)).toEqual(['src/out/..', base]);
  });

  it('adds nothing for a path that lands where it says', () => {
    expect(withRealPaths(['src/a.ts', `${cwd}/src/b.ts`, 'src/../c'], cwd)).toEqual([
      'src/a.ts',
      `${cwd}/src/b.ts`,
      'src/../c',
    ]);
    // A name starting with two dots is in the workspace, not above it.
    expect(withRealPaths(['..config'], cwd)).toEqual(['..config']);
  });

  it('spells a path that lands in the workspace as the workspace is given, through a link to it', () => {
    // A link in another folder: `..` from it is not `..` from the workspace itself.
    mkdirSync(join(base, 'deeper'));
    const viaLink = join(base, 'deeper', 'ws-link');
    symlinkSync(cwd, viaLink);
    symlinkSync('.', join(cwd, 'src', 'in'));
    // Lands in src/ again: relative globs still cover it, as the workspace's own spelling.
    expect(withRealPaths(['src/in/b.ts'], viaLink)).toEqual(['src/in/b.ts', join(viaLink, 'src', 'b.ts')]);
    // Lands outside: the real path, absolute.
    expect(withRealPaths(['src/out/x'], viaLink)).toEqual(['src/out/x', join(base, 'outside', 'x')]);
  });

  it('does not look up a path longer than the kernel takes (4,096 bytes), and says so (found by review)', () => {
    // A tool that normalises the path before opening it reaches src/envlink: no rule may take it as read.
    const long = `${'./'.repeat(2100)}src/envlink`;
    expect(withRealPaths([long], cwd)).toEqual([long, `/(not looked up) ${long}`]);
  });

  it('gives up on a loop of links, as the kernel does', () => {
    expect(withRealPaths(['loop/x'], cwd)).toEqual(['loop/x']);
  });

  it(`looks up at most ${LOOKUPS_MAX} components a request; a path left unread lands nowhere a glob covers`, () => {
    const many = Array.from({ length: 2000 }, (_, i) => `src/f${i}.ts`);
    const out = withRealPaths(many, cwd);
    const unread = out.filter((p) => p.startsWith('/(not looked up) '));
    expect(unread.length).toBeGreaterThan(0);
    expect(unread[0]).toMatch(/^\/\(not looked up\) src\/f\d+\.ts$/);
    // The first paths were looked up: nothing added for them.
    expect(out.slice(0, 2000)).toEqual(many);
  });
});

describe('globForms (found by the rules review)', () => {
  it('gives an absolute glob through a symlink in its real and its workspace spellings too', () => {
    const s = realpathSync(mkdtempSync(join(tmpdir(), 'rho-globforms-')));
    mkdirSync(join(s, 'ws', 'src'), { recursive: true });
    symlinkSync('ws', join(s, 'wslink'));
    expect(globForms(`${s}/wslink/src/**`, join(s, 'ws'), '/home/u')).toEqual([
      `${s}/wslink/src/**`,
      `${s}/ws/src/**`,
    ]);
    // The workspace spelled through the link: the real path is also written as the workspace spells it.
    expect(globForms(`${s}/ws/.env`, join(s, 'wslink'), '/home/u')).toEqual([
      `${s}/ws/.env`,
      `${s}/wslink/.env`,
    ]);
    expect(globForms('new/dir/*.ts', join(s, 'wslink'), '/home/u')).toEqual([
      `${s}/wslink/new/dir/*.ts`,
      `${s}/ws/new/dir/*.ts`,
    ]);
  });
});
