import { describe, expect, it } from 'vitest';
import type { ToolKind } from '../../../src/options.js';
import { cursorDenyStops, judgeByRules, outsideWriteRules } from '../../../src/policy/judge.js';
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
