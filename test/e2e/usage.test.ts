// The command line itself: usage errors, config errors, the prompt from stdin, --model, --wire-log, schema.
import { execa } from 'execa';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN } from '../helpers/agent-path.js';
import { alive, runCli, tempDir } from '../helpers/cli.js';
import { readReplayLog, receivedMethods } from '../helpers/replay-log.js';

const SJ = ['--output-format', 'stream-json'];
const oneLine = (stderr: string): void => {
  expect(stderr.trim().split('\n'), stderr).toHaveLength(1);
  expect(stderr).not.toMatch(/\n\s+at .*:\d+:\d+/);
};

describe('usage errors exit 2 with one line naming the option', () => {
  it.each([
    [['run', '--timeout', '10x', 'go'], /--timeout/],
    [['run', '--step-timeout', '0', 'go'], /--step-timeout/],
    [['run', '--permissions', 'maybe', 'go'], /--permissions/],
    [['run', '--output-format', 'yaml', 'go'], /--output-format/],
    [['run', '--allow', 'teleport', 'go'], /--allow/],
    [['run', '--cwd', '/nonexistent/dir', 'go'], /--cwd/],
    [['run', '--bogus', 'go'], /unknown option '--bogus'/],
    [['run', '   '], /prompt is empty/],
    [['frobnicate'], /unknown command/],
  ])('%j', async (args, pattern) => {
    const r = await runCli(args, { agent: null, recording: 'tools.jsonl' });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(pattern);
    oneLine(r.stderr);
    expect(r.log).toEqual([]); // nothing was spawned
  });

  it('an empty prompt from stdin is a usage error', async () => {
    const r = await runCli(['run', '-'], { input: '\n' });
    expect(r.exitCode).toBe(2);
  });
});

