// Pure: where a text stops being JSON and why, in general terms. V8's JSON.parse message quotes the text
// around the fault ("AKIAIOSFOD"...), and a config file may be a credentials file behind a link, or hold a key
// unquoted: the error names the line and column instead, never the file's characters.

export interface JsonFault {
  line: number;
  column: number;
  what: string;
}

type Expect = 'value' | 'value-or-close' | 'key' | 'key-or-close' | 'after';

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const HEX4 = /^[0-9a-fA-F]{4}$/;

// The first fault of a text that is not JSON (undefined when it is). A loop with a stack, not recursion: a
// file nested thousands deep must not overflow the call stack.
export function jsonFault(text: string): JsonFault | undefined {
  const at = jsonFaultOffset(text);
  if (at === undefined) return undefined;
  const before = text.slice(0, at.offset);
  const lineStart = before.lastIndexOf('\n') + 1;
  return {
    line: before.split('\n').length,
    column: at.offset - lineStart + 1,
    what: at.what,
  };
}

function jsonFaultOffset(text: string): { offset: number; what: string } | undefined {
  const n = text.length;
  const stack: Array<'{' | '['> = [];
  let i = 0;
  let expect: Expect = 'value';
  const fault = (what: string, offset = i): { offset: number; what: string } => ({ offset, what });
  // Reads the string that starts at i (a quote); a fault, or undefined with i after its closing quote.
  const string = (): { offset: number; what: string } | undefined => {
    const start = i++;
    for (;;) {
      if (i >= n) return fault('a string is not closed', start);
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return undefined;
      }
      if (c < 0x20) return fault('a control character in a string (write it as an escape)');
      if (c === 0x5c) {
        const e = text[i + 1];
        if (e !== undefined && '"\\/bfnrt'.includes(e)) i += 2;
        else if (e === 'u' && HEX4.test(text.slice(i + 2, i + 6))) i += 6;
        else return fault('a bad escape in a string');
      } else i++;
    }
  };
  for (;;) {
    while (i < n && ' \t\n\r'.includes(text[i]!)) i++;
    if (i >= n)
      return expect === 'after' && stack.length === 0
        ? undefined
        : fault('the text ends before the JSON does');
    const c = text[i]!;
    if (c === '\uFEFF') return fault('a byte order mark (BOM), which JSON does not allow');
    if (expect === 'after') {
      const top = stack.at(-1);
      if (top === undefined) return fault('more text after the JSON value');
      if (c === ',') {
        i++;
        expect = top === '{' ? 'key' : 'value';
      } else if (c === (top === '{' ? '}' : ']')) {
        i++;
        stack.pop();
      } else return fault(top === '{' ? "',' or '}' was expected" : "',' or ']' was expected");
      continue;
    }
    if (expect === 'key' || expect === 'key-or-close') {
      if (c === '}' && expect === 'key-or-close') {
        i++;
        stack.pop();
        expect = 'after';
        continue;
      }
      if (c !== '"') return fault('a property name in double quotes was expected');
      const bad = string();
      if (bad) return bad;
      while (i < n && ' \t\n\r'.includes(text[i]!)) i++;
      if (text[i] !== ':')
        return i >= n ? fault('the text ends before the JSON does') : fault("':' was expected");
      i++;
      expect = 'value';
      continue;
    }
    // A value (or, first in an array, its end).
    if (c === ']' && expect === 'value-or-close') {
      i++;
      stack.pop();
      expect = 'after';
    } else if (c === '{' || c === '[') {
      i++;
      stack.push(c);
      expect = c === '{' ? 'key-or-close' : 'value-or-close';
    } else if (c === '"') {
      const bad = string();
      if (bad) return bad;
      expect = 'after';
    } else {
      NUMBER.lastIndex = i;
      const word = ['true', 'false', 'null'].find((w) => text.startsWith(w, i));
      if (word) i += word.length;
      else if (NUMBER.test(text)) i = NUMBER.lastIndex;
      else return fault('a value was expected');
      expect = 'after';
    }
  }
}
