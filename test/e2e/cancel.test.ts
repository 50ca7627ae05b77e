// Cancelling a turn: session/cancel, the stopReason, the exit code, and nothing received is dropped.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, makeAgentDir } from '../helpers/agent-path.js';
import { finish, startCli, tempDir, waitForStdout } from '../helpers/cli.js';
import { receivedMethods } from '../helpers/replay-log.js';
import { SHORT_GRACE, testTiming } from '../helpers/timing.js';

const SJ = ['--output-format', 'stream-json'];

// Polls a file until it holds the text (a readiness marker, not a fixed sleep).
async function fileShows(path: string, text: string): Promise<void> {
  while (!(existsSync(path) && readFileSync(path, 'utf8').includes(text)))
    await new Promise((r) => setTimeout(r, 20));
}

describe('cancel', () => {
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)(
    '%s mid-turn sends session/cancel and exits %i with stopReason cancelled',
    async (signal, code) => {
      const s = startCli(['run', ...SJ, 'write an essay'], { recording: 'cancel.jsonl' });
      await waitForStdout(s.child, '"type":"message"');
      s.child.kill(signal);
      const r = await finish(s, true);
      expect(r.exitCode).toBe(code);
      expect(receivedMethods(r.log)).toContain('session/cancel');
      expect(r.events.at(-1)).toMatchObject({
        type: 'result',
        stopReason: 'cancelled',
        exitCode: code,
        error: { code: 'cancelled' },
      });
      // Every chunk the agent sent before the end is written, those between session/cancel and its
      // `cancelled` answer too (recordings/cancel.jsonl: "the Ptolemies raised", " a tower of", " pale stone").
      const text = r.events
        .filter((e) => e.type === 'message')
        .map((e) => e.text)
        .join('');
      expect(text).toMatch(/^# Keepers of the Light: A History of Lighthouses\n\n/);
      expect(text).toMatch(/Around 280 BC, the Ptolemies raised a tower of pale stone$/);
    },
  );

  it('--timeout cancels the turn and exits 124', async () => {
    const r = await finish(
      startCli(['run', ...SJ, '--timeout', '700ms', 'write an essay'], { recording: 'cancel.jsonl' }),
      true,
    );
    expect(r.exitCode).toBe(124);
    expect(receivedMethods(r.log)).toContain('session/cancel');
    expect(r.events.at(-1)).toMatchObject({ stopReason: 'cancelled', error: { code: 'run_timeout' } });
  });

  it('a second SIGINT ends at once when the agent ignores the cancel', async () => {
    const agent = join(await makeAgentDir(join(FIXTURES, 'hang-turn.mjs')), 'cursor-agent');
    const s = startCli(['run', ...SJ, 'go'], { agent });
    await waitForStdout(s.child, 'working on it');
    const t0 = Date.now();
    s.child.kill('SIGINT');
    await new Promise((r) => setTimeout(r, 100));
    s.child.kill('SIGINT');
    const r = await finish(s, true);
    expect(r.exitCode).toBe(130);
    expect(Date.now() - t0).toBeLessThan(1500);
    expect(r.events.at(-1)).toMatchObject({ type: 'result', stopReason: null, exitCode: 130 });
    expect(r.events.some((e) => e.type === 'message' && e.text === 'working on it')).toBe(true);
  });

  it('a single SIGINT gives up after a grace when the agent ignores the cancel', async () => {
    const agent = join(await makeAgentDir(join(FIXTURES, 'hang-turn.mjs')), 'cursor-agent');
    // The grace runs out in full whatever its length: a short one shows the same.
    const s = startCli(['run', ...SJ, 'go'], { agent, env: testTiming(SHORT_GRACE) });
    await waitForStdout(s.child, 'working on it');
    s.child.kill('SIGINT');
    const r = await finish(s, true);
    expect(r.exitCode).toBe(130);
  });

  it('SIGINT during the handshake ends at once with 130', async () => {
    const agent = join(await makeAgentDir(join(FIXTURES, 'silent.mjs')), 'cursor-agent');
    const ready = join(tempDir(), 'received');
    const s = startCli(['run', ...SJ, 'go'], { agent, env: { RHO_SILENT_READY: ready } });
    // The agent got initialize: the run is in its handshake, its signal handlers in place.
    await fileShows(ready, 'initialize');
    s.child.kill('SIGINT');
    const r = await finish(s, true);
    expect(r.exitCode).toBe(130);
    expect(r.events.at(-1)).toMatchObject({ type: 'result', stopReason: null });
  });
});
