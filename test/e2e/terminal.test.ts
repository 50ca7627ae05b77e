// A person at a terminal: under a pseudo-terminal (util-linux `script`), --permissions ask prompts and sends the choice.
import { execa } from 'execa';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, RECORDINGS, REPLAY_SHIM } from '../helpers/agent-path.js';
import { mismatches, readReplayLog } from '../helpers/replay-log.js';

const hasScript = existsSync('/usr/bin/script');

// Runs the CLI on a pty, types `keys` once the choice menu shows, and returns the screen text and the replay log.
async function onTerminal(
  recording: string,
  keys: string,
): Promise<{ screen: string; code: number | undefined; log: ReturnType<typeof readReplayLog> }> {
  const dir = mkdtempSync(join(tmpdir(), 'rho-pty-'));
  const log = join(dir, 'replay.log');
  const cmd = `stty cols 120 rows 40; exec "${BIN}" run --agent "${REPLAY_SHIM}" "do the steps"`;
  const child = execa('script', ['-qefc', cmd, '/dev/null'], {
    reject: false,
    stdin: 'pipe',
    timeout: 15_000,
    env: {
      RHO_REPLAY: join(RECORDINGS, recording),
      RHO_REPLAY_LOG: log,
      CURSOR_CONFIG_DIR: dir,
      NO_COLOR: '1',
    },
  });
  let screen = '';
  let typed = false;
  child.stdout!.on('data', (d: Buffer) => {
    screen += d.toString();
    if (!typed && screen.includes('reject once >')) {
      typed = true;
      child.stdin!.write(keys);
    }
  });
  const r = await child;
  return { screen, code: r.exitCode, log: readReplayLog(log) };
}

describe.skipIf(!hasScript)('--permissions ask at a terminal', () => {
  it('shows the command and the reason Cursor gives, and sends the once option the person picks', async () => {
    const r = await onTerminal('permission-allow.jsonl', 'a\r');
    expect(r.screen).toMatch(/Cursor asks permission to execute: `wc -l hello.txt`/);
    expect(r.screen).toMatch(/command: wc -l hello.txt/);
    expect(r.screen).toMatch(/reason: Shell allowlist is empty/);
    expect(r.screen).not.toMatch(/allow always/i);
    expect(r.code).toBe(0);
    expect(mismatches(r.log)).toEqual([]);
    const answer = r.log.find((e) => e.event === 'recv' && e.msg.id === 0 && !e.msg.method)!;
    expect(answer.msg.result).toEqual({ outcome: { outcome: 'selected', optionId: 'allow-once' } });
  });

  it('Ctrl-C at the question cancels the turn and answers the request cancelled', async () => {
    const r = await onTerminal('permission-allow.jsonl', '\x03');
    expect(r.code).toBe(130);
    const methods = r.log
      .filter((e) => e.event === 'recv')
      .map((e) => e.msg.method ?? e.msg.result?.outcome?.outcome);
    expect(methods).toEqual(expect.arrayContaining(['session/cancel', 'cancelled']));
  });
});
