import { describe, expect, it } from 'vitest';
import type { ToolKind } from '../../../src/options.js';
import {
  cursorDenyStops,
  judgeByRules,
  outsideWriteRules,
  rulesWarnings,
} from '../../../src/policy/judge.js';
import { parseRules } from '../../../src/policy/rules.js';
import type { Subject } from '../../../src/policy/subject.js';

const rules = (allow: string[], deny: string[] = []) => parseRules(allow, deny).rules;
const subject = (s: Partial<Subject>): Subject => ({ commands: [], paths: [], urls: [], ...s });
const judge = (kind: ToolKind, s: Partial<Subject>, allow: string[], deny: string[] = []) =>
  judgeByRules(kind, subject(s), rules(allow, deny), '/ws')?.decision;

describe('judgeByRules: a matching deny wins, then an allow that covers everything', () => {
  it.each([
    ['execute', { commands: ['npm test'] }, ['Shell(npm test)'], [], 'allow'],
    ['execute', { commands: ['npm test && rm -rf /'] }, ['Shell(npm test)'], [], undefined],
    ['execute', { commands: ['git push'] }, ['Shell(git)'], ['Shell(git push)'], 'deny'],
    ['execute', { commands: ['git status'] }, ['Shell(git)'], ['Shell(git push)'], 'allow'],
    ['execute', { commands: ['git push'] }, ['execute'], ['Shell(git push)'], 'deny'],
    ['execute', { commands: [] }, [], ['Shell(git push)'], 'deny'],
    ['execute', { commands: [] }, ['Shell(npm test)'], [], undefined],
    ['execute', { commands: ['npm test', 'rm -rf /'] }, ['Shell(npm test)'], [], undefined],
    ['execute', { commands: ['ls'] }, [], ['execute'], 'deny'],
    ['edit', { paths: ['/ws/src/a.ts'] }, ['Write(src/**)'], [], 'allow'],
    ['edit', { paths: ['/ws/README.md'] }, ['Write(src/**)'], [], 'deny'],
    ['edit', { paths: ['/ws/src/a.ts', '/ws/README.md'] }, ['Write(src/**)'], [], 'deny'],
    ['edit', { paths: [] }, ['Write(src/**)'], [], 'deny'],
    ['edit', { paths: ['/ws/src/.env'] }, ['Write(src/**)'], ['Write(**/.env*)'], 'deny'],
    ['edit', { paths: ['/ws/README.md'] }, ['edit'], [], undefined],
    ['delete', { paths: ['/ws/README.md'] }, ['Write(src/**)'], [], 'deny'],
    ['move', { paths: ['/ws/src/a', '/ws/b'] }, ['Write(src/**)'], [], 'deny'],
    ['read', { paths: ['/ws/.env'] }, [], ['Read(.env*)'], 'deny'],
    ['read', { paths: ['/ws/README.md'] }, ['Read(**/*.md)'], [], 'allow'],
    ['read', { paths: ['/ws/a.ts'] }, ['Read(**/*.md)'], [], undefined],
    ['fetch', { urls: ['https://example.com/x'] }, ['WebFetch(example.com)'], [], 'allow'],
    ['fetch', { urls: ['https://evil.com'] }, ['WebFetch(example.com)'], [], undefined],
    ['fetch', { urls: ['https://evil.com'] }, [], ['WebFetch(evil.com)'], 'deny'],
    ['fetch', { urls: [] }, [], ['WebFetch(evil.com)'], 'deny'],
    // Found by review: the same host spelt so that URL's hostname was not `evil.com`, or none was read.
    ['fetch', { urls: ['https://evil.com./x'] }, [], ['WebFetch(evil.com)'], 'deny'],
    ['fetch', { urls: ['https://evil.com%2e/x'] }, [], ['WebFetch(evil.com)'], 'deny'],
    ['fetch', { urls: ['evil.com/x'] }, [], ['WebFetch(evil.com)'], 'deny'],
    ['fetch', { urls: ['evil.com:8080/x'] }, [], ['WebFetch(evil.com)'], 'deny'],
    ['fetch', { urls: ['//evil.com/x'] }, [], ['WebFetch(evil.com)'], 'deny'],
    ['fetch', { urls: ['https://example.com./x'] }, ['WebFetch(example.com)'], [], 'allow'],
    // A URL no host can be read from may be any host: denied where deny rules exist, else only not allowed.
    ['fetch', { urls: ['data:text/plain,hi'] }, [], ['WebFetch(evil.com)'], 'deny'],
    ['fetch', { urls: ['https://ok.com/', '[::'] }, [], ['WebFetch(evil.com)'], 'deny'],
    ['fetch', { urls: ['data:text/plain,hi'] }, ['WebFetch(example.com)'], [], undefined],
    ['search', { paths: ['/ws'] }, ['Write(src/**)'], ['Shell(rm)'], undefined],
  ] as const)('%s %j allow %j deny %j: %s', (kind, s, allow, deny, decision) => {
    expect(judge(kind, s as unknown as Partial<Subject>, [...allow], [...deny])).toBe(decision);
  });

  it('says which rule decided', () => {
    expect(
      judgeByRules(
        'execute',
        subject({ commands: ['npm test; git push'] }),
        rules([], ['Shell(git push)']),
        '/ws',
      ),
    ).toEqual({ decision: 'deny', reason: '--deny Shell(git:push) covers `npm test; git push`' });
    expect(
      judgeByRules('edit', subject({ paths: ['/ws/docs/a.md'] }), rules(['Write(src/**)']), '/ws'),
    ).toEqual({
      decision: 'deny',
      reason: '`docs/a.md` is outside Write(src/**)',
    });
    expect(
      judgeByRules('fetch', subject({ urls: ['[::'] }), rules([], ['WebFetch(evil.com)']), '/ws'),
    ).toEqual({
      decision: 'deny',
      reason: 'the host of `[::` is not known, and WebFetch(evil.com) may cover it',
    });
  });
});