describe('prompt and options', () => {
  it('reads the prompt from stdin with `-` and sends it as the prompt text', async () => {
    const r = await runCli(['run', ...SJ, '-'], {
      recording: 'tools.jsonl',
      input: 'from stdin\nsecond line',
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const prompt = r.log.find((e) => e.event === 'recv' && e.msg.method === 'session/prompt')!;
    expect(prompt.msg.params.prompt).toEqual([{ type: 'text', text: 'from stdin\nsecond line' }]);
  });

  it('reads a piped stdin when no words are given', async () => {
    const r = await runCli(['run', ...SJ], { recording: 'tools.jsonl', input: 'piped prompt' });
    expect(r.exitCode, r.stderr).toBe(0);
    const prompt = r.log.find((e) => e.event === 'recv' && e.msg.method === 'session/prompt')!;
    expect(prompt.msg.params.prompt[0].text).toBe('piped prompt');
  });

  it('takes options after the prompt words and joins the words', async () => {
    const r = await runCli(['run', 'say', 'hi', '--output-format', 'stream-json'], {
      recording: 'tools.jsonl',
    });
    expect(r.exitCode).toBe(0);
    const prompt = r.log.find((e) => e.event === 'recv' && e.msg.method === 'session/prompt')!;
    expect(prompt.msg.params.prompt[0].text).toBe('say hi');
  });

  it('spawns `--trust --model M acp` in the workspace, keeps the key off argv, and sends the absolute cwd', async () => {
    const ws = tempDir('rho-ws-');
    const r = await runCli(['run', ...SJ, '--model', 'composer-2.5', '--cwd', ws, 'go'], {
      recording: 'tools.jsonl',
      env: { CURSOR_API_KEY: 'sk-secret-123' },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const start = r.log.find((e) => e.event === 'start')!;
    expect(start.argv).toEqual(['--trust', '--model', 'composer-2.5', 'acp']);
    expect(start.cwd).toBe(ws);
    expect(start.hasApiKey).toBe(true);
    const newSession = r.log.find((e) => e.event === 'recv' && e.msg.method === 'session/new')!;
    expect(newSession.msg.params).toEqual({ cwd: ws, mcpServers: [] });
    expect(r.stdout + r.stderr).not.toContain('sk-secret-123');
    expect(r.events.at(-1)).toMatchObject({ model: 'composer-2.5[fast=true]' });
  });

  it('initialize asks for protocol 1 with no fs and no terminal, and authenticate is never called', async () => {
    const r = await runCli(['run', ...SJ, 'go'], { recording: 'tools.jsonl' });
    const init = r.log.find((e) => e.event === 'recv' && e.msg.method === 'initialize')!;
    expect(init.msg.params).toMatchObject({
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    });
    expect(receivedMethods(r.log)).not.toContain('authenticate');
  });

  it('RHO_CURSOR_AGENT names the agent when --agent is absent', async () => {
    const r = await runCli(['run', ...SJ, 'go'], {
      agent: null,
      recording: 'tools.jsonl',
      env: { RHO_CURSOR_AGENT: join(import.meta.dirname, '..', '..', 'tools', 'cursor-agent') },
    });
    expect(r.exitCode, r.stderr).toBe(0);
  });
});

describe('config', () => {
  it('stops with exit 2 naming an invalid cli-config.json, before spawning, and leaves it untouched', async () => {
    const bad = '{"version": 1, "approvalMode": ';
    const r = await runCli(['run', ...SJ, 'go'], { recording: 'tools.jsonl', cliConfig: bad });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/cli-config\.json is not valid JSON/);
    expect(r.log).toEqual([]);
    expect(readFileSync(join(r.configDir, 'cli-config.json'), 'utf8')).toBe(bad);
    expect(r.events.at(-1)).toMatchObject({ type: 'result', exitCode: 2, error: { code: 'config_invalid' } });
  });

  it('stops with exit 2 on an invalid workspace .cursor/cli.json', async () => {
    const ws = tempDir('rho-ws-');
    mkdirSync(join(ws, '.cursor'));
    writeFileSync(join(ws, '.cursor', 'cli.json'), 'not json');
    const r = await runCli(['run', '--cwd', ws, 'go'], { recording: 'tools.jsonl' });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/\.cursor\/cli\.json is not valid JSON/);
  });

  it('resolves the config dir from XDG_CONFIG_HOME when CURSOR_CONFIG_DIR is unset', async () => {
    const xdg = tempDir('rho-xdg-');
    mkdirSync(join(xdg, 'cursor'));
    writeFileSync(
      join(xdg, 'cursor', 'cli-config.json'),
      JSON.stringify({ version: 1, approvalMode: 'allowlist' }),
    );
    const r = await runCli(['run', ...SJ, 'go'], {
      recording: 'tools.jsonl',
      env: { CURSOR_CONFIG_DIR: '', XDG_CONFIG_HOME: xdg },
    });
    expect(r.events.find((e) => e.type === 'session')).toMatchObject({
      configDir: join(xdg, 'cursor'),
      configDirSource: 'XDG_CONFIG_HOME',
      approvalMode: 'allowlist',
    });
  });

  it('warns on stderr and as an event that reject fences nothing under unrestricted', async () => {
    const r = await runCli(['run', ...SJ, 'go'], {
      recording: 'tools.jsonl',
      cliConfig: { version: 1, approvalMode: 'unrestricted' },
    });
    expect(r.events.filter((e) => e.type === 'warning').map((e) => e.code)).toEqual([
      'policy-fences-nothing',
    ]);
    expect(r.stderr).toMatch(/warning: approvalMode is unrestricted/);
  });
});

describe('--wire-log', () => {
  it('writes every wire message as {dir, ms, msg} rows with a closing summary, and never the key', async () => {
    const dir = tempDir('rho-wire-');
    const file = join(dir, 'wire.jsonl');
    const r = await runCli(['run', ...SJ, '--wire-log', file, 'go'], {
      recording: 'extensions.jsonl',
      env: { CURSOR_API_KEY: 'sk-never-logged' },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain('sk-never-logged');
    const rows = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows[0]).toMatchObject({ dir: 'c2a', msg: { method: 'initialize' } });
    expect(rows.at(-1)).toMatchObject({ dir: 'summary', msg: { stop_reason: 'end_turn' } });
    expect(rows.some((row) => row.dir === 'a2c' && row.msg === '[cursor] warn: telemetry disabled')).toBe(
      true,
    );
    expect(
      rows.filter((row) => row.dir === 'c2a' && row.msg.id !== undefined && row.msg.method === undefined)
        .length,
    ).toBe(6);
    for (const row of rows) expect(typeof row.ms).toBe('number');
  });
});

describe('other commands', () => {
  it('prints the version', async () => {
    const r = await execa(BIN, ['--version'], { reject: false });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('no command prints the help on stderr and exits 2', async () => {
    const r = await execa(BIN, [], { reject: false, stdin: 'ignore' });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/Usage: rho-cursor/);
    expect(r.stdout).toBe('');
  });

  it('prints help for run listing every flag', async () => {
    const r = await execa(BIN, ['run', '--help'], { reject: false });
    expect(r.exitCode).toBe(0);
    for (const flag of [
      '--model',
      '--plan',
      '--permissions',
      '--allow',
      '--output-format',
      '--cwd',
      '--timeout',
      '--step-timeout',
      '--agent',
      '--wire-log',
    ]) {
      expect(r.stdout).toContain(flag);
    }
  });

  it('schema prints a JSON Schema that covers every event type', async () => {
    const r = await execa(BIN, ['schema'], { reject: false });
    expect(r.exitCode).toBe(0);
    const schema = JSON.parse(r.stdout);
    const text = JSON.stringify(schema);
    for (const t of [
      'session',
      'message',
      'thought',
      'tool',
      'permission',
      'question',
      'plan',
      'todos',
      'mode',
      'warning',
      'extension',
      'result',
    ]) {
      expect(text).toContain(`"const":"${t}"`);
    }
  });

  it('a reader that closes early ends the run quietly and tears the agent down', async () => {
    const dir = tempDir('rho-pipe-');
    const log = join(dir, 'replay.log');
    const r = await execa(
      'sh',
      [
        '-c',
        `"${BIN}" run --output-format stream-json --agent "${join(import.meta.dirname, '..', '..', 'tools', 'cursor-agent')}" go | head -1`,
      ],
      {
        reject: false,
        env: {
          RHO_REPLAY: join(import.meta.dirname, '..', '..', 'recordings', 'tools.jsonl'),
          RHO_REPLAY_LOG: log,
          CURSOR_CONFIG_DIR: dir,
        },
        timeout: 15_000,
      },
    );
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout).type).toBe('warning');
    expect(r.stderr).not.toMatch(/EPIPE|Error/);
    const start = readReplayLog(log).find((e) => e.event === 'start')!;
    expect(alive(start.pid)).toBe(false);
  });
});

describe('usage errors under GitHub Actions', () => {
  it('are also an ::error annotation', async () => {
    const r = await runCli(['run', '--timeout', 'abc', 'go'], { env: { GITHUB_ACTIONS: 'true' } });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/^::error title=rho-cursor::option '--timeout' takes a duration/m);
  });

  // A prompt from an issue title that starts with `--`, carrying the runner's legacy command syntax.
  const HOSTILE = '--fix ##[set-output name=safe;]true';

  it('write their lines behind the stop-commands guard, the annotation after it (found by review)', async () => {
    const r = await runCli(['run', HOSTILE], { env: { GITHUB_ACTIONS: 'true' } });
    expect(r.exitCode).toBe(2);
    const lines = r.stderr.split('\n');
    const at = lines.findIndex((l) => l.startsWith('rho-cursor: unknown option'));
    const token = /^::stop-commands::(.+)$/.exec(lines[at - 1] ?? '')?.[1];
    expect(token, r.stderr).toBeDefined();
    expect(lines[at + 1]).toBe(`::${token}::`);
    expect(lines[at + 2]).toMatch(/^::error title=rho-cursor::unknown option '--fix ##\[set-output/);
  });

  it.each(['json', 'stream-json'])('%s: the result on stdout writes ##[ as ##\\u005b', async (format) => {
    const r = await runCli(['run', '--output-format', format, HOSTILE], { env: { GITHUB_ACTIONS: 'true' } });
    expect(r.exitCode).toBe(2);
    expect(r.stdout).not.toContain('##[');
    expect(r.stdout).toContain('##\\u005bset-output');
    expect((JSON.parse(r.stdout) as { error: { message: string } }).error.message).toContain('##[set-output');
  });
});
