// Pure: a shell command line cut into its simple commands, the way a POSIX shell reads its separators, so a
// rule can judge every part. Hand-written rather than shell-quote: it must fail closed (anything it is unsure
// of is `opaque`), never expand variables, and report redirections that write, which a parser for argv does not.

export interface ShellParse {
  /** The simple commands, each as its words with quotes removed (redirection targets left out). */
  parts: string[][];
  /** Why no narrow rule can vouch for the line: a substitution, an unclosed quote, a heredoc... */
  opaque: string | undefined;
  /** A redirection writes a file (`>`, `>>`, `>|`, `&>`): a part no Shell(...) rule but Shell(*) covers. */
  writes: boolean;
}

// A carriage return is none: bash and dash read it as an ordinary character of a word.
const SEPARATORS = new Set([';', '&', '|', '(', ')', '\n']);
const BLANKS = new Set([' ', '\t']);

// A control character other than a tab or a newline: a carriage return is an ordinary character to bash and
// dash (`npm test\r#; touch x` runs `touch x`), where a reader may take it for a line's end; the others are
// no better understood. Found by review.
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f]/;

// Reads the line once, left to right; quotes protect separators, backslashes protect one character.
export function parseShell(line: string): ShellParse {
  const parts: string[][] = [];
  let words: string[] = [];
  let word = '';
  let inWord = false;
  // Some of the word was quoted or escaped: `'2'>f` and `{'x'}>f` pass `2` and `{x}` as words.
  let quoted = false;
  let skipTarget = false;
  // The parts are still read (a deny rule judges them), but no narrow allow rule vouches for such a line.
  let opaque: string | undefined = CONTROL.test(line) ? 'a control character' : undefined;
  let writes = false;

  const endWord = (): void => {
    if (inWord) {
      if (skipTarget) skipTarget = false;
      else words.push(word);
    }
    word = '';
    inWord = false;
    quoted = false;
  };
  const endPart = (): void => {
    endWord();
    if (words.length > 0) parts.push(words);
    words = [];
  };
  // The digits just read were a file descriptor (`2>`, or a named one, `{fd}>`), not a word: the endWord
  // that follows drops them.
  const dropFd = (): void => {
    if (inWord && !quoted && /^(?:\d+|\{[A-Za-z_][A-Za-z0-9_]*\})$/.test(word)) inWord = false;
  };
  // A quoted stretch read (its text, and where it closes, -1 if it does not): it joins the word; false when it
  // never closes, which makes the line opaque.
  const takeQuoted = (r: { text: string; end: number }): boolean => {
    if (r.end === -1) {
      opaque ??= 'an unclosed quote';
      return false;
    }
    word += r.text;
    inWord = true;
    quoted = true;
    return true;
  };
  // `>&2`, `2>&-`: a descriptor duplicated or closed (no file); the length of what follows the `&`.
  const duplicated = (from: number): number =>
    /^(?:\d+|-)(?![^\s;&|()<>])/.exec(line.slice(from))?.[0].length ?? 0;

  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    const next = line[i + 1];
    if (BLANKS.has(c)) {
      endWord();
    } else if (c === '\\') {
      if (next === undefined || next === '\n') opaque ??= 'a line continuation';
      else {
        word += next;
        inWord = true;
        quoted = true;
      }
      i++;
    } else if (c === "'") {
      const close = line.indexOf("'", i + 1);
      if (!takeQuoted({ text: line.slice(i + 1, close), end: close })) break;
      i = close;
    } else if (c === '"') {
      const r = readDouble(line, i + 1);
      opaque ??= r.opaque;
      if (!takeQuoted(r)) break;
      i = r.end;
    } else if (c === '`') {
      opaque ??= 'a command substitution (backticks)';
      endPart();
    } else if (c === '$' && next === "'") {
      // ANSI-C quoting: `$'\x67it'` is the word `git`.
      const r = readAnsiC(line, i + 2);
      if (!takeQuoted(r)) break;
      i = r.end;
    } else if (c === '$' && next === '"') {
      // A translated string (`$"..."`) reads as a double-quoted one.
      continue;
    } else if (c === '$' && next === '(') {
      opaque ??= 'a command substitution ($(...))';
      endPart();
      i++;
    } else if ((c === '<' || c === '>') && next === '(') {
      opaque ??= `a process substitution (${c}(...))`;
      endPart();
      i++;
    } else if (c === '<') {
      dropFd();
      endWord();
      // A heredoc (`<<EOF`, `<<-EOF`) or a here-string (`<<<`): its delimiter or string is no word (a third
      // `<` is read as one more redirection, which takes the same word). `<&3`, `<&-`: the descriptor is
      // no word either.
      if (next === '<') opaque ??= 'a heredoc';
      if (next === '<' || next === '&') i++;
      skipTarget = true;
    } else if (c === '>' || (c === '&' && next === '>')) {
      dropFd();
      endWord();
      // After `&>` this is its `>`, which the loop below skips with any more.
      let j = i + 1;
      // `>&2`, `2>&1`, `>&-`: a descriptor is duplicated or closed, no file is written.
      const dup = line[j] === '&' ? duplicated(j + 1) : 0;
      if (dup > 0) {
        i = j + dup;
        continue;
      }
      while (line[j] === '>' || line[j] === '|') j++;
      // `>&file` writes the file, as `&>file` does.
      if (line[j] === '&') j++;
      writes = true;
      skipTarget = true;
      i = j - 1;
    } else if (SEPARATORS.has(c)) {
      endPart();
    } else if (c === '#' && !inWord) {
      // A comment runs to the end of the line; the shell ignores it, and so do we.
      const nl = line.slice(i).indexOf('\n');
      if (nl === -1) break;
      i += nl - 1;
    } else {
      word += c;
      inWord = true;
    }
  }
  endPart();
  if (skipTarget) opaque ??= 'a redirection without a target';
  return { parts, opaque, writes };
}