describe('judgeByRules: a command longer than a deny rule reads', () => {
  const long = 'npm test ' + 'x'.repeat(8 * 1024);
  it('is denied by the deny rules, whatever it holds, and says why', () => {
    expect(
      judgeByRules('execute', subject({ commands: [long] }), rules([], ['Shell(git push)']), '/ws'),
    ).toEqual({
      decision: 'deny',
      reason: `the command is ${long.length} characters, more than the 8192 a deny rule reads: Shell(git:push) may cover it`,
    });
  });
  it('is left to the allow rules and the policy where there is no deny rule', () => {
    expect(judge('execute', { commands: [long] }, ['Shell(npm test)'])).toBeUndefined();
    expect(judge('execute', { commands: [long] }, ['Shell(npm test:*)'])).toBe('allow');
  });
  it("the bound holds for the request's commands together", () => {
    const half = 'npm test ' + 'x'.repeat(4 * 1024);
    expect(judge('execute', { commands: [half, half] }, ['Shell(npm test:*)'], ['Shell(git push)'])).toBe(
      'deny',
    );
    expect(judge('execute', { commands: [half] }, ['Shell(npm test:*)'], ['Shell(git push)'])).toBe('allow');
  });

  it('one character shorter is read', () => {
    const fits = long.slice(0, 8 * 1024);
    expect(judge('execute', { commands: [fits] }, ['Shell(npm test:*)'], ['Shell(git push)'])).toBe('allow');
  });
});

describe('a reason carrying agent text stays one line', () => {
  it.each([
    ['npm test\nrm -rf /', '--deny Shell(rm) covers "npm test\\nrm -rf /"'],
    ['rm x\u202e', '--deny Shell(rm) covers "rm x\\u202e"'],
    ['rm \x1b[31mx', '--deny Shell(rm) covers "rm \\u001b[31mx"'],
  ])('%j', (command, reason) => {
    const v = judgeByRules('execute', subject({ commands: [command] }), rules([], ['Shell(rm)']), '/ws');
    expect(v?.reason).toBe(reason);
    for (const c of ['\n', '\x1b', '\u202e']) expect(v?.reason).not.toContain(c);
  });
});

