// $/cancel_request from the SDK-built peer while a person is being asked (under a pty, util-linux `script`):
// the question closes by itself, and the withdrawn request is never answered.
import { execa } from 'execa';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN } from '../helpers/agent-path.js';
import { tempDir } from '../helpers/cli.js';
import { peerAgent, readPeerLog } from '../peer/run.js';
import { OPTIONS, type Script } from '../peer/script.js';

const hasScript = existsSync('/usr/bin/script');

describe.skipIf(!hasScript)('a permission request the agent withdraws', () => {
  it('stops being asked and is not answered', async () => {
    const dir = tempDir('rho-withdraw-');
    const marker = join(dir, 'question-shown');
    const script: Script = {
      turn: [
        {
          update: {
            sessionUpdate: 'tool_call',
            toolCallId: 'sh',
            title: 'make deploy',
            kind: 'execute',
            status: 'pending',
            rawInput: { command: 'make deploy' },
          },
        },
        { permission: { toolCall: { toolCallId: 'sh' }, options: OPTIONS }, withdrawWhen: marker },
        // Answered in order after the withdrawal: by then an answer to the withdrawn request would have come.
        { request: 'fs/read_text_file', params: { sessionId: 'peer-session-1', path: '/w/a' } },
        { update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'went on' } } },
      ],
      stop: { stopReason: 'end_turn' },
    };
    writeFileSync(join(dir, 'script.json'), JSON.stringify(script));
    const agent = await peerAgent();
    const cmd = `stty cols 120 rows 40; exec "${BIN}" run --agent "${agent}" "deploy it"`;
    const child = execa('script', ['-qefc', cmd, '/dev/null'], {
      reject: false,
      stdin: 'pipe',
      timeout: 15_000,
      env: {
        RHO_PEER_SCRIPT: join(dir, 'script.json'),
        RHO_PEER_LOG: join(dir, 'peer.log'),
        CURSOR_CONFIG_DIR: dir,
        NO_COLOR: '1',
      },
    });
    let screen = '';
    child.stdout!.on('data', (d: Buffer) => {
      screen += d.toString();
      // The question is on the screen: now the peer withdraws it. Nothing is ever typed.
      if (screen.includes('reject once >') && !existsSync(marker)) writeFileSync(marker, '');
    });
    const r = await child;
    const log = readPeerLog(join(dir, 'peer.log'));
    expect(r.exitCode, screen).toBe(0);
    // Contract v3: the peer is not Cursor, so the question names it by its agentInfo (rho-peer).
    expect(screen).toMatch(/rho-peer asks permission to execute: make deploy/);
    expect(screen).toMatch(/went on/);
    expect(screen).toMatch(/withdrawn by the agent/);
    expect(log.some((e) => e.event === 'withdrawn')).toBe(true);
    // The permission request was the peer's first (id 0): no answer to it ever came.
    const answers = log.filter((e) => e.dir === 'recv' && e.msg && !('method' in e.msg));
    expect(answers.map((e) => e.msg!.id)).toEqual([1]);
    for (const e of log.filter((e) => e.dir === 'recv')) expect(e.problems).toEqual([]);
  });
});
