import { describe, expect, it } from 'vitest';
import { breachOf, rejectedThatRan, type BreachFacts } from '../../../src/changes/breach.js';
import type { Changes } from '../../../src/changes/compare.js';

const none: Changes = { added: [], modified: [], deleted: [], unaccounted: [], truncated: false };
const changed: Changes = { ...none, added: ['x.sh'], unaccounted: ['x.sh'] };
const facts = (f: Partial<BreachFacts>): BreachFacts => ({
  fence: 'none',
  changes: none,
  shellRan: [],
  rejectedRan: [],
  outsideWriteRules: [],
  ...f,
});

describe('breachOf', () => {
  it.each([
    ['no fence, changes', facts({ changes: changed }), undefined],
    ['read-only, no change', facts({ fence: 'read-only' }), undefined],
    [
      'read-only, a change',
      facts({ fence: 'read-only', changes: changed }),
      '--fence read-only: the workspace changed: +x.sh',
    ],
    ['read-only, ledger off', facts({ fence: 'read-only', changes: null }), undefined],
    [
      'read-only, not measured',
      facts({ fence: 'read-only', changes: null, unmeasured: true }),
      "--fence read-only: the workspace's changes could not be measured",
    ],
    [
      'Write rules, not measured',
      facts({ changes: null, unmeasured: true, writeRules: true }),
      "the Write(...) rules: the workspace's changes could not be measured",
    ],
    ['no-shell, not measured', facts({ fence: 'no-shell', changes: null, unmeasured: true }), undefined],
    [
      'read-only, a look that could not see all of the workspace, nothing listed',
      facts({ fence: 'read-only', incomplete: ['it grew past the cap'] }),
      '--fence read-only: the ledger could not look at all of the workspace: it grew past the cap',
    ],
    [
      'Write rules, a look that could not see all of the workspace',
      facts({ incomplete: ['it grew past the cap'], writeRules: true }),
      'the Write(...) rules: the ledger could not look at all of the workspace',
    ],
    ['no promise, a look that could not see all of it', facts({ incomplete: ['it grew'] }), undefined],
    ['no-shell, a change (edits are allowed)', facts({ fence: 'no-shell', changes: changed }), undefined],
    [
      'no-shell, shell ran',
      facts({ fence: 'no-shell', changes: changed, shellRan: ['make'] }),
      'shell commands run that rho-cursor never allowed: make; unaccounted changes: x.sh',
    ],
    ['no fence, shell ran (not promised)', facts({ shellRan: ['make'] }), undefined],
    [
      'a rejected tool ran',
      facts({ rejectedRan: [{ title: 'Edit a', paths: ['a'] }] }),
      '"Edit a" was rejected but ran',
    ],
    [
      'outside the Write rules',
      facts({ outsideWriteRules: ['secret.env'] }),
      'outside the Write(...) rules: secret.env',
    ],
  ])('%s', (_, f, message) => {
    const e = breachOf(f);
    if (message === undefined) expect(e).toBeUndefined();
    else {
      expect(e?.code).toBe('fence_breached');
      expect(e?.exitCode).toBe(8);
      expect(e?.message).toContain(message);
    }
  });
});

describe('rejectedThatRan', () => {
  it('names the rejected tools whose paths changed, with those paths only', () => {
    const rejected = [
      { tool: { toolCallId: 'a', title: 'Edit a' }, paths: ['a.ts', 'b.ts'] },
      { tool: { toolCallId: 'b', title: '' }, paths: ['c.ts'] },
    ];
    expect(rejectedThatRan(rejected, { ...none, modified: ['b.ts'] })).toEqual([
      { toolCallId: 'a', title: 'Edit a', paths: ['b.ts'] },
    ]);
    expect(rejectedThatRan(rejected, { ...none, deleted: ['c.ts'] })).toEqual([
      { toolCallId: 'b', title: 'b', paths: ['c.ts'] },
    ]);
    expect(rejectedThatRan(rejected, null)).toEqual([]);
  });
});