describe('outsideWriteRules: what the change ledger would call a breach', () => {
  it.each([
    [['src/a.ts', 'README.md', 'src/deep/b.ts'], ['Write(src/**)'], [], ['README.md']],
    [['src/a.ts', 'src/.env'], ['Write(src/**)'], ['Write(**/.env*)'], ['src/.env']],
    [['a', 'b'], [], [], []],
    [['a', '.env'], ['execute'], ['Write(.env)'], ['.env']],
    [['a', 'package.json'], ['Write(src/**)', 'Write(package.json)'], [], ['a']],
  ])('%j allow %j deny %j', (paths, allow, deny, outside) => {
    expect(outsideWriteRules(paths, rules(allow, deny))).toEqual(outside);
  });
});

describe("cursorDenyStops: did Cursor's copy of a deny rule stop the call?", () => {
  it.each([
    ['execute', { commands: ['git push'] }, ['Shell(git push)'], true],
    ['execute', { commands: ['git status'] }, ['Shell(git push)'], false],
    ['execute', { commands: ['git push origin main'] }, ['Shell(git push)'], true],
    ['execute', { commands: ['npm test && git push'] }, ['Shell(git push)'], true],
    ['execute', { commands: ['rm -rf x'] }, ['Shell(*)'], true],
    // What rho-cursor's own reading sees through is not known to stop Cursor: it may have run.
    ['execute', { commands: ['git -C . push'] }, ['Shell(git push)'], false],
    ['execute', { commands: ['sudo -u root git push'] }, ['Shell(git push)'], false],
    ['execute', { commands: ["bash -c 'git push'"] }, ['Shell(git push)'], false],
    ['execute', { commands: ['ls'] }, ['execute'], true],
    ['edit', { paths: ['/ws/.env'] }, ['Write(**/.env*)'], true],
    ['edit', { paths: ['/ws/a'] }, ['Write(**/.env*)'], false],
    ['fetch', { urls: ['https://x.com'] }, ['WebFetch(x.com)'], false],
  ] as const)('%s %j deny %j: %s', (kind, s, deny, stops) => {
    expect(
      cursorDenyStops(kind, subject(s as unknown as Partial<Subject>), rules([], [...deny]), '/ws'),
    ).toBe(stops);
  });
});

describe('an absolute Write(...) or Read(...) glob holds inside the workspace too', () => {
  it.each([
    ['edit', { paths: ['/ws/secrets/k'] }, [], ['Write(/ws/secrets/**)'], 'deny'],
    ['edit', { paths: ['secrets/k'] }, [], ['Write(/ws/secrets/**)'], 'deny'],
    ['edit', { paths: ['/ws/src/a'] }, ['Write(/ws/src/**)'], [], 'allow'],
    ['edit', { paths: ['/ws/b'] }, ['Write(/ws/src/**)'], [], 'deny'],
    // A deny also reads a backslash as a separator; an allow does not (found by review).
    ['edit', { paths: ['.github\\workflows\\ci.yml'] }, ['Write(**)'], ['Write(.github/**)'], 'deny'],
    ['edit', { paths: ['src\\evil.yml'] }, ['Write(src/**)'], [], 'deny'],
    ['read', { paths: ['/ws/.env'] }, [], ['Read(/ws/.env)'], 'deny'],
  ] as const)('%s %j allow %j deny %j: %s', (kind, s, allow, deny, decision) => {
    expect(judge(kind, s as unknown as Partial<Subject>, [...allow], [...deny])).toBe(decision);
  });

  it('the change ledger counts a change under an absolute deny glob as a breach', () => {
    expect(outsideWriteRules(['secrets/k', 'src/a'], rules([], ['Write(/ws/secrets/**)']), '/ws')).toEqual([
      'secrets/k',
    ]);
  });
});

