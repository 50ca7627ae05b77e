import { describe, expect, it } from 'vitest';
import type { ToolEvent } from '../../../src/events/types.js';
import { judgeByRules } from '../../../src/policy/judge.js';
import { parseRules } from '../../../src/policy/rules.js';
import { subjectOf } from '../../../src/policy/subject.js';

const known = (over: Partial<ToolEvent>): ToolEvent => ({
  type: 'tool',
  toolCallId: 't',
  kind: 'execute',
  title: '',
  status: 'pending',
  input: {},
  output: null,
  locations: [],
  ...over,
});

describe('subjectOf reads what a request is about', () => {
  it("takes the command from the announced tool_call's rawInput, as Cursor sends it", () => {
    const s = subjectOf({ toolCallId: 't', title: '`npm test`' }, known({ input: { command: 'npm test' } }));
    expect(s.commands).toEqual(['npm test']);
  });

  it('falls back to the backquoted title when no rawInput names a command', () => {
    expect(subjectOf({ title: '`ls -la`' }, undefined).commands).toEqual(['ls -la']);
  });

  it('keeps every command named, so each must pass', () => {
    const s = subjectOf({ rawInput: { command: 'rm -rf /' } }, known({ input: { command: 'npm test' } }));
    expect(s.commands.sort()).toEqual(['npm test', 'rm -rf /']);
  });

  it('collects edit paths from rawInput, locations and diffs, of the request and of the announced tool', () => {
    const s = subjectOf(
      {
        rawInput: { file_path: '/ws/a.ts' },
        locations: [{ path: '/ws/b.ts' }],
        content: [{ type: 'diff', path: '/ws/c.ts', oldText: null, newText: 'x' }],
      },
      known({
        kind: 'edit',
        input: { path: '/ws/d.ts' },
        output: { diffs: [{ path: '/ws/e.ts', oldText: null, newText: '' }] },
      }),
    );
    expect(s.paths.sort()).toEqual(['/ws/a.ts', '/ws/b.ts', '/ws/c.ts', '/ws/d.ts', '/ws/e.ts']);
  });

  it("takes a fetch's URL from rawInput, else from the title", () => {
    expect(subjectOf({ title: 'Fetch https://example.com/x' }, undefined).urls).toEqual([
      'https://example.com/x',
    ]);
    expect(
      subjectOf({ rawInput: { url: 'https://a.b' }, title: 'Fetch https://c.d' }, undefined).urls,
    ).toEqual(['https://a.b']);
  });
});

