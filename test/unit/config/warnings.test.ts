import { describe, expect, it } from 'vitest';
import type { CursorConfig } from '../../../src/config/cli-config.js';
import { configWarnings } from '../../../src/config/warnings.js';
import type { Fence, Policy, ToolKind } from '../../../src/options.js';

interface Case {
  name: string;
  mode?: string;
  deny?: string[];
  allowRules?: string[];
  policy: Policy;
  allow?: ToolKind[];
  plan?: boolean;
  fence?: Fence;
  codes: string[];
}

const config = (c: Case): CursorConfig => ({
  approvalMode: c.mode ?? 'unrestricted',
  approvalModeSet: c.mode !== undefined,
  permissions: { allow: c.allowRules ?? [], deny: c.deny ?? [] },
});

const FILE = '/home/dev/.cursor/cli-config.json';

const warningsOf = (c: Case) =>
  configWarnings({
    config: config(c),
    policy: c.policy,
    allow: c.allow ?? [],
    plan: c.plan ?? false,
    fence: c.fence,
    configFile: FILE,
  });

describe('configWarnings', () => {
  it.each<Case>([
    { name: "reject under Cursor's default", policy: 'reject', codes: ['policy-fences-nothing'] },
    { name: 'ask under unrestricted', mode: 'unrestricted', policy: 'ask', codes: ['policy-fences-nothing'] },
    { name: 'allow under unrestricted', mode: 'unrestricted', policy: 'allow', codes: [] },
    {
      name: 'reject with plan under unrestricted',
      policy: 'reject',
      plan: true,
      codes: ['policy-fences-nothing', 'plan-allows-shell'],
    },
    { name: 'reject under allowlist', mode: 'allowlist', policy: 'reject', codes: ['reads-edits-never-ask'] },
    { name: 'allow under allowlist', mode: 'allowlist', policy: 'allow', codes: [] },
    {
      name: 'reject with plan under allowlist',
      mode: 'allowlist',
      policy: 'reject',
      plan: true,
      codes: ['reads-edits-never-ask'],
    },
    {
      name: 'allow with plan under allowlist',
      mode: 'allowlist',
      policy: 'allow',
      plan: true,
      codes: ['plan-allows-shell'],
    },
    {
      name: 'reject --allow execute with plan under allowlist',
      mode: 'allowlist',
      policy: 'reject',
      allow: ['execute'],
      plan: true,
      codes: ['plan-allows-shell', 'reads-edits-never-ask'],
    },
    {
      name: 'allow with plan and Shell(*) denied',
      mode: 'allowlist',
      policy: 'allow',
      plan: true,
      deny: ['Shell(*)'],
      codes: [],
    },
    {
      name: 'allow with plan and Shell(*) denied under unrestricted',
      policy: 'allow',
      plan: true,
      deny: ['Shell(*)'],
      codes: [],
    },
    {
      name: 'reject under allowlist with reads and writes denied',
      mode: 'allowlist',
      policy: 'reject',
      deny: ['Read(**)', 'Write(**)'],
      codes: ['read-rules-miss-search'],
    },
    {
      name: 'a WebFetch deny rule',
      mode: 'allowlist',
      policy: 'allow',
      deny: ['WebFetch(example.com)'],
      codes: ['webfetch-deny-ignored'],
    },
    {
      name: 'a WebFetch allow rule',
      mode: 'allowlist',
      policy: 'allow',
      allowRules: ['WebFetch(example.com)'],
      codes: [],
    },
    {
      name: 'a Read allow rule',
      mode: 'allowlist',
      policy: 'allow',
      allowRules: ['Read(src/**)'],
      codes: ['read-rules-miss-search'],
    },
    {
      name: 'Shell and Write rules alone',
      mode: 'allowlist',
      policy: 'allow',
      deny: ['Shell(rm *)', 'Write(.env)'],
      allowRules: ['Shell(ls)'],
      codes: [],
    },
    { name: 'an unknown approvalMode', mode: 'yolo', policy: 'reject', codes: ['approval-mode-unknown'] },
    // A fence makes the config allowlist with deny rules, whatever the user's file says.
    {
      // Issue 23: the fence line says edits stay open under no-shell; a warning on every run said it again.
      name: 'reject under unrestricted, fence no-shell',
      policy: 'reject',
      fence: 'no-shell',
      codes: [],
    },
    {
      name: 'ask under allowlist, fence no-shell',
      mode: 'allowlist',
      policy: 'ask',
      fence: 'no-shell',
      codes: [],
    },
    { name: 'reject under unrestricted, fence read-only', policy: 'reject', fence: 'read-only', codes: [] },
    { name: 'plan with fence read-only', policy: 'allow', plan: true, fence: 'read-only', codes: [] },
    { name: 'plan with fence no-shell', policy: 'allow', plan: true, fence: 'no-shell', codes: [] },
    {
      name: 'plan with fence none',
      policy: 'allow',
      plan: true,
      fence: 'none',
      codes: ['plan-allows-shell'],
    },
    {
      name: 'auto-review under a fence',
      mode: 'auto-review',
      policy: 'reject',
      fence: 'read-only',
      codes: [],
    },
    { name: 'auto-review', mode: 'auto-review', policy: 'allow', codes: ['approval-mode-auto-review'] },
  ])('warns $codes for $name', (c) => {
    expect(warningsOf(c).map((w) => w.code)).toEqual(c.codes);
  });

  it("says unrestricted is Cursor's default only when the file does not set it", () => {
    const [unset] = warningsOf({ name: '', policy: 'reject', codes: [] });
    const [set] = warningsOf({ name: '', mode: 'unrestricted', policy: 'reject', codes: [] });
    expect(unset?.message).toContain(`(Cursor's default: ${FILE} does not set it)`);
    expect(unset?.message).toContain('there is nothing to reject and nothing is fenced');
    expect(set?.message).not.toContain("Cursor's default");
    expect(set?.message).toContain(`unrestricted in ${FILE}`);
  });

  it.each<Policy>(['reject', 'ask'])(
    'policy-fences-nothing under %s names no --permissions value and gives the three remedies',
    (policy) => {
      const [w] = warningsOf({ name: '', policy, codes: [] });
      expect(w?.code).toBe('policy-fences-nothing');
      expect(w?.message).not.toMatch(/--permissions (reject|ask)/);
      expect(w?.message).toContain(`set "approvalMode": "allowlist" in ${FILE}`);
      expect(w?.message).toContain('--fence no-shell or --fence read-only');
      expect(w?.message).toContain('--permissions allow');
    },
  );

  it('names only the kinds that never ask', () => {
    const [both] = warningsOf({ name: '', mode: 'allowlist', policy: 'reject', codes: [] });
    const [readOnly] = warningsOf({ name: '', mode: 'allowlist', policy: 'reject', plan: true, codes: [] });
    expect(both?.message).toMatch(/^reads and edits never ask permission under allowlist: rejecting/);
    expect(both?.message).not.toContain('--permissions reject');
    expect(readOnly?.message).toMatch(/^reads never ask/);
  });

  it('under ask says the person is not asked, never that asking fences nothing', () => {
    const [unrestricted] = warningsOf({ name: '', policy: 'ask', codes: [] });
    const [allowlist] = warningsOf({ name: '', mode: 'allowlist', policy: 'ask', codes: [] });
    expect(unrestricted?.message).toContain('you are never asked before a tool runs and nothing is fenced');
    expect(allowlist?.message).toContain(
      'reads and edits never ask permission under allowlist: you are not asked',
    );
    for (const w of [unrestricted, allowlist]) expect(w?.message).not.toMatch(/asking permission requests/);
  });

  it("following policy-fences-nothing's advice is told what stays open, and the next warning how to silence it", () => {
    const [first] = warningsOf({ name: '', policy: 'reject', codes: [] });
    expect(first?.message).toContain('shell and fetch then ask; reads and edits still run unasked');
    const [next] = warningsOf({ name: '', mode: 'allowlist', policy: 'reject', codes: [] });
    expect(next?.message).toContain('--no-warning reads-edits-never-ask');
  });

  it('names the unknown approvalMode', () => {
    expect(warningsOf({ name: '', mode: 'yolo', policy: 'allow', codes: [] })[0]?.message).toContain(
      "'yolo'",
    );
  });
});
