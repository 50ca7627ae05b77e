import { describe, expect, it } from 'vitest';
import { ERRORS, EXIT } from '../../src/errors.js';
import { exitCodeRows, runHelpAfter } from '../../src/help.js';
import { stdoutBeforeRun } from '../../src/render/early.js';
import { RhoError } from '../../src/errors.js';

describe('help', () => {
  it('lists every exit code, and every error code under its exit code', () => {
    const rows = exitCodeRows();
    expect(rows.map(([n]) => Number(n))).toEqual([...new Set(Object.values(EXIT))].sort((a, b) => a - b));
    const text = rows.map(([, d]) => d).join('\n');
    for (const code of Object.keys(ERRORS)) expect(text).toContain(code);
    expect(rows.find(([n]) => n === '124')?.[1]).toMatch(/step_timeout, run_timeout, idle_timeout/);
  });

  it('has examples, `--` and the environment', () => {
    const t = runHelpAfter();
    expect(t).toMatch(/Examples:\n {2}rho-cursor run/);
    expect(t).toContain('rho-cursor run -- explain what --version does');
    expect(t).toMatch(/Environment:\n {2}CURSOR_API_KEY/);
  });

  // Found by review: variables a run reads were missing from the list.
  it.each(['TMPDIR', 'GIT_DIR', 'GIT_WORK_TREE', 'GITHUB_ENV', 'GITHUB_PATH', 'GITHUB_STATE'])(
    'the environment lists %s',
    (name) => {
      const env = runHelpAfter().split('Environment:\n')[1]!.split('\n\n')[0]!;
      expect(env).toMatch(new RegExp(`^ {2}${name} +\\S`, 'm'));
    },
  );
});

describe('stdoutBeforeRun', () => {
  const err = new RhoError('usage', "option '--timeout' takes a duration");
  it.each([
    ['text', ''],
    [undefined, ''],
  ] as const)('%s writes nothing on stdout', (format, out) => {
    expect(stdoutBeforeRun(format, err, 3)).toBe(out);
  });

  it('stream-json writes the result event alone', () => {
    expect(JSON.parse(stdoutBeforeRun('stream-json', err, 3))).toEqual({
      type: 'result',
      stopReason: null,
      exitCode: 2,
      sessionId: null,
      model: null,
      mode: null,
      title: null,
      durationMs: 3,
      timings: { initializeMs: null, sessionNewMs: null, promptMs: null },
      usage: null,
      structured: null,
      error: { code: 'usage', message: "option '--timeout' takes a duration" },
    });
  });

  it('json writes the whole object with empty collections', () => {
    expect(JSON.parse(stdoutBeforeRun('json', err, 3))).toMatchObject({
      type: 'result',
      text: '',
      tools: [],
      todos: [],
    });
  });
});