describe('judgeByRules: every verdict says which rules decided it', () => {
  const verdict = (kind: ToolKind, s: Partial<Subject>, allow: string[], deny: string[] = []) =>
    judgeByRules(kind, subject(s), rules(allow, deny), '/ws');

  it.each([
    ['execute', { commands: ['ls'] }, [], ['execute'], 'deny', '--deny execute'],
    [
      'execute',
      { commands: [] },
      [],
      ['Shell(git push)', 'Shell(rm)'],
      'deny',
      'the command is not known, and Shell(git:push), Shell(rm) may cover it',
    ],
    [
      'execute',
      { commands: ['npm test', 'git status'] },
      ['Shell(npm test)', 'Shell(git status)'],
      [],
      'allow',
      '--allow Shell(npm:test), Shell(git:status)',
    ],
    [
      'read',
      { paths: [] },
      [],
      ['Read(.env*)'],
      'deny',
      'the path is not known, and Read(.env*) may cover it',
    ],
    ['read', { paths: ['/ws/.env'] }, [], ['Read(.env*)'], 'deny', '--deny Read(.env*) covers `.env`'],
    [
      'edit',
      { paths: ['/ws/src/a', '/ws/package.json'] },
      ['Write(src/**)', 'Write(package.json)'],
      [],
      'allow',
      '--allow Write(src/**), Write(package.json)',
    ],
    [
      'edit',
      { paths: [] },
      ['Write(src/**)'],
      [],
      'deny',
      'the path is not known, so Write(src/**) cannot vouch for it',
    ],
    // Found by review: a link to .env behind 4,096 lookups of other paths went unread, and the deny missed it.
    [
      'edit',
      { paths: ['src/envlink', '/(not looked up) src/envlink'] },
      [],
      ['Write(.env)'],
      'deny',
      'where `src/envlink` leads was not looked up, and Write(.env) may cover it',
    ],
    [
      'edit',
      { paths: ['src/a', '/(not looked up) src/a'] },
      ['Write(src/**)'],
      [],
      'deny',
      '`/(not looked up) src/a` is outside Write(src/**)',
    ],
    [
      'fetch',
      { urls: [] },
      [],
      ['WebFetch(evil.com)'],
      'deny',
      'the URL is not known, and WebFetch(evil.com) may cover it',
    ],
    [
      'fetch',
      { urls: ['https://evil.com/x'] },
      [],
      ['WebFetch(evil.com)'],
      'deny',
      '--deny WebFetch(evil.com) covers `https://evil.com/x`',
    ],
    [
      'fetch',
      { urls: ['https://a.com', 'https://b.com/x'] },
      ['WebFetch(a.com)', 'WebFetch(b.com)'],
      [],
      'allow',
      '--allow WebFetch(a.com), WebFetch(b.com)',
    ],
  ] as const)('%s %j allow %j deny %j: %s, %j', (kind, s, allow, deny, decision, reason) => {
    expect(verdict(kind, s as unknown as Partial<Subject>, [...allow], [...deny])).toEqual({
      decision,
      reason,
    });
  });
});

describe('judgeByRules: each rule holds only for its own kind and its own subject', () => {
  it.each([
    ['a --deny of another kind', 'read', { paths: ['/ws/a'] }, [], ['execute']],
    ['WebFetch rules for a search', 'search', { urls: [] }, ['WebFetch(a.com)'], ['WebFetch(evil.com)']],
    ['a Read deny covering none of the paths', 'read', { paths: ['/ws/a.ts'] }, [], ['Read(.env*)']],
    ['a fetch with no rules and no URL', 'fetch', { urls: [] }, [], []],
    ['a WebFetch allow with no URL to vouch for', 'fetch', { urls: [] }, ['WebFetch(a.com)'], []],
    [
      'a WebFetch deny covering none of the URLs',
      'fetch',
      { urls: ['https://ok.com'] },
      [],
      ['WebFetch(evil.com)'],
    ],
    [
      'a WebFetch allow covering one URL of two',
      'fetch',
      { urls: ['https://a.com', 'https://evil.com'] },
      ['WebFetch(a.com)'],
      [],
    ],
  ] as const)('%s says nothing', (_name, kind, s, allow, deny) => {
    expect(judge(kind, s as unknown as Partial<Subject>, [...allow], [...deny])).toBeUndefined();
  });
});