describe('subjectOf: every place a command, a path or a URL may be named', () => {
  it.each([
    'path',
    'file_path',
    'filePath',
    'target_file',
    'notebook_path',
    'source',
    'destination',
    'old_path',
    'new_path',
    'oldPath',
    'newPath',
  ])('takes a path from rawInput.%s, a string or a list of them', (key) => {
    expect(subjectOf({ rawInput: { [key]: '/ws/a' } }, undefined).paths).toEqual(['/ws/a']);
    expect(subjectOf({ rawInput: { [key]: ['/ws/a', 7, null, '/ws/b'] } }, undefined).paths).toEqual([
      '/ws/a',
      '/ws/b',
    ]);
  });

  it('takes no path from other keys, nor from a rawInput that is not a record', () => {
    expect(subjectOf({ rawInput: { file: '/ws/a', dir: '/ws' } }, undefined).paths).toEqual([]);
    expect(subjectOf({ rawInput: ['/ws/a'] }, undefined).paths).toEqual([]);
    expect(subjectOf({ rawInput: '/ws/a' }, undefined).paths).toEqual([]);
  });

  it('reads every field the ledger reads: a move named by from and to, abs_path, paths (found by review)', () => {
    const paths = (rawInput: object) => subjectOf({ rawInput }, undefined).paths;
    expect(paths({ from: 'src/a.ts', to: '.github/x.yml' })).toEqual(['src/a.ts', '.github/x.yml']);
    expect(paths({ abs_path: '/ws/x', targetFile: 'y' })).toEqual(['y', '/ws/x']);
    expect(paths({ paths: ['/x', 'src/y'] })).toEqual(['/x', 'src/y']);
  });

  it('takes the command from rawInput.command or rawInput.cmd', () => {
    expect(subjectOf({ rawInput: { cmd: 'ls' } }, undefined).commands).toEqual(['ls']);
    expect(subjectOf({ rawInput: { command: ['ls', 'pwd'] } }, undefined).commands).toEqual(["'ls' 'pwd'"]);
    expect(subjectOf({ rawInput: { command: ['git push'] } }, undefined).commands).toEqual(['git push']);
    // Only its strings are words; an argv with none names no command.
    expect(subjectOf({ rawInput: { command: ['npm', 7, null, 'test'] } }, undefined).commands).toEqual([
      "'npm' 'test'",
    ]);
    expect(subjectOf({ rawInput: { command: [], cmd: [1] } }, undefined).commands).toEqual([]);
    expect(subjectOf({ rawInput: { command: ["it's"] } }, undefined).commands).toEqual(["it's"]);
    expect(subjectOf({ rawInput: { command: ['echo', "it's"] } }, undefined).commands).toEqual([
      "'echo' 'it'\\''s'",
    ]);
    expect(subjectOf({ rawInput: { script: 'ls' } }, undefined).commands).toEqual([]);
  });

  it.each([
    ['`npm test`', ['npm test']],
    ['`a\nb`', ['a\nb']],
    ['`echo `x``', ['echo `x`']],
    ['run `npm test`', []],
    ['`npm test` now', []],
    ['npm test', []],
    ['``', []],
    ['`', []],
  ])('reads the command of the title %j as %j', (title, commands) => {
    expect(subjectOf({ title }, undefined).commands).toEqual(commands);
  });

  it("takes the announced tool's backquoted title when the request's title has none", () => {
    expect(subjectOf({ title: 'Run a command' }, known({ title: '`ls -la`' })).commands).toEqual(['ls -la']);
  });

  it('takes a path from locations and diff content only, each once and never an empty one', () => {
    const s = subjectOf(
      {
        locations: [{ path: '/ws/a' }, { line: 3 }, 'x', { path: 1 }, { path: '' }, { path: '/ws/a' }],
        content: [
          { type: 'diff', path: '/ws/b' },
          { type: 'content', path: '/ws/c' },
          { path: '/ws/d' },
          null,
        ],
      },
      undefined,
    );
    expect(s.paths).toEqual(['/ws/a', '/ws/b']);
    expect(subjectOf({ locations: { path: '/ws/a' }, content: 'x' }, undefined).paths).toEqual([]);
  });

  it("takes the announced tool's diffs, whatever type they claim, and skips what is not a record", () => {
    const s = subjectOf(
      {},
      known({ output: { diffs: [{ type: 'content', path: '/ws/a' }, 'x', { path: '/ws/b' }] } }),
    );
    expect(s.paths).toEqual(['/ws/a', '/ws/b']);
    expect(subjectOf({}, known({ output: { diffs: 'x' } })).paths).toEqual([]);
    expect(subjectOf({}, known({ output: 'x' })).paths).toEqual([]);
  });

  it('takes a URL from rawInput.url or rawInput.uri', () => {
    expect(subjectOf({ rawInput: { uri: 'https://a.b' } }, undefined).urls).toEqual(['https://a.b']);
    expect(subjectOf({ rawInput: { url: ['https://a.b', 'https://c.d'] } }, undefined).urls).toEqual([
      'https://a.b',
      'https://c.d',
    ]);
  });

  it.each([
    ['Fetch http://a.b and https://c.d/x?y=1', ['http://a.b', 'https://c.d/x?y=1']],
    ['Fetch https://a.b twice: https://a.b', ['https://a.b']],
    ['Fetch ftp://a.b', []],
    ['Fetch https://', []],
    ['Fetch HTTPS://A.B', []],
  ])('reads the URLs of the title %j as %j', (title, urls) => {
    expect(subjectOf({ title }, undefined).urls).toEqual(urls);
  });

  it('reads a toolCall that is not a record as one that names nothing', () => {
    expect(subjectOf('`ls`', undefined)).toEqual({ commands: [], paths: [], urls: [] });
    expect(subjectOf(null, known({ input: { command: 'ls' } })).commands).toEqual(['ls']);
  });
});

// Found by review: an argv (Codex's adapter sends `command: ["git", "push"]`) was read as one command line per
// word, so `--deny 'Shell(git push)'` saw `git` and `push` and covered neither.
describe('subjectOf: a command given as an argv', () => {
  const judge = (command: unknown, allow: string[], deny: string[]) =>
    judgeByRules(
      'execute',
      subjectOf({ rawInput: { command } }, undefined),
      parseRules(allow, deny).rules,
      '/ws',
    )?.decision;

  it.each([
    [['git', 'push', 'origin', 'main']],
    [['/usr/bin/git', '-C', '.', 'push']],
    [['sudo', 'git', 'push']],
    [['git', 'push', "it's", 'a; b']],
  ])('%j is covered by --deny Shell(git push)', (command) => {
    expect(judge(command, [], ['Shell(git push)'])).toBe('deny');
  });

  it('an argv is no wider for an allow rule than its words', () => {
    expect(judge(['npm', 'test', '; rm -rf x'], ['Shell(npm test)'], [])).toBeUndefined();
    expect(judge(['npm test; rm -rf x'], ['Shell(npm test)'], [])).toBeUndefined();
    expect(judge(['npm test; rm -rf x', 'y'], ['Shell(npm test:*)'], [])).toBeUndefined();
  });

  it('an argv is allowed as the command it is', () => {
    expect(judge(['npm', 'test'], ['Shell(npm test)'], [])).toBe('allow');
    expect(judge(['npx', 'vitest', 'run'], ['Shell(npx vitest:*)'], [])).toBe('allow');
  });

  it('deny rules cover an argv however its words are run: joined by spaces, or one by one', () => {
    expect(judge(['ls', '&&', 'git', 'push'], [], ['Shell(git push)'])).toBe('deny');
    expect(judge(['ls', '&&', 'git', 'push'], ['Shell(ls:*)'], ['Shell(git push)'])).toBe('deny');
    expect(judge(['ls', 'x; git push'], [], ['Shell(git push)'])).toBe('deny');
    // Allow rules judge the argv as it is: `&&` is a word ls is given.
    expect(judge(['ls', '&&', 'git', 'push'], ['Shell(ls:*)'], [])).toBe('allow');
  });
});
