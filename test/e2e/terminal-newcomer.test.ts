// At the terminal (issue 23): keys typed during the spinner are not echoed into it, and a question still
// open when the turn ends gets a closing line.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, FIXTURES, makeAgentDir } from '../helpers/agent-path.js';
import { hasPty, onPty, ptyDir } from '../helpers/pty.js';

const agentPath = makeAgentDir(join(FIXTURES, 'scripted.mjs')).then((d) => join(d, 'cursor-agent'));
const permission = {
  jsonrpc: '2.0',
  id: 0,
  method: 'session/request_permission',
  params: {
    sessionId: 'fixture-session-0001',
    toolCall: { toolCallId: 'tool_1', title: 'ls', kind: 'execute', status: 'pending' },
    options: [
      { optionId: 'allow-once', name: 'Allow', kind: 'allow_once' },
      { optionId: 'reject-once', name: 'Reject', kind: 'reject_once' },
    ],
  },
};

async function atTerminal(script: object, steps: Parameters<typeof onPty>[1], args: string[] = []) {
  const dir = ptyDir();
  return onPty([BIN, 'run', '--agent', await agentPath, ...args, 'go'], steps, {
    env: {
      RHO_SCRIPT: JSON.stringify(script),
      CURSOR_CONFIG_DIR: dir,
      TERM: 'xterm',
      NO_COLOR: '1',
      // A warning ends the spinner; silenced, it leaves it running for the keys to be typed into.
      RHO_CURSOR_NO_WARNING: 'policy-fences-nothing',
      // A person's terminal: CI (set by the runner) makes ora draw no spinner and leave stdin alone.
      CI: null,
    },
  });
}

describe.skipIf(!hasPty)('issue 23 at the terminal', () => {
  it('keys typed while the spinner runs are not echoed into it', async () => {
    const r = await atTerminal(
      { hangAt: 'session/new' },
      [{ wait: 'creating a session' }, { send: 'qwerty' }, { wait: 'step-timeout' }],
      ['--step-timeout', '3s'],
    );
    expect(r.failed, r.screen).toBeNull();
    expect(r.code).toBe(124);
    expect(r.screen).not.toContain('qwerty');
  });

  it('a question still open when the turn ends gets a closing line', async () => {
    const r = await atTerminal({ before: [permission], answerDelayMs: 4000 }, [
      { wait: '[a] allow once  [r] reject once > ' },
      { wait: 'stopReason' },
    ]);
    expect(r.failed, r.screen).toBeNull();
    expect(r.code).toBe(0);
    expect(r.screen).toMatch(/reject once > \r\n\(the turn ended before an answer: not answered\)\r\n/);
  });
});
