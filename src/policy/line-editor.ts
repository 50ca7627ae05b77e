// Pure: the keys typed at a terminal question in raw mode, turned into what to echo and what was meant.
import stringWidth from 'string-width';

export type KeyAction =
  | { type: 'echo'; text: string }
  | { type: 'submit'; line: string }
  /** Ctrl-D on an empty line: end of input. */
  | { type: 'eof' }
  /** Ctrl-C or Ctrl-\: the signal the terminal would have sent. */
  | { type: 'signal'; signal: 'SIGINT' | 'SIGQUIT' }
  /** Ctrl-Z: stop, as the terminal would. */
  | { type: 'suspend' };

export interface EditorState {
  line: string;
  /** Inside an escape sequence (an arrow key, say), which is skipped. */
  escape: '' | 'esc' | 'csi';
  /** The last key was a carriage return: a following line feed is the same Enter. */
  afterCR: boolean;
}

export const EMPTY_EDITOR: EditorState = { line: '', escape: '', afterCR: false };
const MAX_LINE = 200;
const UNSHOWN = /[\x80-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const graphemes = new Intl.Segmenter();

// The line's characters as the terminal draws them: a letter with its combining marks, or an emoji of several
// code points, is one.
const drawn = (line: string): string[] => Array.from(graphemes.segment(line), (g) => g.segment);

// Erases a character that took `columns` columns, the cursor just after it: back to its first column, blanks
// over all of them, and back again (found by review: one column was erased whatever the character, and half
// of a wide one, CJK or an emoji, stayed on the screen).
const erase = (columns: number): string => '\b'.repeat(columns) + ' '.repeat(columns) + '\b'.repeat(columns);

// Feeds typed text to the editor; a key that ends the question (Enter, Ctrl-D, Ctrl-C, Ctrl-Z) stops the feed
// there, and what was typed after it is dropped (it was typed before the outcome was seen).
export function feedKeys(state: EditorState, data: string): { state: EditorState; actions: KeyAction[] } {
  let { line, escape, afterCR } = state;
  const actions: KeyAction[] = [];
  const echo = (text: string): void => {
    const last = actions[actions.length - 1];
    if (last?.type === 'echo') last.text += text;
    else actions.push({ type: 'echo', text });
  };
  const end = (a: KeyAction, cr = false): { state: EditorState; actions: KeyAction[] } => {
    actions.push(a);
    return { state: { line: a.type === 'submit' ? '' : line, escape: '', afterCR: cr }, actions };
  };
  for (const ch of data) {
    const wasCR = afterCR;
    afterCR = false;
    // A control key ends any escape sequence: a terminal never sends one inside a sequence, so it was typed
    // (Esc then Ctrl-C is Ctrl-C; found by review: it was dropped, and after `Esc [` every key until a letter).
    if (escape !== '' && (ch < ' ' || ch === '\x7f')) escape = '';
    if (escape === 'esc') {
      // `Esc [` and `Esc O` start a sequence; any other key after Esc (Alt+key) is dropped with it.
      escape = ch === '[' || ch === 'O' ? 'csi' : '';
      continue;
    }
    if (escape === 'csi') {
      // ECMA-48: parameter and intermediate bytes (0x20-0x3f) go on, a final byte (0x40-0x7e) ends it.
      if (ch > '?') escape = '';
      continue;
    }
    switch (ch) {
      case '\r':
        return end({ type: 'submit', line }, true);
      case '\n':
        if (wasCR) continue;
        return end({ type: 'submit', line });
      case '\x03':
        return end({ type: 'signal', signal: 'SIGINT' });
      case '\x1c':
        return end({ type: 'signal', signal: 'SIGQUIT' });
      case '\x1a':
        return end({ type: 'suspend' });
      case '\x04':
        if (line === '') return end({ type: 'eof' });
        continue;
      case '\x1b':
        escape = 'esc';
        continue;
      case '\x7f':
      case '\b': {
        // The last character as drawn goes whole, its combining marks with it.
        const last = drawn(line).at(-1);
        if (last === undefined) continue;
        line = line.slice(0, -last.length);
        echo(erase(stringWidth(last)));
        continue;
      }
      case '\x15':
        echo(
          drawn(line)
            .reverse()
            .map((c) => erase(stringWidth(c)))
            .join(''),
        );
        line = '';
        continue;
      default:
        // C1 controls and the marks that reorder or hide text are never echoed (a paste can carry them).
        if (ch < ' ' || UNSHOWN.test(ch) || [...line].length >= MAX_LINE) continue;
        line += ch;
        echo(ch);
    }
  }
  return { state: { line, escape, afterCR }, actions };
}
