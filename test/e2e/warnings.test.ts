// Warnings a user can put away: by following their advice, or by silencing their code once read.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';

const SJ = ['--output-format', 'stream-json'];
const codes = (events: Array<Record<string, unknown>>): unknown[] =>
  events.filter((e) => e.type === 'warning').map((e) => e.code);

describe.concurrent('silencing warnings by code', () => {
  it('--no-warning <code>: not on stderr, not in the summary; the event stays in stream-json', async () => {
    const dir = tempDir('rho-warn-');
    const [loud, quiet, quietSj] = await Promise.all([
      runCli(['run', '--summary-file', join(dir, 'loud.md'), 'go'], { recording: 'tools.jsonl' }),
      runCli(
        ['run', '--no-warning', 'policy-fences-nothing', '--summary-file', join(dir, 'quiet.md'), 'go'],
        {
          recording: 'tools.jsonl',
        },
      ),
      runCli(['run', ...SJ, '--no-warning', 'policy-fences-nothing', 'go'], { recording: 'tools.jsonl' }),
    ]);
    for (const r of [loud, quiet, quietSj]) expect(r.exitCode, r.stderr).toBe(0);
    expect(loud.stderr).toMatch(/warning: approvalMode is unrestricted/);
    expect(readFileSync(join(dir, 'loud.md'), 'utf8')).toContain('policy-fences-nothing');
    expect(quiet.stderr).not.toMatch(/warning/);
    expect(readFileSync(join(dir, 'quiet.md'), 'utf8')).not.toContain('policy-fences-nothing');
    expect(codes(quietSj.events)).toEqual(['policy-fences-nothing']);
    expect(quietSj.stderr).not.toMatch(/warning/);
  });

  it('RHO_CURSOR_NO_WARNING=code,code silences each, and --no-warning adds to it', async () => {
    const r = await runCli(['run', '--no-warning', 'reply-looks-like-error', 'go'], {
      recording: 'retriable-error.jsonl',
      input: 'piped and unread',
      env: { RHO_CURSOR_NO_WARNING: 'policy-fences-nothing, stdin-ignored' },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/warning/);
    const loud = await runCli(['run', 'go'], {
      recording: 'retriable-error.jsonl',
      input: 'piped and unread',
    });
    expect(loud.stderr.match(/warning: /g)).toHaveLength(3);
  });

  it.each([
    [
      ['--no-warning', 'policy-fences-nuthing'],
      {},
      /--no-warning: no warning has the code 'policy-fences-nuthing'/,
    ],
    [
      [],
      { RHO_CURSOR_NO_WARNING: 'stdin-ignored,nope' },
      /RHO_CURSOR_NO_WARNING: no warning has the code 'nope'/,
    ],
  ])('an unknown code is a usage error naming it: %j %j', async (args, env, message) => {
    const r = await runCli(['run', ...args, 'go'], { recording: 'tools.jsonl', env });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).toContain('(see --help)');
    expect(r.log).toEqual([]);
  });
});

describe.concurrent('warnings that follow advice', () => {
  it('under GitHub Actions each warning is printed once: its annotation', async () => {
    for (const format of [[], SJ]) {
      const r = await runCli(['run', ...format, 'go'], {
        recording: 'tools.jsonl',
        env: { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: '', GITHUB_OUTPUT: '' },
      });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr.match(/approvalMode is unrestricted/g)).toHaveLength(1);
      expect(r.stdout).not.toMatch(/^::warning/m);
      expect(r.stderr).toMatch(
        /^::warning title=rho-cursor policy-fences-nothing::approvalMode is unrestricted/m,
      );
    }
  });

  it('allowlist, then --no-warning for what it leaves open, is a run without warnings', async () => {
    const allowlist = { version: 1, approvalMode: 'allowlist' };
    const [told, done, fenced] = await Promise.all([
      runCli(['run', ...SJ, 'go'], { recording: 'tools.jsonl', cliConfig: allowlist }),
      runCli(['run', ...SJ, '--no-warning', 'reads-edits-never-ask', 'go'], {
        recording: 'tools.jsonl',
        cliConfig: allowlist,
      }),
      runCli(['run', '--fence', 'no-shell', 'go'], { recording: 'tools.jsonl', cliConfig: allowlist }),
    ]);
    expect(codes(told.events)).toEqual(['reads-edits-never-ask']);
    expect(told.stderr).toContain('reads and edits never ask permission under allowlist');
    expect(done.stderr).not.toMatch(/warning/);
    // Under a fence the fence line says what stays open; no warning repeats it (nor says "edit never ask").
    expect(fenced.stderr).not.toMatch(/warning|edit never ask/);
    expect(fenced.stderr).toMatch(/fence no-shell/);
  });
});
