import { describe, expect, it } from 'vitest';
import { rulesReport } from '../../../src/doctor/rules.js';
import { parseRules } from '../../../src/policy/rules.js';

const USER = {
  approvalMode: 'unrestricted',
  approvalModeSet: false,
  permissions: { allow: ['Shell(*)'], deny: [] },
};
const report = (allow: string[], deny: string[], fence: 'none' | 'no-shell' = 'none') =>
  rulesReport(parseRules(allow, deny).rules, fence, 'reject', USER, false);

describe("doctor's rules view", () => {
  it('shows the rules as read and as Cursor gets them, and what each kind does under them', () => {
    const r = report(['Shell(npm test)', 'Write(src/**)'], ['Shell(git push)']);
    expect(r.allow).toEqual(['Shell(npm:test)', 'Write(src/**)']);
    expect(r.cursor).toEqual({
      allow: ['Shell(npm:test)', 'Write(src/**)'],
      deny: ['Shell(git:push)', 'Shell(git:push *)'],
    });
    expect(r.kinds.execute).toBe(
      'runs without asking: Shell(npm:test) (every part of a compound command) · blocked: Shell(git:push), Shell(git:push *) · anything else asks: rejected',
    );
    expect(r.kinds.edit).toMatch(
      /^runs · outside Write\(src\/\*\*\): rejected when asked, and a change there is a breach/,
    );
    expect(r.kinds.search).toBe('runs (grep and glob: no rule reaches them)');
  });

  it("the user's Shell(*) no longer lets everything run once the run has allow rules", () => {
    expect(report(['Shell(ls)'], []).kinds.execute).toMatch(/anything else asks: rejected$/);
  });

  it('under no-shell the fence blocks execute whatever the deny rules', () => {
    expect(report([], ['Shell(git push)'], 'no-shell').kinds.execute).toMatch(/blocked: rule$/);
  });
});

describe("doctor's rules view says what the run does (found by the rules review)", () => {
  const under = (deny: string[], policy: 'allow' | 'reject', user?: Record<string, unknown>) =>
    rulesReport(parseRules([], deny).rules, 'none', policy, USER, false, user);

  it('a denied kind is rejected when asked, under --permissions allow too', () => {
    expect(under(['fetch'], 'allow').kinds.fetch).toBe('asks: rejected · --deny fetch');
  });

  it('a catch-all deny reads as blocked, with nothing else to say', () => {
    expect(under(['execute'], 'allow').kinds.execute).toBe('blocked: Shell(*) · --deny execute');
    expect(under(['edit'], 'allow').kinds.edit).toBe('blocked: Write(**) · --deny edit');
    expect(report(['Write(src/**)'], []).kinds.edit).toBe(
      'runs · outside Write(src/**): rejected when asked, and a change there is a breach (exit 8)',
    );
  });

  it("shows Cursor's private config as the run writes it, or none", () => {
    const user = { version: 1, permissions: { allow: ['Shell(ls)', 'WebFetch(*)'], deny: ['Read(.env)'] } };
    expect(under(['Shell(rm)'], 'reject', user).privateConfig).toEqual({
      approvalMode: 'allowlist',
      allow: ['Shell(ls)', 'WebFetch(*)'],
      deny: ['Read(.env)', 'Shell(rm)'],
      dropped: [],
    });
    expect(under(['fetch'], 'reject', user).privateConfig).toEqual({
      approvalMode: 'allowlist',
      allow: ['Shell(ls)'],
      deny: ['Read(.env)'],
      dropped: ['WebFetch(*)'],
    });
    expect(
      rulesReport(parseRules(['execute'], []).rules, 'none', 'reject', USER, false, user).privateConfig,
    ).toBe(null);
  });
});
