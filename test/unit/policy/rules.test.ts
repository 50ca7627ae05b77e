import { describe, expect, it } from 'vitest';
import { RhoError } from '../../../src/errors.js';
import { cursorRules, parseRule, parseRules, rulesJson } from '../../../src/policy/rules.js';

describe('parseRule reads Cursor rule syntax and bare kinds', () => {
  it.each([
    ['execute', { type: 'kind', kind: 'execute', text: 'execute' }],
    ['Shell(npm)', { type: 'Shell', command: 'npm', args: undefined, prefix: false, text: 'Shell(npm)' }],
    [
      'Shell(npm test)',
      { type: 'Shell', command: 'npm', args: 'test', prefix: false, text: 'Shell(npm:test)' },
    ],
    [
      'Shell(npm:test)',
      { type: 'Shell', command: 'npm', args: 'test', prefix: false, text: 'Shell(npm:test)' },
    ],
    [
      ' Shell( npm   run  build ) ',
      { type: 'Shell', command: 'npm', args: 'run build', text: 'Shell(npm:run build)' },
    ],
    ['Shell(npx vitest:*)', { command: 'npx', args: 'vitest', prefix: true, text: 'Shell(npx vitest:*)' }],
    ['Shell(npm:test:*)', { command: 'npm', args: 'test', prefix: true }],
    ['Shell(*)', { command: '*', args: undefined }],
    ['Shell(git:push*)', { command: 'git', args: 'push*', prefix: false }],
    ['shell(ls)', { type: 'Shell', text: 'Shell(ls)' }],
    ['Write(src/**)', { type: 'Write', glob: 'src/**', text: 'Write(src/**)' }],
    ['Write(./src/**)', { type: 'Write', glob: 'src/**', text: 'Write(src/**)' }],
    ['Read(**/*.md)', { type: 'Read', glob: '**/*.md' }],
    ['WebFetch(*.example.com)', { type: 'WebFetch', domain: '*.example.com' }],
    ['Mcp(github:create_issue)', { type: 'Mcp', server: 'github', tool: 'create_issue' }],
  ])('%j', (value, rule) => {
    expect(parseRule('--allow', value)).toMatchObject(rule);
  });

  it('reads Shell(npm test) and Shell(npm:test) as the same rule', () => {
    expect(parseRule('--allow', 'Shell(npm test)')).toEqual(parseRule('--allow', 'Shell(npm:test)'));
  });

  it.each([
    ['exec', 'not a tool kind'],
    ['Bash(ls)', "unknown rule 'Bash'"],
    ['Shell()', 'nothing between'],
    ['Shell(npm:)', 'nothing after the command'],
    ['Shell(:test)', 'a command first'],
    ['Shell(ls', 'not a tool kind'],
    ['Mcp(github)', 'server:tool'],
    ['WebFetch(a b)', 'no spaces'],
    ['Shell(ls\nrm)', 'control characters'],
  ])('%j is a usage error naming it, on one line', (value, why) => {
    let err: unknown;
    try {
      parseRule('--deny', value);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(RhoError);
    const e = err as RhoError;
    expect(e.exitCode).toBe(2);
    expect(e.message).toContain("option '--deny'");
    expect(e.message).toContain(why);
    expect(e.message).not.toContain('\n');
  });

  it('collects one error per malformed value and keeps the good ones', () => {
    const { rules, errors } = parseRules(['execute', 'Bash(x)', 'Shell(ls)'], ['Nope(1)']);
    expect(rulesJson(rules)).toEqual({ allow: ['execute', 'Shell(ls)'], deny: [] });
    expect(errors.map((e) => e.message.split(':')[0])).toEqual([
      "option '--allow' got a malformed rule 'Bash(x)'",
      "option '--deny' got a malformed rule 'Nope(1)'",
    ]);
  });
});

describe("cursorRules writes them in Cursor's cmd:args form", () => {
  it.each([
    [['Shell(npm test)'], [], ['Shell(npm:test)'], []],
    [['Shell(npx vitest:*)'], [], ['Shell(npx:vitest)', 'Shell(npx:vitest *)'], []],
    [[], ['Shell(git push)'], [], ['Shell(git:push)', 'Shell(git:push *)']],
    [[], ['Shell(rm)', 'Shell(git:push*)'], [], ['Shell(rm)', 'Shell(git:push*)']],
    [
      ['execute', 'Write(src/**)'],
      ['execute', 'edit', 'delete'],
      ['Write(src/**)'],
      ['Shell(*)', 'Write(**)'],
    ],
    [['WebFetch(example.com)', 'Mcp(gh:issue)'], ['search'], ['WebFetch(example.com)', 'Mcp(gh:issue)'], []],
  ])('allow %j deny %j', (allow, deny, cAllow, cDeny) => {
    const { rules } = parseRules(allow, deny);
    expect(cursorRules(rules)).toEqual({ allow: cAllow, deny: cDeny });
  });
});
