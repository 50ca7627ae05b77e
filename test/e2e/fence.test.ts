// Fences as a user meets them: the built CLI against a fake Cursor that records what it was given and, like
// Cursor, rewrites its config and refreshes its login. The user's cli-config.json must come out byte-identical
// and the private dir gone however the run ends; the refreshed login must come home.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, makeAgentDir } from '../helpers/agent-path.js';
import { finish, startCli, tempDir, type CliOptions, waitForStdout } from '../helpers/cli.js';

const SJ = ['--output-format', 'stream-json'];
const USER_CONFIG =
  '{\n  "version": 1,\n  "approvalMode": "unrestricted",\n  "permissions": { "allow": ["Shell(ls)", "WebFetch(*)"], "deny": [] },\n  "myOwnKey": "kept"\n}\n';
const OLD_LOGIN = '{"token":"old"}';

let agent: string;
beforeAll(async () => {
  agent = join(await makeAgentDir(join(FIXTURES, 'cursor-like.mjs')), 'cursor-agent');
});

const sha = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

interface Row {
  event: string;
  [k: string]: unknown;
}

// A user's config dir with a config, a login and a subdirectory; and the file the fake agent records into.
function userSetup(): { dir: string; record: string; hash: string } {
  const home = tempDir('rho-fence-e2e-');
  const dir = join(home, 'cursor');
  mkdirSync(join(dir, 'projects'), { recursive: true });
  writeFileSync(join(dir, 'cli-config.json'), USER_CONFIG);
  writeFileSync(join(dir, 'auth.json'), OLD_LOGIN, { mode: 0o600 });
  writeFileSync(join(dir, 'projects', 'p.json'), '{}');
  return { dir, record: join(home, 'record.ndjson'), hash: sha(join(dir, 'cli-config.json')) };
}

const rowsOf = (record: string): Row[] =>
  existsSync(record)
    ? readFileSync(record, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Row)
    : [];

// Starts the CLI against the fake Cursor with the user's dir as CURSOR_CONFIG_DIR.
function start(
  args: string[],
  u: ReturnType<typeof userSetup>,
  env: Record<string, string> = {},
  o: CliOptions = {},
) {
  return startCli(args, {
    agent,
    ...o,
    env: { CURSOR_CONFIG_DIR: u.dir, FAKE_RECORD: u.record, ...env },
  });
}

// What must hold after every fenced run, however it ended.
function expectNothingLost(u: ReturnType<typeof userSetup>): Row {
  const startRow = rowsOf(u.record).find((r) => r.event === 'start')!;
  expect(startRow, 'the agent started').toBeDefined();
  expect(startRow.dir).not.toBe(u.dir);
  expect(sha(join(u.dir, 'cli-config.json'))).toBe(u.hash);
  expect(existsSync(startRow.dir as string), 'the private dir is removed').toBe(false);
  expect(existsSync(dirname(startRow.dir as string)), 'with the run dir around it').toBe(false);
  expect(JSON.parse(readFileSync(join(u.dir, 'auth.json'), 'utf8'))).toEqual({
    token: `refreshed-${String(startRow.pid)}`,
  });
  expect(readFileSync(join(u.dir, 'statsig-cache.json'), 'utf8')).toBe('{"new":true}');
  return startRow;
}