// Reads a double-quoted string from after its opening quote: its text and where it closes (-1: it does not).
// `$(` and backticks still run inside double quotes: that makes the line opaque.
function readDouble(line: string, from: number): { text: string; end: number; opaque?: string } {
  let text = '';
  let opaque: string | undefined;
  for (let i = from; i < line.length; i++) {
    const c = line[i]!;
    if (c === '"') return { text, end: i, opaque };
    if (c === '\\' && i + 1 < line.length) {
      const n = line[i + 1]!;
      text += '"\\$`\n'.includes(n) ? n : c + n;
      i++;
    } else {
      if (c === '`' || (c === '$' && line[i + 1] === '(')) opaque ??= 'a command substitution inside quotes';
      text += c;
    }
  }
  return { text, end: -1, opaque };
}

const ANSI_C: Readonly<Record<string, string>> = {
  a: '\x07',
  b: '\b',
  e: '\x1b',
  E: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
};

// Reads an ANSI-C quoted string (`$'...'`) from after its opening quote, its escapes decoded as bash does
// (`\x67`, `\147`, `\u0067`, `\n`, `\'`...): its text and where it closes (-1: it does not).
function readAnsiC(line: string, from: number): { text: string; end: number } {
  let text = '';
  // bash ends the string at a NUL (`$'git\0zz'` is `git`): what follows it up to the quote is dropped.
  let cut = false;
  const add = (t: string): void => {
    if (cut) return;
    const nul = t.indexOf('\0');
    cut = nul !== -1;
    text += cut ? t.slice(0, nul) : t;
  };
  for (let i = from; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'") return { text, end: i };
    if (c !== '\\' || i + 1 >= line.length) {
      add(c);
      continue;
    }
    const n = line[++i]!;
    const code =
      n === 'x'
        ? /^[0-9a-fA-F]{1,2}/.exec(line.slice(i + 1))
        : n === 'u'
          ? /^[0-9a-fA-F]{1,4}/.exec(line.slice(i + 1))
          : n === 'U'
            ? /^[0-9a-fA-F]{1,8}/.exec(line.slice(i + 1))
            : null;
    const octal = /^[0-7]{1,3}/.exec(line.slice(i));
    if (code) {
      add(String.fromCodePoint(Math.min(parseInt(code[0], 16), 0x10ffff)));
      i += code[0].length;
    } else if (octal) {
      add(String.fromCharCode(parseInt(octal[0], 8) & 0xff));
      i += octal[0].length - 1;
    } else if (n === 'c' && i + 1 < line.length && line[i + 1] !== "'") {
      // `\cX`: the control character of X (`\c@` is NUL, `\cJ` a newline).
      add(String.fromCharCode(line.charCodeAt(++i) & 0x1f));
    } else add(ANSI_C[n] ?? n);
  }
  return { text, end: -1 };
}

// Every stretch between any separator character, quotes ignored: a wider net for deny rules, so a denied
// command hidden inside quotes or a substitution (`echo $(git push)`, `bash -c 'git push'`) is still seen.
export function looseParts(line: string): string[][] {
  return line
    .split(/\$\(|[;&|()<>`\n\r]/)
    .map((s) =>
      s
        .replace(/["'\\]/g, '')
        .split(/\s+/)
        .filter((w) => w !== ''),
    )
    .filter((ws) => ws.length > 0);
}
