import { describe, expect, it } from 'vitest';
import { cursorAtSpawn, cursorFromInitialize, identify } from '../../../src/agent/identity.js';

describe('cursorAtSpawn: Cursor by its executable name, without --agent-arg', () => {
  it.each([
    ['cursor-agent', [], true],
    ['agent', [], true],
    ['/home/u/.local/bin/cursor-agent', [], true],
    ['/opt/cursor/agent', [], true],
    ['cursor-agent', ['acp'], false],
    ['npx', ['@zed-industries/claude-agent-acp'], false],
    ['gemini', [], false],
    ['/usr/bin/my-cursor-agent', [], false],
  ] as const)('%s %j: %s', (command, args, cursor) => {
    expect(cursorAtSpawn(command, args)).toBe(cursor);
  });
});

describe('cursorFromInitialize: what the answer says, where it says anything', () => {
  it.each([
    {
      said: "Cursor's recorded build",
      init: { authMethods: [{ id: 'cursor_login', name: 'Cursor' }] },
      cursor: true,
    },
    {
      said: 'agentInfo naming Cursor',
      init: { agentInfo: { name: 'cursor-agent', version: '1' } },
      cursor: true,
    },
    {
      said: 'a title naming Cursor',
      init: { agentInfo: { name: 'x', title: 'Cursor Agent' } },
      cursor: true,
    },
    {
      said: "Claude's adapter",
      init: { agentInfo: { name: 'claude-agent-acp', title: 'Claude Code' } },
      cursor: false,
    },
    {
      said: 'other auth methods only',
      init: { authMethods: [{ id: 'chatgpt', name: 'ChatGPT' }] },
      cursor: false,
    },
    { said: 'nothing (the fixtures)', init: { protocolVersion: 1, authMethods: [] }, cursor: undefined },
    { said: 'no object', init: null, cursor: undefined },
  ])('$said: $cursor', ({ init, cursor }) => {
    expect(cursorFromInitialize(init)).toBe(cursor);
  });
});

describe('identify: initialize wins over the name where they differ', () => {
  it.each([
    { atSpawn: true, init: undefined, want: { cursor: true, title: 'Cursor' } },
    { atSpawn: true, init: { agentInfo: { name: 'rho-peer' } }, want: { cursor: false, title: 'rho-peer' } },
    {
      atSpawn: false,
      init: { authMethods: [{ id: 'cursor_login' }] },
      want: { cursor: true, title: 'Cursor' },
    },
    {
      atSpawn: false,
      init: { agentInfo: { name: 'gemini-cli', title: 'Gemini CLI' } },
      want: { cursor: false, title: 'Gemini CLI' },
    },
    { atSpawn: false, init: {}, want: { cursor: false, title: 'the agent' } },
    // Found by review: a blank title gave blank labels (`warning:  is not Cursor`).
    {
      atSpawn: false,
      init: { agentInfo: { name: 'claude-acp', title: '' } },
      want: { cursor: false, title: 'claude-acp' },
    },
    {
      atSpawn: false,
      init: { agentInfo: { name: ' ', title: '   ' } },
      want: { cursor: false, title: 'the agent' },
    },
    { atSpawn: true, init: {}, want: { cursor: true, title: 'Cursor' } },
  ])('at spawn $atSpawn, initialize $init', ({ atSpawn, init, want }) => {
    expect(identify(atSpawn, init)).toEqual(want);
  });
});