describe('the private config dir', () => {
  it('gives the agent a 0700 mirror of the user dir with the overlay, and keeps the user file intact', async () => {
    const u = userSetup();
    const r = await finish(start(['run', ...SJ, '--fence', 'read-only', 'go'], u), true);
    expect(r.exitCode, r.stderr).toBe(0);
    const row = expectNothingLost(u);
    expect(row.mode).toBe(0o700);
    expect(row.files).toEqual(['auth.json', 'cli-config.json', 'projects']);
    expect(row.login).toBe(OLD_LOGIN);
    expect(row.config).toEqual({
      version: 1,
      approvalMode: 'allowlist',
      permissions: { allow: ['Shell(ls)'], deny: ['Shell(*)', 'Write(**)'] },
      myOwnKey: 'kept',
    });
    expect(r.events.find((e) => e.type === 'session')).toMatchObject({
      configDir: u.dir,
      fence: { name: 'read-only', blocked: ['edit', 'execute', 'fetch'], open: ['read', 'search'] },
    });
  });

  it('under no-shell the overlay denies Shell(*) only', async () => {
    const u = userSetup();
    const r = await finish(start(['run', ...SJ, '--fence', 'no-shell', 'go'], u), true);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(expectNothingLost(u).config).toMatchObject({
      approvalMode: 'allowlist',
      permissions: { allow: ['Shell(ls)', 'WebFetch(*)'], deny: ['Shell(*)'] },
    });
  });

  it('starts from {"version": 1} where the user has no cli-config.json, and writes none for them', async () => {
    const u = userSetup();
    const { rmSync } = await import('node:fs');
    rmSync(join(u.dir, 'cli-config.json'));
    const r = await finish(start(['run', ...SJ, '--fence', 'no-shell', 'go'], u), true);
    expect(r.exitCode, r.stderr).toBe(0);
    const row = rowsOf(u.record).find((x) => x.event === 'start')!;
    expect(row.config).toEqual({
      version: 1,
      approvalMode: 'allowlist',
      permissions: { allow: [], deny: ['Shell(*)'] },
    });
    expect(existsSync(join(u.dir, 'cli-config.json'))).toBe(false);
  });

  it('--plan alone runs the agent fenced read-only', async () => {
    const u = userSetup();
    const r = await finish(start(['run', ...SJ, '--plan', 'go'], u), true);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(expectNothingLost(u).config).toMatchObject({ permissions: { deny: ['Shell(*)', 'Write(**)'] } });
  });

  it('--fence none gives the agent the user dir itself, as before', async () => {
    const u = userSetup();
    const r = await finish(start(['run', ...SJ, 'go'], u), true);
    expect(r.exitCode, r.stderr).toBe(0);
    const row = rowsOf(u.record).find((x) => x.event === 'start')!;
    expect(row.dir).toBe(u.dir);
    expect(r.events.find((e) => e.type === 'session')).toMatchObject({
      fence: { name: 'none', blocked: [] },
    });
  });
});

describe('nothing of the user lost, however the run ends', () => {
  it('the agent crashes mid-turn: exit 1', async () => {
    const u = userSetup();
    const r = await finish(
      start(['run', ...SJ, '--fence', 'read-only', 'go'], u, { FAKE_END: 'crash' }),
      true,
    );
    expect(r.exitCode).toBe(1);
    expect(r.events.at(-1)).toMatchObject({ error: { code: 'agent_exited' } });
    expectNothingLost(u);
  });

  it('session/new never answers: --step-timeout, exit 124', async () => {
    const u = userSetup();
    // The step timeout covers initialize too: long enough for the agent to start on a loaded machine (at
    // 300 ms it was ended before it wrote its start row once, with a second test suite running).
    const s = start(['run', ...SJ, '--fence', 'no-shell', '--step-timeout', '1s', 'go'], u, {
      FAKE_END: 'silent-new',
    });
    const r = await finish(s, true);
    expect(r.exitCode).toBe(124);
    expect(r.events.at(-1)).toMatchObject({ error: { code: 'step_timeout' } });
    expectNothingLost(u);
  });

  it('--timeout mid-turn: exit 124', async () => {
    const u = userSetup();
    // Long enough for the handshake and the ledger's snapshot on a loaded machine (800 ms once ran out before
    // the prompt was sent, with other suites beside it): the timeout must fall mid-turn.
    const r = await finish(
      start(['run', ...SJ, '--fence', 'read-only', '--timeout', '2s', 'go'], u, { FAKE_END: 'hang' }),
      true,
    );
    expect(r.exitCode).toBe(124);
    expect(r.events.at(-1)).toMatchObject({ stopReason: 'cancelled', error: { code: 'run_timeout' } });
    expectNothingLost(u);
  });

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGPWR', 158],
  ] as const)('%s mid-turn: exit %i', async (signal, code) => {
    const u = userSetup();
    const s = start(['run', ...SJ, '--fence', 'read-only', 'go'], u, { FAKE_END: 'hang' });
    await waitForStdout(s.child, 'working');
    process.kill(s.child.pid!, signal);
    const r = await finish(s, true);
    expect(r.exitCode).toBe(code);
    expectNothingLost(u);
  });
});

