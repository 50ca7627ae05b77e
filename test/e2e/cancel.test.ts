// Cancelling a turn: session/cancel, the stopReason, the exit code, and nothing received is dropped.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, makeAgentDir } from '../helpers/agent-path.js';
import { finish, startCli, waitForStdout } from '../helpers/cli.js';
import { receivedMethods } from '../helpers/replay-log.js';

const SJ = ['--output-format', 'stream-json'];

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
      // Every chunk the agent sent before the end is written, the late one after the cancel too.
      const sent = r.log.length > 0;
      expect(sent).toBe(true);
      expect(r.events.filter((e) => e.type === 'message').length).toBeGreaterThanOrEqual(3);
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
    const s = startCli(['run', ...SJ, 'go'], { agent });
    await waitForStdout(s.child, 'working on it');
    s.child.kill('SIGINT');
    const r = await finish(s, true);
    expect(r.exitCode).toBe(130);
  });

  it('SIGINT during the handshake ends at once with 130', async () => {
    const agent = join(await makeAgentDir(join(FIXTURES, 'silent.mjs')), 'cursor-agent');
    const s = startCli(['run', ...SJ, 'go'], { agent });
    await new Promise((r) => setTimeout(r, 400));
    s.child.kill('SIGINT');
    const r = await finish(s, true);
    expect(r.exitCode).toBe(130);
    expect(r.events.at(-1)).toMatchObject({ type: 'result', stopReason: null });
  });
});
