// The whole runner as a user sees it: the built CLI against the replay agent playing the project's recordings.
import { describe, expect, it } from 'vitest';
import { alive, runCli } from '../helpers/cli.js';
import { mismatches, receivedMethods } from '../helpers/replay-log.js';

const SJ = ['--output-format', 'stream-json'];
const types = (events: Array<Record<string, unknown>>): string[] => events.map((e) => String(e.type));
const last = <T>(a: T[]): T | undefined => a[a.length - 1];

describe('a tools turn (recordings/tools.jsonl)', () => {
  it('streams every event as NDJSON and ends with one result, exit 0', async () => {
    const r = await runCli(['run', ...SJ, 'do the five steps'], { recording: 'tools.jsonl' });
    expect(r.exitCode, r.stderr).toBe(0);
    const result = last(r.events)!;
    expect(result).toMatchObject({ type: 'result', stopReason: 'end_turn', exitCode: 0, usage: null });
    expect(types(r.events).filter((t) => t === 'result')).toHaveLength(1);
    expect(r.events.find((e) => e.type === 'session')).toMatchObject({
      model: 'composer-2.5[fast=true]',
      mode: 'agent',
    });
    expect(mismatches(r.log)).toEqual([]);
    expect(receivedMethods(r.log)).toEqual(['initialize', 'session/new', 'session/prompt']);
  });

  it('merges tool updates and cleans the new-file diff header', async () => {
    const r = await runCli(['run', ...SJ, 'go'], { recording: 'tools.jsonl' });
    const tools = r.events.filter((e) => e.type === 'tool');
    const final = new Map(tools.map((t) => [t.toolCallId, t]));
    const edits = [...final.values()].filter((t) => t.kind === 'edit');
    const created = edits.find((t) => JSON.stringify(t.output).includes('out.txt'))!;
    expect(created.status).toBe('completed');
    expect(created.output).toEqual({ diffs: [{ path: '/workspace/out.txt', oldText: null, newText: 'hi' }] });
    const grep = [...final.values()].find((t) => t.kind === 'search')!;
    expect(grep.input).toMatchObject({ pattern: expect.any(String) });
    expect(grep.output).toMatchObject({ totalMatches: expect.any(Number), truncated: false });
    const shell = [...final.values()].find((t) => t.kind === 'execute')!;
    expect(shell.output).toMatchObject({ exitCode: 0, stdout: expect.any(String), stderr: '' });
  });

  it('text mode: only the message text on stdout, the rest on stderr', async () => {
    const r = await runCli(['run', 'go'], { recording: 'tools.jsonl' });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain('All done.');
    expect(r.stdout).not.toMatch(/stopReason|thinking|execute/);
    expect(r.stderr).toMatch(/execute `ls -la` completed · exit 0/);
    expect(r.stderr).toMatch(/new file \+1/);
    expect(r.stderr.trim().split('\n').pop()).toBe('stopReason: end_turn');
  });

  it('json mode: one object with the whole text and the final tool states', async () => {
    const r = await runCli(['run', '--output-format', 'json', 'go'], { recording: 'tools.jsonl' });
    expect(r.exitCode).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const o = JSON.parse(lines[0]!);
    expect(o).toMatchObject({ type: 'result', stopReason: 'end_turn', exitCode: 0 });
    expect(o.text).toContain('All done.');
    expect(o.tools.every((t: { status: string }) => t.status === 'completed')).toBe(true);
  });

  it('leaves no agent process behind', async () => {
    const r = await runCli(['run', ...SJ, 'go'], { recording: 'tools.jsonl' });
    const start = r.log.find((e) => e.event === 'start')!;
    expect(alive(start.pid)).toBe(false);
  });
});
