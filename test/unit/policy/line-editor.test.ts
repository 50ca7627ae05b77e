import { describe, expect, it } from 'vitest';
import { EMPTY_EDITOR, feedKeys, type KeyAction } from '../../../src/policy/line-editor.js';

// Feeds chunks one after another and returns every action.
function typed(...chunks: string[]): KeyAction[] {
  let state = EMPTY_EDITOR;
  const all: KeyAction[] = [];
  for (const c of chunks) {
    const r = feedKeys(state, c);
    state = r.state;
    all.push(...r.actions);
  }
  return all;
}

describe('feedKeys', () => {
  it.each<[string[], KeyAction[]]>([
    [
      ['a\r'],
      [
        { type: 'echo', text: 'a' },
        { type: 'submit', line: 'a' },
      ],
    ],
    [
      ['allow', ' once\n'],
      [
        { type: 'echo', text: 'allow' },
        { type: 'echo', text: ' once' },
        { type: 'submit', line: 'allow once' },
      ],
    ],
    [
      ['ab\x7f\r'],
      [
        { type: 'echo', text: 'ab\b \b' },
        { type: 'submit', line: 'a' },
      ],
    ],
    [
      ['\x7fr\r'],
      [
        { type: 'echo', text: 'r' },
        { type: 'submit', line: 'r' },
      ],
    ],
    [
      ['xy\x15a\r'],
      [
        { type: 'echo', text: 'xy\b \b\b \ba' },
        { type: 'submit', line: 'a' },
      ],
    ],
    [['\x04'], [{ type: 'eof' }]],
    [
      ['a\x04\r'],
      [
        { type: 'echo', text: 'a' },
        { type: 'submit', line: 'a' },
      ],
    ],
    [['\x03a\r'], [{ type: 'signal', signal: 'SIGINT' }]],
    [['\x1c'], [{ type: 'signal', signal: 'SIGQUIT' }]],
    [['\x1a'], [{ type: 'suspend' }]],
    [
      ['\x1b[A\x1b[1;5Dr', '\r'],
      [
        { type: 'echo', text: 'r' },
        { type: 'submit', line: 'r' },
      ],
    ],
    [
      ['\x1b', '[B', 'a\r'],
      [
        { type: 'echo', text: 'a' },
        { type: 'submit', line: 'a' },
      ],
    ],
    [
      ['\t\x01a\r'],
      [
        { type: 'echo', text: 'a' },
        { type: 'submit', line: 'a' },
      ],
    ],
    [
      ['é\r'],
      [
        { type: 'echo', text: 'é' },
        { type: 'submit', line: 'é' },
      ],
    ],
  ])('%j', (chunks, actions) => {
    expect(typed(...chunks)).toEqual(actions);
  });

  it('reads CR LF as one Enter, also across chunks', () => {
    expect(typed('x\r', '\nr\r\n').filter((a) => a.type === 'submit')).toEqual([
      { type: 'submit', line: 'x' },
      { type: 'submit', line: 'r' },
    ]);
  });

  it('drops what follows an Enter in the same chunk', () => {
    expect(typed('a\rr\r')).toEqual([
      { type: 'echo', text: 'a' },
      { type: 'submit', line: 'a' },
    ]);
  });
});
