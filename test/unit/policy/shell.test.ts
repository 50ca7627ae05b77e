import { describe, expect, it } from 'vitest';
import { looseParts, parseShell } from '../../../src/policy/shell.js';

describe('parseShell cuts a line into its simple commands', () => {
  it.each([
    ['npm test', [['npm', 'test']], false],
    ['  npm   test  ', [['npm', 'test']], false],
    [
      'npm test && git push',
      [
        ['npm', 'test'],
        ['git', 'push'],
      ],
      false,
    ],
    ['a || b; c | d & e', [['a'], ['b'], ['c'], ['d'], ['e']], false],
    ['a\nb\rc', [['a'], ['b'], ['c']], false],
    ['(a); {b;}', [['a'], ['{b'], ['}']], false],
    ["echo 'a && b'", [['echo', 'a && b']], false],
    ['echo "a; b"', [['echo', 'a; b']], false],
    ['echo a\\;b', [['echo', 'a;b']], false],
    ['git "push"', [['git', 'push']], false],
    ['echo ""', [['echo', '']], false],
    ['npm test 2>&1', [['npm', 'test']], false],
    ['npm test >&2', [['npm', 'test']], false],
    ['npm test < in.txt', [['npm', 'test']], false],
    ['npm test > out.txt', [['npm', 'test']], true],
    ['npm test >> out.txt', [['npm', 'test']], true],
    ['npm test >| out.txt', [['npm', 'test']], true],
    ['npm test &> out.txt', [['npm', 'test']], true],
    ['npm test 2> err.txt', [['npm', 'test']], true],
    ['npm test # runs the tests; really', [['npm', 'test']], false],
    [
      'npm test #x\nrm -rf /',
      [
        ['npm', 'test'],
        ['rm', '-rf', '/'],
      ],
      false,
    ],
    ['echo a#b', [['echo', 'a#b']], false],
  ])('%j', (line, parts, writes) => {
    const p = parseShell(line);
    expect(p.parts).toEqual(parts);
    expect(p.writes).toBe(writes);
    expect(p.opaque).toBeUndefined();
  });

  it.each([
    ['echo `id`', 'backticks'],
    ['echo $(id)', '$(...)'],
    ['echo "$(id)"', 'inside quotes'],
    ['echo "`id`"', 'inside quotes'],
    ['diff <(a) >(b)', 'process substitution'],
    ["echo 'unclosed", 'unclosed quote'],
    ['echo "unclosed', 'unclosed quote'],
    ['cat <<EOF\nx\nEOF', 'heredoc'],
    ['npm test \\\n --watch', 'line continuation'],
    ['npm test >', 'without a target'],
  ])('%j is opaque: no narrow rule can vouch for it', (line, why) => {
    expect(parseShell(line).opaque).toContain(why);
  });

  it('keeps `$(` inside single quotes as text, since the shell does', () => {
    expect(parseShell("echo '$(id)'")).toEqual({
      parts: [['echo', '$(id)']],
      opaque: undefined,
      writes: false,
    });
  });
});

describe('looseParts cuts at every separator character, quotes ignored', () => {
  it.each([
    [
      "echo 'x; git push'",
      [
        ['echo', 'x'],
        ['git', 'push'],
      ],
    ],
    ['echo $(git push)', [['echo'], ['git', 'push']]],
    ['a`b`', [['a'], ['b']]],
  ])('%j', (line, parts) => {
    expect(looseParts(line)).toEqual(parts);
  });
});
