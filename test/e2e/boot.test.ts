// How bin/rho-cursor starts the bundle: with the V8 code cache the build wrote when this Node takes it, and
// the same run when it cannot (a cache from another Node or a damaged one, or none at all); a copy that was
// never built says how to build it.
import { cpSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FIXTURES, REPO_ROOT } from '../helpers/agent-path.js';
import { runCli } from '../helpers/cli.js';

const SJ = ['--output-format', 'stream-json'];
const copies: string[] = [];

// A copy of the installed package (bin/, dist/, package.json), to lay out differently; returns its bin.
function installCopy(withDist = true): { root: string; bin: string } {
  const root = mkdtempSync(join(tmpdir(), 'rho-install-'));
  copies.push(root);
  cpSync(join(REPO_ROOT, 'bin'), join(root, 'bin'), { recursive: true });
  if (withDist) cpSync(join(REPO_ROOT, 'dist'), join(root, 'dist'), { recursive: true });
  cpSync(join(REPO_ROOT, 'package.json'), join(root, 'package.json'));
  return { root, bin: join(root, 'bin', 'rho-cursor') };
}

async function codeCacheOf(bin?: string): Promise<unknown> {
  const r = await runCli(['doctor', '--output-format', 'json'], bin ? { bin } : {});
  return (JSON.parse(r.stdout) as { rhoCursor: { codeCache: string } }).rhoCursor;
}

afterAll(() => {
  for (const dir of copies) rmSync(dir, { recursive: true, force: true });
});

describe('start-up', () => {
  it('takes the code cache the build wrote, and doctor says so', async () => {
    expect(await codeCacheOf()).toEqual({
      version: expect.stringMatching(/^\d+\.\d+\.\d+/) as unknown,
      node: process.versions.node,
      codeCache: 'used',
    });
  });

  it.each([
    ['rejected', 'a damaged cache (or one from another Node)', 'not a code cache'],
    ['none', 'no cache at all', undefined],
    // Found by review: a sparse file past what a buffer can hold made every command a stack trace.
    ['none', 'a file of 100 GiB, sparse', 100 * 1024 ** 3],
  ])('runs the same when V8 has %s: %s', async (status, _what, content) => {
    const { root, bin } = installCopy();
    const cache = join(root, 'dist', 'cli.cjs.cache');
    if (content === undefined) rmSync(cache);
    else if (typeof content === 'number') truncateSync(cache, content);
    else writeFileSync(cache, content);
    expect(await codeCacheOf(bin)).toMatchObject({ codeCache: status });
    const r = await runCli(['run', ...SJ, 'hello'], { recording: 'tools.jsonl', bin });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.events.at(-1)).toMatchObject({ type: 'result', stopReason: 'end_turn', exitCode: 0 });
  });

  // What only some runs need is loaded only by them: node:crypto (~3 ms of start-up) hashes workspace files,
  // node:fs/promises writes reports, the schema kit checks --output-schema in a worker (node:worker_threads),
  // zod prints `schema`, ora draws the terminal's spinner. A plain run in an empty workspace loads none. Nor
  // does the shim load the `module` builtin (and the ES module loader it pulls in) for Node's Module class.
  it('a plain run loads none of the modules only some runs need', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rho-loaded-'));
    copies.push(dir);
    const loadedFile = join(dir, 'loaded.txt');
    const r = await runCli(['run', ...SJ, 'hello'], {
      recording: 'tools.jsonl',
      env: { NODE_OPTIONS: `--require ${join(FIXTURES, 'loaded-modules.cjs')}`, RHO_TEST_LOADED: loadedFile },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const loaded = readFileSync(loadedFile, 'utf8').split('\n');
    // The list is whole: the shim and Node's child_process are in it.
    expect(loaded).toContain('NativeModule child_process');
    expect(loaded).toContain(join(REPO_ROOT, 'bin', 'rho-cursor'));
    expect(
      loaded.filter((l) =>
        /^NativeModule (crypto|fs\/promises|worker_threads|module)$|\/dist\/(vendor\/|schema-worker)/.test(l),
      ),
    ).toEqual([]);
  });

  it('a copy that was never built says how to build it, in one line, exit 1', async () => {
    const { root, bin } = installCopy(false);
    const r = await runCli(['run', 'hello'], { recording: 'tools.jsonl', bin });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toBe(`rho-cursor: not built yet: run \`npm ci && npm run build\` in ${root}`);
  });
});
