// Each of the project's recordings, replayed against the built CLI: what the user sees and what the agent got.
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { mismatches, receivedMethods, type ReplayEvent } from '../helpers/replay-log.js';

const SJ = ['--output-format', 'stream-json'];
type Ev = Record<string, unknown>;
const ofType = (events: Ev[], type: string): Ev[] => events.filter((e) => e.type === type);
const finalTools = (events: Ev[]): Ev[] => [
  ...new Map(ofType(events, 'tool').map((t) => [t.toolCallId, t])).values(),
];
// The client's answers to the agent's own requests, by request id.
const answers = (log: ReplayEvent[]): unknown[] =>
  log
    .filter((e) => e.event === 'recv' && e.msg && !('method' in e.msg))
    .map((e) => e.msg.result ?? e.msg.error);

describe('permission requests', () => {
  it('rejects shell once under --permissions reject and reports the tool rejected', async () => {
    const r = await runCli(['run', ...SJ, '--permissions', 'reject', 'go'], {
      recording: 'permission-reject.jsonl',
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(mismatches(r.log)).toEqual([]);
    expect(answers(r.log)).toEqual([{ outcome: { outcome: 'selected', optionId: 'reject-once' } }]);
    const [perm] = ofType(r.events, 'permission');
    expect(perm).toMatchObject({
      kind: 'execute',
      decision: { optionId: 'reject-once', kind: 'reject_once' },
      agentReason: 'Shell allowlist is empty',
    });
    const shell = finalTools(r.events).find((t) => t.kind === 'execute')!;
    expect(shell).toMatchObject({ status: 'rejected', reportedStatus: 'completed', output: null });
  });

  it('allows once under --permissions allow, never allow-always', async () => {
    const r = await runCli(['run', ...SJ, '--permissions', 'allow', 'go'], {
      recording: 'permission-allow.jsonl',
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(answers(r.log)).toEqual([{ outcome: { outcome: 'selected', optionId: 'allow-once' } }]);
    expect(finalTools(r.events).find((t) => t.kind === 'execute')).toMatchObject({ status: 'completed' });
  });

  it('--allow execute allows shell once under reject', async () => {
    const r = await runCli(['run', ...SJ, '--permissions', 'reject', '--allow', 'execute', 'go'], {
      recording: 'permission-allow.jsonl',
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(ofType(r.events, 'permission')[0]).toMatchObject({ decidedBy: 'allow-flag' });
  });

  it('defaults to reject without a terminal', async () => {
    const r = await runCli(['run', ...SJ, 'go'], { recording: 'permission-reject.jsonl' });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.events.find((e) => e.type === 'session')).toMatchObject({ permissions: 'reject' });
    expect(mismatches(r.log)).toEqual([]);
  });

  it('a wrong answer is caught by the replay (the suite can fail)', async () => {
    const r = await runCli(['run', ...SJ, '--permissions', 'allow', 'go'], {
      recording: 'permission-reject.jsonl',
    });
    expect(r.exitCode).toBe(1);
    expect(mismatches(r.log)).toHaveLength(1);
    expect(r.stderr).toMatch(/exited with code 86/);
  });

  it('fetch asks under allowlist and --allow fetch allows it once', async () => {
    const r = await runCli(['run', ...SJ, '--allow', 'fetch', 'go'], {
      recording: 'deny-read-fetch.jsonl',
      cliConfig: {
        version: 1,
        approvalMode: 'allowlist',
        permissions: { allow: [], deny: ['Read(**)', 'WebFetch(*)'] },
      },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(mismatches(r.log)).toEqual([]);
    expect(ofType(r.events, 'permission')[0]).toMatchObject({
      toolCallId: 'web_fetch_0',
      kind: 'fetch',
      decision: { optionId: 'allow-once' },
    });
    const codes = ofType(r.events, 'warning').map((w) => w.code);
    expect(codes).toEqual(
      expect.arrayContaining(['webfetch-deny-ignored', 'read-rules-miss-search', 'reads-edits-never-ask']),
    );
    expect(r.stderr).toMatch(/WebFetch\(\.\.\.\) deny rules/);
  });
});

describe('plan mode', () => {
  it('sets plan mode after session/new and before the prompt, and reports it', async () => {
    const r = await runCli(['run', ...SJ, '--plan', '--permissions', 'reject', 'go'], {
      recording: 'plan-mode.jsonl',
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(receivedMethods(r.log).filter((m) => !m.startsWith('response'))).toEqual([
      'initialize',
      'session/new',
      'session/set_mode',
      'session/prompt',
    ]);
    const setMode = r.log.find((e) => e.event === 'recv' && e.msg.method === 'session/set_mode')!;
    expect(setMode.msg.params).toMatchObject({ modeId: 'plan' });
    expect(ofType(r.events, 'mode')).toEqual([{ type: 'mode', mode: 'plan' }]);
    expect(r.events.at(-1)).toMatchObject({ mode: 'plan' });
  });

  it('warns that plan mode does not block shell under unrestricted with --fence none', async () => {
    const r = await runCli(['run', ...SJ, '--plan', '--fence', 'none', '--permissions', 'reject', 'go'], {
      recording: 'plan-mode.jsonl',
    });
    expect(ofType(r.events, 'warning').map((w) => w.code)).toContain('plan-allows-shell');
  });

  it('--plan alone runs read-only, so there is nothing to warn about shell', async () => {
    const r = await runCli(['run', ...SJ, '--plan', '--permissions', 'reject', 'go'], {
      recording: 'plan-mode.jsonl',
    });
    const codes = ofType(r.events, 'warning').map((w) => w.code);
    expect(codes).not.toContain('plan-allows-shell');
    expect(codes).not.toContain('policy-fences-nothing');
    expect(r.events.find((e) => e.type === 'session')).toMatchObject({ fence: { name: 'read-only' } });
  });

  it('exits 1 when the agent refuses plan mode, and never prompts', async () => {
    const r = await runCli(['run', ...SJ, '--plan', 'go'], { recording: 'plan-refused.jsonl' });
    expect(r.exitCode).toBe(1);
    expect(r.events.at(-1)).toMatchObject({
      type: 'result',
      stopReason: null,
      error: { code: 'plan_refused' },
    });
    expect(receivedMethods(r.log)).not.toContain('session/prompt');
  });

  it('answers cursor/update_todos at once and shows the todos', async () => {
    const r = await runCli(['run', ...SJ, '--plan', 'go'], { recording: 'update-todos.jsonl' });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(mismatches(r.log)).toEqual([]);
    const todos = ofType(r.events, 'todos');
    expect(todos.map((t) => t.source)).toEqual(expect.arrayContaining(['tool', 'cursor/update_todos']));
    const last = todos.at(-1)!.todos as Array<{ status: string }>;
    expect(last.every((t) => !t.status.startsWith('TODO_STATUS'))).toBe(true);
  });
});

describe('extensions and odd lines', () => {
  it('answers every extension request and keeps unknown messages as extension events', async () => {
    const r = await runCli(['run', ...SJ, '--permissions', 'reject', 'go'], {
      recording: 'extensions.jsonl',
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(mismatches(r.log)).toEqual([]);
    const q = ofType(r.events, 'question');
    expect(q.map((e) => e.source)).toEqual(['cursor/ask_question', 'session/request_permission']);
    expect(q.every((e) => (e.answer as { outcome: string }).outcome === 'skipped')).toBe(true);
    expect(ofType(r.events, 'plan')[0]).toMatchObject({ answer: { outcome: 'rejected' } });
    const methods = ofType(r.events, 'extension').map((e) => e.method);
    expect(methods).toEqual(
      expect.arrayContaining(['cursor/task', 'cursor/generate_image', 'cursor/canvas']),
    );
    const updates = ofType(r.events, 'extension').map(
      (e) => (e.params as { update?: { sessionUpdate?: string } })?.update?.sessionUpdate,
    );
    expect(updates).toContain('subagent_spawned');
  });

  it('turns a non-JSON line into a warning and never answers it', async () => {
    const r = await runCli(['run', ...SJ, '--permissions', 'reject', 'go'], {
      recording: 'extensions.jsonl',
    });
    const w = ofType(r.events, 'warning').find((e) => e.code === 'agent-non-json')!;
    expect(w.line).toBe('[cursor] warn: telemetry disabled');
    const sent = r.log.filter((e) => e.event === 'recv').map((e) => JSON.stringify(e.msg));
    expect(sent.some((s) => s.includes('-32700'))).toBe(false);
  });

  it('text mode shows the plan, questions and permission decisions on stderr', async () => {
    const r = await runCli(['run', '--permissions', 'reject', 'go'], { recording: 'extensions.jsonl' });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(/question .* → skipped/);
    expect(r.stderr).toMatch(/plan.* → rejected/);
  });

  it('warns when an end_turn reply reads as an API error', async () => {
    const r = await runCli(['run', ...SJ, 'go'], { recording: 'retriable-error.jsonl' });
    expect(r.exitCode).toBe(0);
    expect(ofType(r.events, 'warning').map((w) => w.code)).toContain('reply-looks-like-error');
  });
});

describe('stop reasons and exit codes', () => {
  it.each([
    ['refusal.jsonl', 5, 'refusal'],
    ['max-tokens.jsonl', 4, 'max_tokens'],
  ])('%s exits %i', async (recording, code, reason) => {
    const r = await runCli(['run', ...SJ, 'go'], { recording });
    expect(r.exitCode).toBe(code);
    // The error code table's code, as --max-tool-calls sets its own.
    expect(r.events.at(-1)).toMatchObject({
      type: 'result',
      stopReason: reason,
      exitCode: code,
      error: { code: reason, message: expect.stringContaining(`stopReason ${reason}`) as unknown },
    });
    const text = await runCli(['run', 'go'], { recording });
    expect(text.exitCode).toBe(code);
    expect(text.stderr).toContain(`stopReason: ${reason}\nrho-cursor: `);
  });

  it('authRequired exits 3 with the hint and never calls authenticate', async () => {
    const r = await runCli(['run', ...SJ, 'go'], { recording: 'auth-required.jsonl' });
    expect(r.exitCode).toBe(3);
    expect(r.events.at(-1)).toMatchObject({ type: 'result', error: { code: 'auth_required' } });
    expect(r.stderr).toMatch(/CURSOR_API_KEY.*cursor-agent login/);
    expect(receivedMethods(r.log)).not.toContain('authenticate');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
