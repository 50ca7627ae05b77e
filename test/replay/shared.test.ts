// The spike's six real Cursor recordings, replayed in place from ../shared/recordings (skipped where absent).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasSharedRecordings, SHARED_RECORDINGS } from '../helpers/agent-path.js';
import { finish, runCli, startCli } from '../helpers/cli.js';
import { mismatches, receivedMethods } from '../helpers/replay-log.js';

const SJ = ['--output-format', 'stream-json'];
const rec = (name: string): string => join(SHARED_RECORDINGS, name);
type Ev = Record<string, unknown>;
const finalTools = (events: Ev[]): Ev[] => [
  ...new Map(events.filter((e) => e.type === 'tool').map((t) => [t.toolCallId, t])).values(),
];

// Said once, so a clone without the spike's folder knows why six tests show as skipped.
if (!hasSharedRecordings)
  console.warn(
    `skipping the 6 tests of test/replay/shared.test.ts: the spike's real Cursor recordings are not at ${SHARED_RECORDINGS}`,
  );

describe.skipIf(!hasSharedRecordings)(
  hasSharedRecordings
    ? 'real Cursor recordings (../shared/recordings)'
    : "real Cursor recordings: skipped, ../shared/recordings (the spike's folder beside this clone) is absent",
  () => {
    it('cursor_agent_tools: read, grep, shell and two edits, normalised', async () => {
      const r = await runCli(['run', ...SJ, 'go'], { recording: rec('cursor_agent_tools.jsonl') });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(mismatches(r.log)).toEqual([]);
      const tools = finalTools(r.events);
      expect(tools.map((t) => t.kind)).toEqual(['read', 'search', 'execute', 'edit', 'edit']);
      expect(tools.every((t) => t.status === 'completed')).toBe(true);
      expect(tools[3]!.output).toEqual({
        diffs: [{ path: '/workspace/out.txt', oldText: null, newText: 'hi' }],
      });
      expect(tools[1]!.input).toEqual({ pattern: 'spike', path: '/workspace' });
      expect(r.events.at(-1)).toMatchObject({
        stopReason: 'end_turn',
        model: 'composer-2.5[fast=true]',
        title: 'Sequential Steps Agent',
      });
    });

    it('cursor_permission_reject: shell rejected once, reported rejected though Cursor says completed', async () => {
      const r = await runCli(['run', ...SJ, '--permissions', 'reject', 'go'], {
        recording: rec('cursor_permission_reject.jsonl'),
        cliConfig: { version: 1, approvalMode: 'allowlist' },
      });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(mismatches(r.log)).toEqual([]);
      const shell = finalTools(r.events).find((t) => t.kind === 'execute')!;
      expect(shell).toMatchObject({ status: 'rejected', reportedStatus: 'completed' });
      expect(r.events.filter((e) => e.type === 'warning').map((w) => w.code)).toEqual([
        'reads-edits-never-ask',
      ]);
    });

    it('cursor_plan_mode: set_mode before the prompt, shell rejected', async () => {
      const r = await runCli(['run', ...SJ, '--plan', '--permissions', 'reject', 'go'], {
        recording: rec('cursor_plan_mode.jsonl'),
        cliConfig: { version: 1, approvalMode: 'allowlist' },
      });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(mismatches(r.log)).toEqual([]);
      expect(receivedMethods(r.log).slice(0, 4)).toEqual([
        'initialize',
        'session/new',
        'session/set_mode',
        'session/prompt',
      ]);
      expect(r.events.at(-1)).toMatchObject({ mode: 'plan' });
    });

    it('cursor_deny_read_fetch: fetch asks and is allowed once with --allow fetch', async () => {
      const r = await runCli(['run', ...SJ, '--allow', 'fetch', 'go'], {
        recording: rec('cursor_deny_read_fetch.jsonl'),
        cliConfig: {
          version: 1,
          approvalMode: 'allowlist',
          permissions: { deny: ['Read(**)', 'WebFetch(*)'] },
        },
      });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(mismatches(r.log)).toEqual([]);
      expect(r.events.find((e) => e.type === 'permission')).toMatchObject({
        toolCallId: 'web_fetch_0',
        kind: 'fetch',
      });
    });

    it('cursor_ext_update_todos: the request without a sessionId is answered accepted', async () => {
      const r = await runCli(['run', ...SJ, '--plan', 'go'], {
        recording: rec('cursor_ext_update_todos.jsonl'),
      });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(mismatches(r.log)).toEqual([]);
      expect(r.events.filter((e) => e.type === 'todos').at(-1)).toMatchObject({
        source: 'cursor/update_todos',
      });
    });

    it('cursor_cancel: --timeout sends session/cancel and gets stopReason cancelled', async () => {
      const r = await finish(
        startCli(['run', ...SJ, '--timeout', '2s', 'essay'], { recording: rec('cursor_cancel.jsonl') }),
        true,
      );
      expect(r.exitCode).toBe(124);
      expect(mismatches(r.log)).toEqual([]);
      expect(r.events.at(-1)).toMatchObject({ stopReason: 'cancelled' });
    });
  },
);
