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
