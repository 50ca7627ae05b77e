import { describe, expect, it } from 'vitest';
import { RhoError } from '../../../src/errors.js';
import {
  allowedKinds,
  cursorForm,
  cursorRules,
  needsCursorRules,
  NO_RULES,
  parseRule,
  parseRules,
  rulesJson,
} from '../../../src/policy/rules.js';
import { TOOL_KINDS } from '../../../src/options.js';
import { domainCovered } from '../../../src/policy/match.js';

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

// Parses a value, or gives the reason of its usage error (the end of the message after the value).
const parsed = (value: string): unknown => {
  try {
    return parseRule('--allow', value);
  } catch (e) {
    if (!(e instanceof RhoError)) throw e;
    return /got a malformed rule '.*': (.*); give a tool kind/s.exec(e.message)?.[1] ?? e.message;
  }
};

describe('parseRule on hostile and ordinary values', () => {
  it.each([
    ['Shell(ls\u0000)', 'control characters'],
    ['Shell(ls\u001f)', 'control characters'],
    ['Shell(ls\u007f)', 'control characters'],
    ['Shell(ls\trm)', 'control characters'],
    ['Shell(ls\rrm)', 'control characters'],
    ['Read(a\u001bb)', 'control characters'],
    ['Shell (ls)', 'not a tool kind, and not Kind(...)'],
    ['1Shell(ls)', 'not a tool kind, and not Kind(...)'],
    ['Shell(ls) x', 'not a tool kind, and not Kind(...)'],
    ['x Shell(ls)', 'not a tool kind, and not Kind(...)'],
    ['Shell[ls]', 'not a tool kind, and not Kind(...)'],
    ['Execute', 'not a tool kind, and not Kind(...)'],
    ['xShell(ls)', "unknown rule 'xShell'"],
    ['Shell(   )', 'nothing between the parentheses'],
    ['Read()', 'nothing between the parentheses'],
    ['Shell(:)', 'Shell needs a command first'],
    ['Shell(a:b c)', 'Shell needs a command first'],
    ['Shell(x: *)', 'Shell needs a command first'],
    ['Shell(git:)', 'nothing after the command'],
    ['Shell(git:push:*)', undefined],
    ['WebFetch(a\u00a0b)', 'a domain has no spaces'],
    ['Mcp(a:b:c)', 'Mcp takes server:tool'],
    ['Mcp(:b)', 'Mcp takes server:tool'],
    ['Mcp(a:)', 'Mcp takes server:tool'],
    ['Mcp(a)', 'Mcp takes server:tool'],
  ])('%j', (value, why) => {
    const r = parsed(value);
    if (why === undefined) expect(r).toMatchObject({ type: 'Shell' });
    else expect(r).toBe(why);
  });

  it('writes a value with control characters JSON-escaped in the message, so it stays one line', () => {
    expect(() => parseRule('--deny', 'Shell(ls\u0007)')).toThrow(
      "option '--deny' got a malformed rule 'Shell(ls\\u0007)': control characters",
    );
  });

  it.each([
    ['Shell(npm:*)', { command: 'npm', args: '*', prefix: false, text: 'Shell(npm:*)' }],
    ['Shell(npm ::*)', { command: 'npm', args: ':', prefix: true, text: 'Shell(npm ::*)' }],
    ['Shell(npm a:*)', { command: 'npm', args: 'a', prefix: true, text: 'Shell(npm a:*)' }],
    ['Shell(npm a :*)', { command: 'npm', args: 'a', prefix: true, text: 'Shell(npm a:*)' }],
    ['Shell(npm a  b)', { command: 'npm', args: 'a b', prefix: false, text: 'Shell(npm:a b)' }],
    ['Shell(npm\u00a0test)', { command: 'npm', args: 'test' }],
    ['SHELL(ls)', { type: 'Shell', command: 'ls', text: 'Shell(ls)' }],
    ['read(./a/b)', { type: 'Read', glob: 'a/b', text: 'Read(a/b)' }],
    ['Write(././a)', { type: 'Write', glob: './a', text: 'Write(./a)' }],
    ['Write(a/./b)', { type: 'Write', glob: 'a/./b' }],
    ['WebFetch( example.com )', { type: 'WebFetch', domain: 'example.com', text: 'WebFetch(example.com)' }],
    ['Mcp( gh : issue )', { type: 'Mcp', server: 'gh', tool: 'issue', text: 'Mcp(gh:issue)' }],
    ['Shell(a(b))', { type: 'Shell', command: 'a(b)' }],
    ['  edit  ', { type: 'kind', kind: 'edit', text: 'edit' }],
  ])('%j', (value, rule) => {
    expect(parseRule('--allow', value)).toMatchObject(rule);
  });

  it.each([...TOOL_KINDS])('takes the bare kind %s', (kind) => {
    expect(parseRule('--deny', kind)).toEqual({ type: 'kind', kind, text: kind });
  });

  it('lists the kinds and rule forms it takes in the error', () => {
    expect(() => parseRule('--allow', 'nope')).toThrow(
      `option '--allow' got a malformed rule 'nope': not a tool kind, and not Kind(...); give a tool kind (${TOOL_KINDS.join(', ')}) or a rule: Shell(cmd), Shell(cmd:args), Read(glob), Write(glob), WebFetch(domain), Mcp(server:tool)`,
    );
  });

  it('rethrows what is not a usage error', () => {
    expect(() => parseRules([{} as string], [])).toThrow(TypeError);
  });
});

