import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  shellInertJson,
  errorAnnotation,
  knownStopReason,
  outputLines,
  plainToken,
  warningAnnotation,
} from '../../../src/ci/github.js';

// Reads $GITHUB_OUTPUT as the runner does: name=value lines and name<<DELIM ... DELIM blocks.
function parse(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const rows = text.split('\n');
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    if (row === '') continue;
    const heredoc = /^([^=<]+)<<(.+)$/.exec(row);
    if (heredoc) {
      const end = rows.indexOf(heredoc[2]!, i + 1);
      out[heredoc[1]!] = rows.slice(i + 1, end).join('\n');
      i = end;
    } else out[row.slice(0, row.indexOf('='))] = row.slice(row.indexOf('=') + 1);
  }
  return out;
}

describe('workflow annotations', () => {
  it('a warning names rho-cursor and the code in its title', () => {
    expect(warningAnnotation('stdin-ignored', 'standard input is not read')).toBe(
      '::warning title=rho-cursor stdin-ignored::standard input is not read\n',
    );
  });

  it('an error is one line, its title rho-cursor', () => {
    expect(errorAnnotation('the answer did not match s.json: /n must be number')).toBe(
      '::error title=rho-cursor::the answer did not match s.json: /n must be number\n',
    );
  });

  it('escapes % and shows CR and LF in the message, so a message is one annotation and one line', () => {
    expect(errorAnnotation('50% done\r\nthen\nmore')).toBe(
      '::error title=rho-cursor::50%25 done\u240d\u240athen\u240amore\n',
    );
    const w = warningAnnotation('x', 'a\n::error::forged');
    expect(w.split('\n')).toEqual(['::warning title=rho-cursor x::a\u240a::error::forged', '']);
    // GitHub shows %0A in a message as a line break: none is ever written, so agent text cannot draw a line.
    expect(errorAnnotation('ok\nAll checks passed')).not.toMatch(/%0A|%0D/);
  });

  it('escapes : and , in the title property too', () => {
    expect(warningAnnotation('a:b,c', 'm')).toBe('::warning title=rho-cursor a%3Ab%2Cc::m\n');
  });
});

describe('step outputs', () => {
  it('writes single-line values as name=value', () => {
    expect(outputLines({ 'exit-code': '0', 'stop-reason': 'end_turn', 'session-id': '' })).toBe(
      'exit-code=0\nstop-reason=end_turn\nsession-id=\n',
    );
  });

  it('writes a multi-line value with the delimiter syntax', () => {
    const text = outputLines({ structured: '{\n  "n": 1\n}', 'exit-code': '0' }, () => 'EOF_1');
    expect(text).toBe('structured<<EOF_1\n{\n  "n": 1\n}\nEOF_1\nexit-code=0\n');
    expect(parse(text)).toEqual({ structured: '{\n  "n": 1\n}', 'exit-code': '0' });
  });

  it('a CR alone is multi-line too', () => {
    expect(outputLines({ a: 'x\ry' }, () => 'D')).toBe('a<<D\nx\ry\nD\n');
  });

  it('picks another delimiter while the value holds it', () => {
    const tries = ['EOF', 'EOF', 'rho_2'];
    const text = outputLines({ a: 'line\nEOF\nexit-code=0' }, () => tries.shift()!);
    expect(text).toBe('a<<rho_2\nline\nEOF\nexit-code=0\nrho_2\n');
    expect(parse(text)).toEqual({ a: 'line\nEOF\nexit-code=0' });
  });

  it('random delimiters by default, different each time', () => {
    const a = outputLines({ v: '1\n2' });
    const b = outputLines({ v: '1\n2' });
    expect(a).toMatch(/^v<<(rho_[0-9a-f]{16})\n1\n2\n\1\n$/);
    expect(a).not.toBe(b);
  });
});

describe('the outputs a workflow may paste into a script hold only plain values', () => {
  it('structured: what ends a quoted string or runs a command is an escape, the same JSON value', () => {
    const value = { "it's": ['$(id)', '`id`', "'", '\\u0027'] };
    const json = shellInertJson(JSON.stringify(value));
    expect(json).not.toMatch(/['`$]/);
    expect(JSON.parse(json)).toEqual(value);
    expect(shellInertJson('{"a":1}')).toBe('{"a":1}');
  });

  it('structured: pasted into a heredoc, a backslash in a string is still the same JSON value', () => {
    // Found by review: a heredoc reads `\\` as one backslash, so {"path":"C:\\new\\tmp"} reached jq as
    // "C:<newline>ew<tab>mp". Escaped backslashes are \u005c, which no shell rewrites.
    const value = { path: 'C:\\new\\tmp', odd: '\\"\\\\', mixed: "\\$(id)'" };
    const json = shellInertJson(JSON.stringify(value));
    expect(json).not.toContain('\\\\');
    const heredoc = execFileSync('bash', ['-c', `cat <<EOF\n${json}\nEOF`], { encoding: 'utf8' });
    const single = execFileSync('bash', ['-c', `echo '${json}'`], { encoding: 'utf8' });
    expect(JSON.parse(heredoc)).toEqual(value);
    expect(JSON.parse(single)).toEqual(value);
  });

  it.each([
    ['end_turn', 'end_turn'],
    ['cancelled', 'cancelled'],
    [null, ''],
    ['done', ''],
    ['end_turn\n::error::x', ''],
  ])('stop-reason %j: %j', (given, written) => {
    expect(knownStopReason(given)).toBe(written);
  });

  it.each([
    ['61a41a25-3aee-4d75-abbb-737aad658874', true],
    ['sess_01.a:b@c+d=e-f', true],
    ['a'.repeat(256), true],
    ['a'.repeat(257), false],
    [null, false],
    ['', false],
    ['-rf', false],
    ['a b', false],
    ['a\nb=c', false],
    ['a\u001b[31m', false],
    ['a$(id)', false],
    ['a`id`', false],
  ])('session-id %j is written: %s', (id, kept) => {
    expect(plainToken(id)).toBe(kept ? id : '');
  });
});

describe('annotations show what the agent wrote, never pass it to the viewer', () => {
  it('escape, C1, bidi and invisible characters are made visible, CR and LF too', () => {
    expect(errorAnnotation('a\u001b]52;c;SGk=\u0007b\u009b2J\u202e\u200b\r\nc')).toBe(
      '::error title=rho-cursor::a\u241b]52;c;SGk=\u2407b<U+009B>2J<U+202E><U+200B>\u240d\u240ac\n',
    );
    expect(warningAnnotation('x', '\u001b[2J')).toBe('::warning title=rho-cursor x::\u241b[2J\n');
  });
});
