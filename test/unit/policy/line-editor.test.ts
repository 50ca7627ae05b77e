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

describe('feedKeys: keys at the edges', () => {
  it.each<[string, string[], KeyAction[]]>([
    ['a line feed as the first key submits an empty line', ['\n'], [{ type: 'submit', line: '' }]],
    [
      'a line feed after a line-feed Enter is another Enter',
      ['a\n', '\n'],
      [
        { type: 'echo', text: 'a' },
        { type: 'submit', line: 'a' },
        { type: 'submit', line: '' },
      ],
    ],
    [
      'Ctrl-H erases like Backspace',
      ['ab\br\r'],
      [
        { type: 'echo', text: 'ab\b \br' },
        { type: 'submit', line: 'ar' },
      ],
    ],
    [
      'Backspace keeps the rest of the line as it was',
      ['abc\x7f\r'],
      [
        { type: 'echo', text: 'abc\b \b' },
        { type: 'submit', line: 'ab' },
      ],
    ],
    [
      'an SS3 arrow key (ESC O A) is skipped',
      ['\x1bOAr\r'],
      [
        { type: 'echo', text: 'r' },
        { type: 'submit', line: 'r' },
      ],
    ],
    [
      'Alt-x (ESC x) is skipped as two keys, the next key counts',
      ['\x1bxy\r'],
      [
        { type: 'echo', text: 'y' },
        { type: 'submit', line: 'y' },
      ],
    ],
    // Found by review: a control key after Esc, or inside a sequence, was dropped with it, so Esc then Ctrl-C
    // did nothing, and after `Esc [` (Alt+[) no Ctrl-C, Enter or Ctrl-D counted until a letter came.
    ['Esc, then Ctrl-C: the signal', ['\x1b', '\x03'], [{ type: 'signal', signal: 'SIGINT' }]],
    ['Alt+[ (Esc [), then Ctrl-C: the signal', ['\x1b[\x03'], [{ type: 'signal', signal: 'SIGINT' }]],
    ['Esc [ 1 ;, then Ctrl-\\: the signal', ['\x1b[1;', '\x1c'], [{ type: 'signal', signal: 'SIGQUIT' }]],
    [
      'Esc [, then Enter: the line',
      ['r\x1b[', '\r'],
      [
        { type: 'echo', text: 'r' },
        { type: 'submit', line: 'r' },
      ],
    ],
    ['Esc, then Ctrl-D: end of input', ['\x1b\x04'], [{ type: 'eof' }]],
    ['Esc [, then Ctrl-Z: suspend', ['\x1b[\x1a'], [{ type: 'suspend' }]],
    [
      'Esc Esc [ A: one arrow key',
      ['\x1b\x1b[Ar\r'],
      [
        { type: 'echo', text: 'r' },
        { type: 'submit', line: 'r' },
      ],
    ],
    [
      'a sequence ends at any final byte (urxvt Ctrl+Insert: Esc [ 2 ^), the next key counts',
      ['\x1b[2^a\x1b[5@b\x1b[1|c\r'],
      [
        { type: 'echo', text: 'abc' },
        { type: 'submit', line: 'abc' },
      ],
    ],
    [
      'C1 controls and bidi or invisible marks in a paste are not echoed',
      ['a\u009b2Jb\u202ec\u2066d\u200fe\r'],
      [
        { type: 'echo', text: 'a2Jbcde' },
        { type: 'submit', line: 'a2Jbcde' },
      ],
    ],
  ])('%s', (_name, chunks, actions) => {
    expect(typed(...chunks)).toEqual(actions);
  });

  // Found by review: Backspace erased one column whatever the character, so a wide one (CJK, an emoji) kept
  // half its glyph on the screen, and a combining mark left its letter on the screen but not in the line.
  it.each<[string, string, string, string]>([
    ['Backspace over a CJK character: both its columns', 'ab中\x7f', 'ab中\b\b  \b\b', 'ab'],
    ['Backspace over an emoji: both its columns', 'a😀\x7f', 'a😀\b\b  \b\b', 'a'],
    [
      'Backspace over an emoji of several code points (ZWJ): the whole of it',
      'a👩‍💻\x7f',
      'a👩‍💻\b\b  \b\b',
      'a',
    ],
    [
      'Backspace over a letter and its combining mark: both, in one column',
      'ae\u0301\x7f',
      'ae\u0301\b \b',
      'a',
    ],
    ['Backspace over a one-column letter outside ASCII: one column', 'aé\x7f', 'aé\b \b', 'a'],
    ['Ctrl-U: every column of the line', 'a中x\x15', 'a中x\b \b\b\b  \b\b\b \b', ''],
  ])('%s', (_name, keys, echoed, line) => {
    const r = feedKeys(EMPTY_EDITOR, keys);
    expect(r.actions).toEqual([{ type: 'echo', text: echoed }]);
    expect(r.state.line).toBe(line);
  });

  it('takes 200 characters and drops the ones after', () => {
    const actions = typed('x'.repeat(199), 'yz', '\r');
    expect(actions.at(-1)).toEqual({ type: 'submit', line: 'x'.repeat(199) + 'y' });
    expect(actions.filter((a) => a.type === 'echo').map((a) => (a as { text: string }).text)).toEqual([
      'x'.repeat(199),
      'y',
    ]);
  });
});

describe('feedKeys: the state it hands back', () => {
  it.each<[string, string, ReturnType<typeof feedKeys>['state']]>([
    ['nothing typed', '', { line: '', escape: '', afterCR: false }],
    ['a word', 'ab', { line: 'ab', escape: '', afterCR: false }],
    ['an arrow key finished', 'a\x1b[A', { line: 'a', escape: '', afterCR: false }],
    ['an escape begun', 'a\x1b', { line: 'a', escape: 'esc', afterCR: false }],
    ['an Alt key finished', 'a\x1bx', { line: 'a', escape: '', afterCR: false }],
    ['a control sequence begun', 'a\x1b[1;', { line: 'a', escape: 'csi', afterCR: false }],
    ['Enter by carriage return', 'ab\r', { line: '', escape: '', afterCR: true }],
    ['Enter by line feed', 'ab\n', { line: '', escape: '', afterCR: false }],
    ['Ctrl-C mid-line', 'ab\x03', { line: 'ab', escape: '', afterCR: false }],
  ])('%s', (_name, data, state) => {
    expect(feedKeys(EMPTY_EDITOR, data).state).toStrictEqual(state);
  });
});
