// rho-cursor doctor as a user runs it: the facts, the table against the spike, the exit code a run would have.
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, REPLAY_SHIM, makeAgentDir } from '../helpers/agent-path.js';
import { alive, finish, runCli, startCli, tempDir } from '../helpers/cli.js';

const JSON_OUT = ['--output-format', 'json'];
const KEY = 'sk-doctor-secret-123456';

// Runs doctor with the JSON output parsed.
async function doctorJson(args: string[] = [], o: Parameters<typeof runCli>[1] = {}) {
  const r = await runCli(['doctor', ...JSON_OUT, ...args], o);
  return { ...r, report: JSON.parse(r.stdout) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

// The table row for a fence and policy, as outcome/by strings in the order read, search, edit, execute, fetch.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const row = (report: Record<string, any>, fence: string, policy: string): string[] => {
  const r = report.table.find(
    (x: { fence: string; policy: string }) => x.fence === fence && x.policy === policy,
  );
  return ['read', 'search', 'edit', 'execute', 'fetch'].map((k) => `${r[k].outcome}/${r[k].by}`);
};

// A PATH directory holding only Cursor's newer `agent`, which leaves a marker if anyone runs it.
function newerAgentOnly(): { dir: string; marker: string } {
  const dir = mkdtempSync(join(tmpdir(), 'rho-newer-'));
  const marker = join(dir, 'was-run');
  writeFileSync(join(dir, 'agent'), `#!/bin/sh\ntouch '${marker}'\n`);
  chmodSync(join(dir, 'agent'), 0o755);
  return { dir, marker };
}

describe('doctor', () => {
  it('prints the agent, the config dir and how it was found, the files, the key (set, never its value) and the table', async () => {
    const r = await runCli(['doctor'], {
      cliConfig: {
        version: 1,
        approvalMode: 'allowlist',
        permissions: { allow: ['Shell(ls)'], deny: ['Read(.env)'] },
      },
      env: { CURSOR_API_KEY: KEY },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain(`agent            ${REPLAY_SHIM} (2026.10.01-replay) (from --agent)`);
    expect(r.stdout).toContain(`config dir       ${r.configDir} (from $CURSOR_CONFIG_DIR)`);
    expect(r.stdout).toContain(
      `cli-config.json  ${r.configDir}/cli-config.json: valid · approvalMode allowlist · allow: Shell(ls) · deny: Read(.env)`,
    );
    expect(r.stdout).toMatch(/\.cursor\/cli\.json .*: not present/);
    expect(r.stdout).toContain('CURSOR_API_KEY   set');
    expect(r.stdout).not.toContain(KEY);
    expect(r.stdout).toMatch(/^none {6}reject {2}runs {11}runs {11}runs {11}asks: rejected asks: rejected$/m);
    expect(r.stdout).toMatch(
      /^read-only allow {3}runs {11}runs {11}blocked: rule {2}blocked: rule {2}asks: rejected$/m,
    );
    expect(r.stdout.trim().split('\n').at(-1)).toBe('a run could start: exit 0');
  });

  it('under GitHub Actions the agent’s --version starts no workflow command, in text or json', async () => {
    // Found by review: the agent's own version line reached stdout with ##[add-mask] intact.
    const dir = mkdtempSync(join(tmpdir(), 'rho-doctor-gh-'));
    const agent = join(dir, 'cursor-agent');
    writeFileSync(agent, "#!/bin/sh\nprintf '2026.1 ##[add-mask]hidden \\302\\233\\n'\n");
    chmodSync(agent, 0o755);
    const env = { GITHUB_ACTIONS: 'true' };
    const text = await runCli(['doctor'], { agent, env });
    const rows = text.stdout.trimEnd().split('\n');
    const token = /^::stop-commands::(rho-[0-9a-f]{32})$/.exec(rows[0]!)?.[1];
    expect(token, text.stdout).toBeDefined();
    expect(rows.at(-1)).toBe(`::${token!}::`);
    expect(text.stdout).toContain('(2026.1 ##[add-mask]hidden <U+009B>)');
    const json = await runCli(['doctor', ...JSON_OUT], { agent, env });
    expect(json.stdout).not.toContain('##[');
    expect(json.stdout).not.toContain('\u009b');
    expect((JSON.parse(json.stdout) as { agent: { version: string } }).agent.version).toBe(
      '2026.1 ##[add-mask]hidden \u009b',
    );
  });

  it("json: unrestricted (Cursor's default) runs everything unfenced; the fences hold", async () => {
    const { exitCode, report } = await doctorJson();
    expect(exitCode).toBe(0);
    expect(report).toMatchObject({
      type: 'doctor',
      exitCode: 0,
      error: null,
      approvalMode: 'unrestricted',
      apiKey: { set: false },
    });
    expect(report.files.user).toMatchObject({ exists: false, valid: false, approvalMode: null });
    for (const p of ['reject', 'allow', 'ask'])
      expect(row(report, 'none', p)).toEqual(Array(5).fill('runs/nothing'));
    expect(row(report, 'no-shell', 'reject')).toEqual([
      'runs/nothing',
      'runs/nothing',
      'runs/nothing',
      'blocked/config rule',
      'asks-rejected/permission answer',
    ]);
    expect(row(report, 'read-only', 'allow')).toEqual([
      'runs/nothing',
      'runs/nothing',
      'blocked/config rule',
      'blocked/config rule',
      'asks-rejected/permission answer',
    ]);
    expect(report.warnings.map((w: { code: string }) => w.code)).toContain('policy-fences-nothing');
  });

  it('json: allowlist with deny Read(**) and WebFetch(*), as the spike recorded it', async () => {
    const { report } = await doctorJson([], {
      cliConfig: {
        version: 1,
        approvalMode: 'allowlist',
        permissions: { deny: ['Read(**)', 'WebFetch(*)'] },
      },
    });
    expect(row(report, 'none', 'reject')).toEqual([
      'blocked/config rule',
      'runs/nothing',
      'runs/nothing',
      'asks-rejected/permission answer',
      'asks-rejected/permission answer',
    ]);
    expect(row(report, 'none', 'ask')[3]).toBe('asks-person/permission answer');
    expect(report.warnings.map((w: { code: string }) => w.code)).toEqual(
      expect.arrayContaining(['webfetch-deny-ignored', 'read-rules-miss-search']),
    );
  });

  it('says when ALL_PROXY or HTTPS_PROXY names a socks5:// proxy, never its URL', async () => {
    const secret = 'socks5://user:pw-hidden@127.0.0.1:1080';
    for (const name of ['ALL_PROXY', 'HTTPS_PROXY']) {
      const r = await runCli(['doctor'], { env: { [name]: secret } });
      expect(r.stdout).toMatch(new RegExp(`socks-proxy: ${name} names a SOCKS proxy.*Failed to initialize`));
      expect(r.stdout + r.stderr).not.toContain('pw-hidden');
    }
    const http = await doctorJson([], { env: { ALL_PROXY: 'http://127.0.0.1:3128', HTTPS_PROXY: '' } });
    expect(http.report.warnings.map((w: { code: string }) => w.code)).not.toContain('socks-proxy');
  });

  it('--plan: plan mode blocks edits but not shell', async () => {
    const { report } = await doctorJson(['--plan'], { cliConfig: { approvalMode: 'allowlist' } });
    expect(report.plan).toBe(true);
    expect(row(report, 'none', 'allow').slice(2, 4)).toEqual([
      'blocked/plan mode',
      'asks-allowed/permission answer',
    ]);
  });

  it.each([
    ['invalid JSON', '{"version": 1,', /is not valid JSON/],
    ['an approvalMode that is not a string', '{"approvalMode": true}', /approvalMode must be a string/],
    [
      'a deny that is not an array',
      '{"permissions": {"deny": "Shell(*)"}}',
      /permissions\.deny must be an array/,
    ],
  ])('exits 2 for %s, naming the file, as a run would', async (_, text, message) => {
    const { exitCode, report, configDir } = await doctorJson([], { cliConfig: text });
    expect(exitCode).toBe(2);
    expect(report.error.code).toBe('config_invalid');
    expect(report.error.message).toMatch(message);
    expect(report.files.user).toMatchObject({
      exists: true,
      valid: false,
      path: `${configDir}/cli-config.json`,
    });
    const run = await runCli(['run', 'go'], { cliConfig: text, recording: 'tools.jsonl' });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(message);
  });

  it('exits 2 when CURSOR_CONFIG_DIR is a regular file, as a run does', async () => {
    const file = join(tempDir(), 'not-a-dir');
    writeFileSync(file, 'x');
    const { exitCode, report } = await doctorJson([], { env: { CURSOR_CONFIG_DIR: file } });
    expect(exitCode).toBe(2);
    expect(report.configDir.problem).toMatch(/is not a directory/);
    const run = await runCli(['run', 'go'], { env: { CURSOR_CONFIG_DIR: file }, recording: 'tools.jsonl' });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/CURSOR_CONFIG_DIR .* is not a directory/);
  });

  // Found by review: doctor said "a run could start: exit 0" where every run failed at once with exit 2.
  it.each([
    ['an unknown code in RHO_CURSOR_NO_WARNING', { RHO_CURSOR_NO_WARNING: 'bogus' }],
    [
      'a $GITHUB_OUTPUT in a missing folder',
      { GITHUB_ACTIONS: 'true', GITHUB_OUTPUT: '/nonexistent-rho/out', GITHUB_STEP_SUMMARY: '' },
    ],
    [
      'a $GITHUB_STEP_SUMMARY that is a directory',
      { GITHUB_ACTIONS: 'true', GITHUB_OUTPUT: '', GITHUB_STEP_SUMMARY: tmpdir() },
    ],
  ])('exits 2 for %s, with the error a run gives', async (_, env) => {
    const run = await runCli(['run', 'go'], { env, recording: 'tools.jsonl' });
    expect(run.exitCode).toBe(2);
    // Under GitHub Actions the error line comes after the guard's stop-commands line.
    const said = run.stderr.split('\n').find((l) => l.startsWith('rho-cursor: '))!;
    const { exitCode, report } = await doctorJson([], { env });
    expect(exitCode).toBe(2);
    expect(report).toMatchObject({ exitCode: 2, error: { code: 'usage' } });
    expect(said).toContain(report.error.message);
    const text = await runCli(['doctor'], { env });
    expect(text.exitCode).toBe(2);
    expect(text.stdout).toContain(`a run would fail: exit 2 (usage): ${report.error.message as string}`);
  });

  // Found by review: a command line doctor could not take wrote nothing on stdout in json (sessions writes its
  // object there for any failure).
  it.each([
    [['--bogus'], /unknown option '--bogus'/],
    [['--step-timeout', 'xyz'], /--step-timeout/],
    [['--cwd', '/nonexistent-rho-dir'], /--cwd/],
    [['--fence', 'read-only', '--allow', 'Shell(ls)'], /Shell/],
    [['extra'], /too many arguments/],
  ])(
    '--output-format json: a command line it cannot take is still one json object: %j',
    async (args, pattern) => {
      const r = await finish(
        startCli(['doctor', '--output-format', 'json', ...args], { agent: null }),
        false,
      );
      expect(r.exitCode).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(JSON.parse(r.stdout)).toEqual({
        type: 'doctor',
        exitCode: 2,
        error: { code: 'usage', message: expect.stringMatching(pattern) as unknown },
      });
    },
  );

  it('a command line it cannot take writes nothing on stdout in text', async () => {
    const r = await finish(startCli(['doctor', '--bogus'], { agent: null }), false);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
  });

  // Found by review: doctor said exit 2 for a broken Cursor config where a run of an agent that is not Cursor
  // goes on with a warning.
  it('a broken Cursor config is no error for an agent that is not Cursor: the warning a run gives, exit 0', async () => {
    const { exitCode, report } = await doctorJson(['--agent-arg', 'x'], { cliConfig: '{bad' });
    expect(exitCode).toBe(0);
    expect(report).toMatchObject({ exitCode: 0, error: null, agent: { cursor: false } });
    const w = (report.warnings as Array<{ code: string; message: string }>).find(
      (x) => x.code === 'cursor-config-ignored',
    );
    expect(w?.message).toMatch(
      /^the agent is not Cursor \(it is started with --agent-arg\), so Cursor's config is ignored: .*cli-config\.json is not valid JSON/,
    );
    // For Cursor it is the config error a run stops on.
    const cursor = await doctorJson([], { cliConfig: '{bad' });
    expect(cursor.exitCode).toBe(2);
    expect(cursor.report.error).toMatchObject({ code: 'config_invalid' });
  });

  it('a $GITHUB_OUTPUT in a missing folder is nothing outside GitHub Actions, as for a run', async () => {
    const { exitCode, report } = await doctorJson([], {
      env: { GITHUB_ACTIONS: '', GITHUB_OUTPUT: '/nonexistent-rho/out' },
    });
    expect(exitCode).toBe(0);
    expect(report.error).toBeNull();
  });

  it('ignores a relative XDG_CONFIG_HOME and says so', async () => {
    const r = await runCli(['doctor'], { env: { CURSOR_CONFIG_DIR: '', XDG_CONFIG_HOME: 'rel/config' } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /config dir {7}.*\/\.cursor \(~\/\.cursor: .*'rel\/config' ignored \(not an absolute path\)\)/,
    );
  });

  it('exits 127 when the agent is missing; where `agent` is on PATH, says so and how to pass it, and never runs it', async () => {
    const { dir, marker } = newerAgentOnly();
    const PATH = `${dir}:${dirname(process.execPath)}`;
    const { exitCode, report } = await doctorJson([], { agent: null, env: { PATH, RHO_CURSOR_AGENT: '' } });
    expect(exitCode).toBe(127);
    expect(report.agent).toMatchObject({ command: 'cursor-agent', path: null });
    expect(report.agent.newerName).toContain(
      `pass --agent ${dir}/agent or set RHO_CURSOR_AGENT=${dir}/agent`,
    );
    const run = await runCli(['run', 'go'], { agent: null, env: { PATH, RHO_CURSOR_AGENT: '' } });
    expect(run.exitCode).toBe(127);
    expect(run.stderr).toContain(`Cursor's newer installs name it \`agent\`: ${dir}/agent is on PATH`);
    expect(existsSync(marker)).toBe(false);
  });
});

describe('doctor --handshake', () => {
  it('times initialize and session/new, reports authenticated, and leaves the user config untouched', async () => {
    const agent = join(await makeAgentDir(join(FIXTURES, 'cursor-like.mjs')), 'cursor-agent');
    const home = tempDir();
    const record = join(home, 'record.ndjson');
    const config = '{"version": 1, "myOwnKey": true}';
    const r = await doctorJson(['--handshake'], { agent, cliConfig: config, env: { FAKE_RECORD: record } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.report.handshake).toMatchObject({
      initializeMs: expect.any(Number),
      sessionNewMs: expect.any(Number),
      authenticated: true,
      model: 'fixture-model',
      fence: 'read-only',
      error: null,
    });
    const file = join(r.configDir, 'cli-config.json');
    expect(createHash('sha256').update(readFileSync(file)).digest('hex')).toBe(
      createHash('sha256').update(config).digest('hex'),
    );
    const rows = readFileSync(record, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const start = rows.find((x) => x.event === 'start');
    expect(start.dir).not.toBe(r.configDir);
    expect(existsSync(start.dir)).toBe(false);
  });

  it('exits 3 when the agent needs authentication', async () => {
    const r = await doctorJson(['--handshake'], { recording: 'auth-required.jsonl' });
    expect(r.exitCode).toBe(3);
    expect(r.report.handshake).toMatchObject({ authenticated: false });
    expect(r.report.error.code).toBe('auth_required');
  });

  it('exits 124 when a step gets no answer within --step-timeout', async () => {
    const agent = join(await makeAgentDir(join(FIXTURES, 'cursor-like.mjs')), 'cursor-agent');
    const env = { FAKE_RECORD: join(tempDir(), 'record.ndjson'), FAKE_END: 'silent-new' };
    const r = await doctorJson(['--handshake', '--step-timeout', '300ms'], { agent, env });
    expect(r.exitCode).toBe(124);
    expect(r.report.error.code).toBe('step_timeout');
  });

  it.each([
    ['SIGINT', 130],
    ['SIGPWR', 158],
  ] as const)('%s mid-handshake: exit %i, the agent ended and the private dir gone', async (signal, code) => {
    const agent = join(await makeAgentDir(join(FIXTURES, 'cursor-like.mjs')), 'cursor-agent');
    const record = join(tempDir(), 'record.ndjson');
    const s = startCli(['doctor', ...JSON_OUT, '--handshake'], {
      agent,
      env: { FAKE_RECORD: record, FAKE_END: 'silent-new' },
    });
    // Ready once the agent has recorded its start (it then waits on session/new forever).
    const startRow = async (): Promise<{ pid: number; dir: string }> => {
      for (;;) {
        if (existsSync(record)) {
          const row = readFileSync(record, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l))
            .find((x) => x.event === 'start');
          if (row) return row;
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    const row = await startRow();
    process.kill(s.child.pid!, signal);
    const r = await finish(s, false);
    expect(r.exitCode).toBe(code);
    expect(JSON.parse(r.stdout).error.code).toBe('cancelled');
    expect(alive(row.pid)).toBe(false);
    expect(existsSync(dirname(row.dir))).toBe(false);
  });
});