describe('cursorForm: each rule as Cursor takes it', () => {
  it.each([
    ['execute', 'deny', ['Shell(*)']],
    ['edit', 'deny', ['Write(**)']],
    ['delete', 'deny', ['Write(**)']],
    ['move', 'deny', ['Write(**)']],
    ['read', 'deny', ['Read(**)']],
    ['search', 'deny', []],
    ['fetch', 'deny', []],
    ['execute', 'allow', []],
    ['edit', 'allow', []],
    ['Shell(npm)', 'deny', ['Shell(npm)']],
    ['Shell(npm test)', 'allow', ['Shell(npm:test)']],
    ['Shell(npm test)', 'deny', ['Shell(npm:test)', 'Shell(npm:test *)']],
    ['Shell(npm te*)', 'deny', ['Shell(npm:te*)']],
    ['Shell(npm te*:*)', 'allow', ['Shell(npm:te*)', 'Shell(npm:te* *)']],
    ['Read(src/**)', 'deny', ['Read(src/**)']],
    ['WebFetch(a.com)', 'allow', ['WebFetch(a.com)']],
  ] as const)('%s as %s: %j', (value, side, forms) => {
    expect(cursorForm(parseRule('--allow', value), side)).toEqual(forms);
  });

  it('writes each rule once, and needs a private config only when there is one', () => {
    const c = cursorRules(parseRules(['Shell(ls)', 'Shell(ls)', 'read'], ['edit', 'move']).rules);
    expect(c).toEqual({ allow: ['Shell(ls)'], deny: ['Write(**)'] });
    expect(needsCursorRules(c)).toBe(true);
    expect(needsCursorRules({ allow: [], deny: ['x'] })).toBe(true);
    expect(needsCursorRules({ allow: ['x'], deny: [] })).toBe(true);
    expect(needsCursorRules(cursorRules(parseRules(['read', 'execute'], []).rules))).toBe(false);
  });

  it('gives the bare kinds of --allow, and only those', () => {
    expect(allowedKinds(parseRules(['read', 'Shell(ls)', 'fetch'], ['edit']).rules)).toEqual([
      'read',
      'fetch',
    ]);
  });
});

describe('no rules, and the edges of the :* form', () => {
  it('shows no rules as empty lists, and needs no Cursor rules for them', () => {
    expect(rulesJson(NO_RULES)).toEqual({ allow: [], deny: [] });
    expect(cursorRules(NO_RULES)).toEqual({ allow: [], deny: [] });
    expect(needsCursorRules(cursorRules(NO_RULES))).toBe(false);
  });

  it('shows the deny rules as read, beside the allow rules', () => {
    const { rules } = parseRules(['read'], ['Shell(git push)', 'edit']);
    expect(rulesJson(rules)).toEqual({ allow: ['read'], deny: ['Shell(git:push)', 'edit'] });
  });

  it('reads :* as a prefix only after some arguments: Shell(npx::*) takes arguments that start with a colon', () => {
    expect(parseRule('--allow', 'Shell(npx::*)')).toMatchObject({
      command: 'npx',
      args: ':*',
      prefix: false,
    });
    expect(parseRule('--allow', 'Shell(npx a:*)')).toMatchObject({ command: 'npx', args: 'a', prefix: true });
  });
});

describe('a WebFetch(...) domain takes the form of a URL host (found by the rules review)', () => {
  it.each([
    ['WebFetch(münchen.de)', 'xn--mnchen-3ya.de'],
    ['WebFetch(EVIL.com)', 'evil.com'],
    ['WebFetch(evil.com.)', 'evil.com'],
    ['WebFetch(*.münchen.de)', '*.xn--mnchen-3ya.de'],
    ['WebFetch(*.Example.COM)', '*.example.com'],
    ['WebFetch(*)', '*'],
    ['WebFetch(1.2.3.4)', '1.2.3.4'],
  ])('%s reads the domain %s, which covers what it names', (value, domain) => {
    const rule = parseRule('--deny', value);
    expect(rule).toMatchObject({ type: 'WebFetch', domain, text: `WebFetch(${domain})` });
    if (domain.startsWith('*')) return;
    const url = `https://${value.slice('WebFetch('.length, -1)}/x`;
    expect(domainCovered((rule as { domain: string }).domain, url)).toBe(true);
  });

  it.each([
    ['WebFetch(https://evil.com)', 'a domain has no scheme'],
    ['WebFetch(http://evil.com/x)', 'a domain has no scheme'],
    ['WebFetch(evil.com:8080)', 'a domain has no port'],
    ['WebFetch(evil.com:)', 'a domain has no port'],
    ['WebFetch(evil.com/x)', 'a domain has no path'],
    ['WebFetch(evil.com?q)', 'a domain has no path'],
    ['WebFetch(u@evil.com)', 'a domain has no user info'],
    ['WebFetch(xn--zz)', 'not a domain name'],
    ['WebFetch(a..b)', 'not a domain name'],
    ['WebFetch(.)', 'not a domain name'],
    ['WebFetch(mü*.de)', 'not a domain name'],
  ])('%j is a usage error: %s', (value, why) => {
    expect(parsed(value)).toEqual(expect.stringContaining(why));
  });
});