describe('a run killed outright', () => {
  it('SIGKILL leaves the dir, and the next fenced run carries it back and removes it', async () => {
    const u = userSetup();
    const s = start(['run', ...SJ, '--fence', 'read-only', 'go'], u, { FAKE_END: 'hang' });
    await waitForStdout(s.child, 'working');
    s.child.kill('SIGKILL');
    await s.child;
    const first = rowsOf(u.record).find((r) => r.event === 'start')!;
    // Nothing could end the agent either: it is in its own process group. The test does.
    process.kill(first.pid as number, 'SIGKILL');
    expect(existsSync(first.dir as string)).toBe(true);
    writeFileSync(join(u.dir, 'auth.json'), OLD_LOGIN);
    const next = userSetup();
    const r = await finish(start(['run', ...SJ, '--fence', 'no-shell', 'go'], next), true);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(existsSync(dirname(first.dir as string))).toBe(false);
    expect(JSON.parse(readFileSync(join(u.dir, 'auth.json'), 'utf8'))).toEqual({
      token: `refreshed-${String(first.pid)}`,
    });
    expect(sha(join(u.dir, 'cli-config.json'))).toBe(u.hash);
  });
});

describe('what the fence answers', () => {
  // The answers the fake agent got, by toolCallId.
  const answers = (record: string): Record<string, string> =>
    Object.fromEntries(
      rowsOf(record)
        .filter((r) => r.event === 'answer')
        .map((r) => [
          r.toolCallId as string,
          (r.answer as { optionId?: string } | undefined)?.optionId ?? 'cancelled',
        ]),
    );

  it('read-only rejects every request, even under --permissions allow, and an edit its rule stopped shows rejected', async () => {
    const u = userSetup();
    const r = await finish(
      start(['run', ...SJ, '--fence', 'read-only', '--permissions', 'allow', 'go'], u, { FAKE_TOOLS: '1' }),
      true,
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(answers(u.record)).toEqual({
      tool_shell_1: 'reject-once',
      web_search_0: 'reject-once',
      web_fetch_0: 'reject-once',
    });
    const finalTools = new Map(r.events.filter((e) => e.type === 'tool').map((t) => [t.toolCallId, t]));
    expect(finalTools.get('tool_edit_1')).toMatchObject({ status: 'rejected', reportedStatus: 'completed' });
    expect(finalTools.get('tool_shell_1')).toMatchObject({ status: 'rejected' });
    expect(finalTools.get('web_fetch_0')).toMatchObject({ status: 'rejected' });
  });

  it('no-shell rejects shell and leaves the network to --allow fetch', async () => {
    const u = userSetup();
    const r = await finish(
      start(['run', ...SJ, '--fence', 'no-shell', '--permissions', 'reject', '--allow', 'fetch', 'go'], u, {
        FAKE_TOOLS: '1',
      }),
      true,
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(answers(u.record)).toEqual({
      tool_shell_1: 'reject-once',
      web_search_0: 'allow-once',
      web_fetch_0: 'allow-once',
    });
    const edit = r.events.filter((e) => e.type === 'tool' && e.toolCallId === 'tool_edit_1').at(-1);
    expect(edit).toMatchObject({ status: 'completed' });
  });

  it('--allow search never opens the network, with no fence at all', async () => {
    const u = userSetup();
    const r = await finish(
      start(['run', ...SJ, '--permissions', 'reject', '--allow', 'search', '--allow', 'execute', 'go'], u, {
        FAKE_TOOLS: '1',
      }),
      true,
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(answers(u.record)).toEqual({
      tool_shell_1: 'allow-once',
      web_search_0: 'reject-once',
      web_fetch_0: 'reject-once',
    });
  });

  it.each([
    [
      ['--fence', 'no-shell', '--allow', 'execute'],
      /'--allow execute' cannot reopen what --fence no-shell closes/,
    ],
    [
      ['--fence', 'read-only', '--allow', 'fetch'],
      /'--allow fetch' cannot reopen what --fence read-only closes/,
    ],
    [['--plan', '--allow', 'execute'], /implied by --plan/],
    [['--fence', 'walls'], /--fence/],
  ])('%j is a usage error before anything is spawned', async (args, message) => {
    const u = userSetup();
    const r = await finish(start(['run', ...args, 'go'], u), false);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(rowsOf(u.record)).toEqual([]);
  });

  it('text mode prints the fence as one line', async () => {
    const u = userSetup();
    const r = await finish(start(['run', '--fence', 'no-shell', 'go'], u), false);
    expect(r.exitCode, r.stderr).toBe(0);
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('fence '));
    expect(lines).toEqual([
      'fence no-shell: blocks execute · open: read, search (grep and glob: no rule reaches them), edit, fetch',
    ]);
    expect(r.stdout.trim()).toBe('done');
  });
});