describe('a reason shows control and bidi characters as \\u escapes, four hex digits each', () => {
  it.each([
    ['rm \x7f', '--deny Shell(rm) covers "rm \\u007f"'],
    ['rm \u0085 \u2028 \u2066', '--deny Shell(rm) covers "rm \\u0085 \\u2028 \\u2066"'],
  ])('%j', (command, reason) => {
    const v = judgeByRules('execute', subject({ commands: [command] }), rules([], ['Shell(rm)']), '/ws');
    expect(v?.reason).toBe(reason);
  });
});

describe('outsideWriteRules: the workspace is / unless told', () => {
  it('reads a relative path under an absolute glob as under /', () => {
    expect(outsideWriteRules(['secrets/k', 'a'], rules([], ['Write(/secrets/**)']))).toEqual(['secrets/k']);
  });
});

describe("cursorDenyStops: Cursor's copy of a deny rule, by kind", () => {
  it.each([
    ['execute under a --deny of another kind', 'execute', { commands: ['ls'] }, ['read'], false],
    ['one denied command of two', 'execute', { commands: ['ls', 'git push'] }, ['Shell(git push)'], true],
    ['an edit under --deny delete', 'edit', { paths: ['/ws/a'] }, ['delete'], true],
    ['an edit under --deny read', 'edit', { paths: ['/ws/a'] }, ['read'], false],
    ['a read under a Write deny', 'read', { paths: ['/ws/.env'] }, ['Write(**/.env*)'], false],
    ['one denied path of two', 'edit', { paths: ['/ws/a', '/ws/.env'] }, ['Write(**/.env*)'], true],
    [
      'a path under one Write deny of two',
      'edit',
      { paths: ['/ws/.env'] },
      ['Write(x)', 'Write(.env)'],
      true,
    ],
  ] as const)('%s: %s', (_name, kind, s, deny, stops) => {
    expect(
      cursorDenyStops(kind, subject(s as unknown as Partial<Subject>), rules([], [...deny]), '/ws'),
    ).toBe(stops);
  });
});

describe('rulesWarnings: what the rules cannot hold before it happens', () => {
  it('warns of Write allow rules and of Mcp rules on either side, naming them', () => {
    expect(
      rulesWarnings(rules(['Write(src/**)', 'Write(docs/**)', 'Mcp(gh:issues)'], ['Mcp(fs:write)'])),
    ).toEqual([
      {
        code: 'write-rules-not-asked',
        message:
          'Cursor never asks before an edit: Write(src/**), Write(docs/**) rejects an edit outside it only when the agent asks; the change ledger finds the others after the turn',
      },
      {
        code: 'mcp-rules-cursor-only',
        message:
          "Mcp(gh:issues), Mcp(fs:write): held by Cursor's config alone (rho-cursor cannot tell an MCP call from a permission request)",
      },
    ]);
  });

  it('says nothing of rules it can hold: Shell, Read, WebFetch, kinds, and Write denies', () => {
    expect(
      rulesWarnings(rules(['Shell(ls)', 'Read(**)', 'WebFetch(a.com)', 'edit'], ['Write(.env)', 'execute'])),
    ).toEqual([]);
  });

  it('warns of an Mcp deny alone', () => {
    expect(rulesWarnings(rules([], ['Mcp(fs:write)'])).map((w) => w.code)).toEqual(['mcp-rules-cursor-only']);
  });
});
