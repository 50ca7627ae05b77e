// Corners of a git workspace the ledger once did not see into (found by review): a submodule folder that is
// not checked out, a submodule's own git dir, a workspace its enclosing repository ignores, and a mode git
// does not track.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, makeAgentDir } from '../helpers/agent-path.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { chunk, effect } from '../helpers/lines.js';
import { git, repoWithSubmodule, userRepo, writeFiles } from '../helpers/repo.js';

const agentPath = makeAgentDir(join(FIXTURES, 'scripted.mjs')).then((d) => join(d, 'cursor-agent'));

// A run under --fence read-only in the workspace, with an agent that runs one shell command.
async function readOnly(cwd: string, sh: string) {
  return runCli(['run', '--output-format', 'stream-json', '--fence', 'read-only', 'go'], {
    agent: await agentPath,
    cwd,
    cliConfig: { approvalMode: 'allowlist' },
    env: { RHO_SCRIPT: JSON.stringify({ before: [effect({ sh }), chunk('nothing')] }) },
  });
}

const changesOf = (r: { events: Array<Record<string, unknown>> }) =>
  r.events.at(-1)!.changes as Record<string, string[] | boolean>;

describe('a submodule folder that is not checked out (a clone without --recursive)', () => {
  // The clone as actions/checkout makes it by default: vendor/lib is there, and empty.
  function clone(): string {
    const repo = repoWithSubmodule();
    const copy = join(tempDir('rho-clone-'), 'clone');
    git(repo, 'clone', '-q', repo, copy);
    return copy;
  }

  it('a file the agent writes there is a change: --fence read-only is exit 8', async () => {
    const ws = clone();
    const r = await readOnly(
      ws,
      'echo evil > vendor/lib/evil.sh && mkdir vendor/lib/d && echo x > vendor/lib/d/x',
    );
    expect(r.exitCode, r.stderr).toBe(8);
    expect(changesOf(r)).toMatchObject({ added: ['vendor/lib/d/x', 'vendor/lib/evil.sh'], truncated: false });
  });

  it('files there before the turn are measured in both looks: one left alone is no change, one edited is', async () => {
    const ws = clone();
    writeFiles(ws, { 'vendor/lib/kept.c': 'kept\n', 'vendor/lib/edited.c': 'edited\n' });
    const r = await readOnly(ws, 'echo more >> vendor/lib/edited.c');
    expect(r.exitCode, r.stderr).toBe(8);
    expect(changesOf(r)).toMatchObject({ added: [], modified: ['vendor/lib/edited.c'], deleted: [] });
  });

  it('with nothing written there, nothing changed: exit 0', async () => {
    const ws = clone();
    const r = await readOnly(ws, 'true');
    expect(r.exitCode, r.stderr).toBe(0);
    expect(existsSync(join(ws, 'vendor/lib'))).toBe(true);
  });
});

describe('the index read from a workspace below the repository root', () => {
  it('a file the user marked assume-unchanged is looked at there too (its path was read from the top)', async () => {
    const repo = userRepo();
    git(repo, 'update-index', '--assume-unchanged', 'src/b.ts');
    const r = await readOnly(join(repo, 'src'), 'echo PWNED > b.ts');
    expect(r.exitCode, r.stderr).toBe(8);
    expect(changesOf(r)).toMatchObject({ modified: ['b.ts'] });
  });
});

