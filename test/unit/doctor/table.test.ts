// doctor's table against the spike's facts (cursor-acp-spike.md, checklist 2) for unrestricted, allowlist and
// deny-rule configs, and the fences on top of them.
import { describe, expect, it } from 'vitest';
import type { CursorConfig } from '../../../src/config/cli-config.js';
import { cellText, doctorTable, type Row } from '../../../src/doctor/table.js';
import type { Fence, Policy } from '../../../src/options.js';

const config = (approvalMode: string, deny: string[] = [], set = true): CursorConfig => ({
  approvalMode,
  approvalModeSet: set,
  permissions: { allow: [], deny },
});

// The row for a fence and policy as text cells in the order read, search, edit, execute, fetch.
function row(rows: Row[], fence: Fence, policy: Policy): string[] {
  const r = rows.find((x) => x.fence === fence && x.policy === policy)!;
  return [r.cells.read, r.cells.search, r.cells.edit, r.cells.execute, r.cells.fetch].map(cellText);
}

describe('doctorTable', () => {
  it('has a row for each fence and policy', () => {
    const rows = doctorTable(config('unrestricted'), false);
    expect(rows.map((r) => `${r.fence}/${r.policy}`)).toEqual([
      'none/reject',
      'none/allow',
      'none/ask',
      'no-shell/reject',
      'no-shell/allow',
      'no-shell/ask',
      'read-only/reject',
      'read-only/allow',
      'read-only/ask',
    ]);
  });

  it("unrestricted (Cursor's default): nothing asks, so without a fence every kind runs", () => {
    const rows = doctorTable(config('unrestricted', [], false), false);
    for (const p of ['reject', 'allow', 'ask'] as const) {
      expect(row(rows, 'none', p)).toEqual(['runs', 'runs', 'runs', 'runs', 'runs']);
    }
  });

  it('allowlist: only shell and fetch ask; reads, searches and edits never do', () => {
    const rows = doctorTable(config('allowlist'), false);
    expect(row(rows, 'none', 'reject')).toEqual(['runs', 'runs', 'runs', 'asks: rejected', 'asks: rejected']);
    expect(row(rows, 'none', 'allow')).toEqual(['runs', 'runs', 'runs', 'asks: allowed', 'asks: allowed']);
    expect(row(rows, 'none', 'ask')).toEqual(['runs', 'runs', 'runs', 'asks: you', 'asks: you']);
  });

  it('plan mode blocks edits but not shell (the plan-mode recording)', () => {
    const rows = doctorTable(config('allowlist'), true);
    expect(row(rows, 'none', 'reject')).toEqual([
      'runs',
      'runs',
      'blocked: plan',
      'asks: rejected',
      'asks: rejected',
    ]);
    const unrestricted = doctorTable(config('unrestricted'), true);
    expect(row(unrestricted, 'none', 'reject')).toEqual(['runs', 'runs', 'blocked: plan', 'runs', 'runs']);
  });

  it('deny Read(**) and WebFetch(*): read blocked, grep and glob still run, fetch ignores the rule and asks', () => {
    const rows = doctorTable(config('allowlist', ['Read(**)', 'WebFetch(*)']), false);
    expect(row(rows, 'none', 'reject')).toEqual([
      'blocked: rule',
      'runs',
      'runs',
      'asks: rejected',
      'asks: rejected',
    ]);
    expect(row(rows, 'none', 'allow')).toEqual([
      'blocked: rule',
      'runs',
      'runs',
      'asks: allowed',
      'asks: allowed',
    ]);
  });

  it('deny Shell(*) and Write(**) hold under any approvalMode', () => {
    const rows = doctorTable(config('unrestricted', ['Shell(*)', 'Write(**)']), false);
    expect(row(rows, 'none', 'allow')).toEqual(['runs', 'runs', 'blocked: rule', 'blocked: rule', 'runs']);
  });

  it.each(['unrestricted', 'allowlist', 'auto-review'])(
    'the fences hold whatever the config (%s)',
    (mode) => {
      const rows = doctorTable(config(mode), false);
      for (const p of ['reject', 'allow', 'ask'] as const) {
        expect(row(rows, 'read-only', p)).toEqual([
          'runs',
          'runs',
          'blocked: rule',
          'blocked: rule',
          'asks: rejected',
        ]);
      }
      expect(row(rows, 'no-shell', 'allow')).toEqual([
        'runs',
        'runs',
        'runs',
        'blocked: rule',
        'asks: allowed',
      ]);
      expect(row(rows, 'no-shell', 'reject')).toEqual([
        'runs',
        'runs',
        'runs',
        'blocked: rule',
        'asks: rejected',
      ]);
      expect(row(rows, 'no-shell', 'ask')).toEqual(['runs', 'runs', 'runs', 'blocked: rule', 'asks: you']);
    },
  );

  it('names the mechanism of each cell', () => {
    const rows = doctorTable(config('allowlist'), true);
    const r = rows.find((x) => x.fence === 'read-only' && x.policy === 'allow')!;
    expect(r.cells).toEqual({
      read: { outcome: 'runs', by: 'nothing' },
      search: { outcome: 'runs', by: 'nothing' },
      edit: { outcome: 'blocked', by: 'config rule' },
      execute: { outcome: 'blocked', by: 'config rule' },
      fetch: { outcome: 'asks-rejected', by: 'permission answer' },
    });
    const none = rows.find((x) => x.fence === 'none' && x.policy === 'allow')!;
    expect(none.cells.edit).toEqual({ outcome: 'blocked', by: 'plan mode' });
  });

  it('allow rules that cover everything make a kind run unasked; read-only drops the network one', () => {
    const c: CursorConfig = {
      approvalMode: 'allowlist',
      approvalModeSet: true,
      permissions: { allow: ['Shell(*)', 'WebFetch(*)'], deny: [] },
    };
    const rows = doctorTable(c, false);
    expect(row(rows, 'none', 'reject')).toEqual(['runs', 'runs', 'runs', 'runs', 'runs']);
    expect(rows[0]!.cells.execute).toEqual({ outcome: 'runs', by: 'config rule' });
    expect(row(rows, 'no-shell', 'reject')).toEqual(['runs', 'runs', 'runs', 'blocked: rule', 'runs']);
    expect(row(rows, 'read-only', 'allow')).toEqual([
      'runs',
      'runs',
      'blocked: rule',
      'blocked: rule',
      'asks: rejected',
    ]);
  });

  it('a narrow allow rule still leaves the kind asking', () => {
    const c: CursorConfig = {
      approvalMode: 'allowlist',
      approvalModeSet: true,
      permissions: { allow: ['Shell(ls)', 'WebFetch(example.com)'], deny: [] },
    };
    expect(row(doctorTable(c, false), 'none', 'reject').slice(3)).toEqual([
      'asks: rejected',
      'asks: rejected',
    ]);
  });
});

describe('the table under a bare --deny (found by the rules review)', () => {
  it('rejects the denied kind where it asks, under --permissions allow too', () => {
    const config = { approvalMode: 'allowlist', approvalModeSet: true, permissions: { allow: [], deny: [] } };
    const rows = doctorTable(config, false, [], ['fetch']);
    expect(rows.find((r) => r.fence === 'none' && r.policy === 'allow')?.cells.fetch.outcome).toBe(
      'asks-rejected',
    );
  });
});