describe("a submodule's own git dir (.git/modules/<name>) is git's control files too", () => {
  it.each([
    [
      'a hook',
      'printf "#!/bin/sh\\necho pwned\\n" > .git/modules/vendor/lib/hooks/pre-commit',
      '.git/modules/vendor/lib/hooks/pre-commit',
    ],
    ['a config', 'git -C vendor/lib config user.name HACKED', '.git/modules/vendor/lib/config'],
    [
      "a nested submodule's hook",
      'printf "#!/bin/sh\\n" > .git/modules/vendor/lib/modules/inner/hooks/post-checkout',
      '.git/modules/vendor/lib/modules/inner/hooks/post-checkout',
    ],
    [
      "a nested submodule's config",
      'echo "[core]" >> .git/modules/vendor/lib/modules/inner/config',
      '.git/modules/vendor/lib/modules/inner/config',
    ],
  ])('%s is a change: --fence read-only is exit 8', async (_, sh, path) => {
    const repo = repoWithSubmodule();
    // A submodule of the submodule's, as `git submodule update --recursive` leaves its git dir.
    writeFiles(join(repo, '.git/modules/vendor/lib/modules/inner'), {
      HEAD: 'ref: refs/heads/main\n',
      config: '[core]\n\tbare = false\n',
      'hooks/README': 'x\n',
    });
    const r = await readOnly(repo, sh);
    expect(r.exitCode, r.stderr).toBe(8);
    const changes = changesOf(r) as Record<string, string[]>;
    expect([...changes.added!, ...changes.modified!]).toEqual([path]);
  });

  it.each([
    ['an fsmonitor', (m: string) => `git -C vendor/lib config core.fsmonitor "touch ${m}; false"`],
    [
      'a clean filter',
      (m: string) =>
        `git -C vendor/lib config filter.x.clean "touch ${m}; cat" && echo "* filter=x" > vendor/lib/.gitattributes`,
    ],
  ])("%s the agent writes into the submodule's config is not run by the ledger's git", async (_, cmd) => {
    const repo = repoWithSubmodule();
    const marker = join(tempDir('rho-ran-'), 'ran');
    // The same size, other bytes: git must read the file (through a clean filter) to tell.
    const r = await readOnly(repo, `${cmd(marker)} && sleep 0.1 && echo bil > vendor/lib/lib.c`);
    expect(r.exitCode, r.stderr).toBe(8);
    expect(existsSync(marker)).toBe(false);
    expect(changesOf(r)).toMatchObject({
      modified: expect.arrayContaining(['.git/modules/vendor/lib/config', 'vendor/lib']),
    });
  });
});

describe('a workspace git does not look into is walked, as one outside git', () => {
  it.each([
    ['a folder the repository ignores (scratch/)', 'scratch/\n'],
    ['a dotfiles repository in $HOME that ignores everything (*)', '*\n!.gitignore\n'],
  ])('%s: a new file and an edit are changes, --fence read-only is exit 8', async (_, ignore) => {
    const repo = userRepo();
    writeFiles(repo, { '.gitignore': ignore, 'scratch/ws/keep.txt': 'keep\n', 'scratch/ws/edit.txt': 'e\n' });
    const ws = join(repo, 'scratch/ws');
    const r = await readOnly(ws, 'echo evil > evil.sh && echo more >> edit.txt');
    expect(r.exitCode, r.stderr).toBe(8);
    expect(changesOf(r)).toEqual({
      added: ['evil.sh'],
      modified: ['edit.txt'],
      deleted: [],
      unaccounted: ['edit.txt', 'evil.sh'],
      truncated: false,
    });
    const quiet = await readOnly(ws, 'true');
    expect(quiet.exitCode, quiet.stderr).toBe(0);
  });

  it('a workspace the agent has ignored whole during the turn (from a .gitignore above it) could not be measured', async () => {
    const repo = userRepo();
    writeFiles(repo, { 'scratch/ws/keep.txt': 'keep\n' });
    const r = await readOnly(
      join(repo, 'scratch/ws'),
      'echo scratch/ >> ../../.gitignore && echo evil > evil.sh',
    );
    expect(r.exitCode, r.stderr).toBe(8);
    expect(r.events.at(-1)!.changes).toBeNull();
    expect(r.stderr).toContain('the workspace became ignored by its repository during the turn');
  });

  it('a submodule folder that is not checked out, as the workspace: a file written there is a change', async () => {
    const repo = repoWithSubmodule();
    const copy = join(tempDir('rho-clone-'), 'clone');
    git(repo, 'clone', '-q', repo, copy);
    const r = await readOnly(join(copy, 'vendor/lib'), 'echo evil > evil.sh');
    expect(r.exitCode, r.stderr).toBe(8);
    expect(changesOf(r)).toMatchObject({ added: ['evil.sh'] });
  });
});
