import { describe, expect, it } from 'vitest';
import type { CursorConfig } from '../../../src/config/cli-config.js';
import { fenceRejects, fenceRuleBlocks, fencedConfig } from '../../../src/fence/rules.js';
import { fenceLine, fenceSummary } from '../../../src/fence/summary.js';
import { TOOL_KINDS } from '../../../src/options.js';

const USER: CursorConfig = {
  approvalMode: 'unrestricted',
  approvalModeSet: false,
  permissions: { allow: ['Shell(ls)'], deny: ['Read(.env)'] },
};

describe('fencedConfig', () => {
  it('leaves the config alone under none', () => {
    expect(fencedConfig(USER, 'none')).toBe(USER);
  });

  it('is allowlist with the fence rules after the user rules', () => {
    expect(fencedConfig(USER, 'read-only')).toEqual({
      approvalMode: 'allowlist',
      approvalModeSet: true,
      permissions: { allow: ['Shell(ls)'], deny: ['Read(.env)', 'Shell(*)', 'Write(**)'] },
    });
  });
});

describe('fenceRejects', () => {
  it('rejects execute alone under no-shell', () => {
    expect(TOOL_KINDS.filter((k) => fenceRejects('no-shell', k))).toEqual(['execute']);
  });

  it('rejects every kind under read-only', () => {
    expect(TOOL_KINDS.every((k) => fenceRejects('read-only', k))).toBe(true);
  });

  it('rejects nothing under none', () => {
    expect(TOOL_KINDS.some((k) => fenceRejects('none', k))).toBe(false);
  });
});

describe('fenceRuleBlocks', () => {
  it.each([
    ['no-shell', 'execute', true],
    ['no-shell', 'edit', false],
    ['read-only', 'edit', true],
    ['read-only', 'delete', true],
    ['read-only', 'read', false],
    ['read-only', 'fetch', false],
    ['none', 'execute', false],
  ] as const)('%s: a %s call is stopped by a deny rule: %s', (fence, kind, blocked) => {
    expect(fenceRuleBlocks(fence, kind)).toBe(blocked);
  });
});

describe('fenceSummary', () => {
  it.each([
    ['none', [], ['read', 'search', 'edit', 'execute', 'fetch']],
    ['no-shell', ['execute'], ['read', 'search', 'edit', 'fetch']],
    ['read-only', ['edit', 'execute', 'fetch'], ['read', 'search']],
  ] as const)('%s blocks %j and leaves %j open', (fence, blocked, open) => {
    expect(fenceSummary(fence)).toMatchObject({ name: fence, blocked, open });
  });

  it.each([
    ['none', true, null],
    ['none', false, null],
    ['no-shell', true, "Cursor's deny rules in a private config dir, and permission answers"],
    ['read-only', false, 'permission answers and the ledger'],
  ] as const)('%s, Cursor rules %s: enforced by %j', (fence, rules, by) => {
    expect(fenceSummary(fence, rules).by).toBe(by);
  });

  it("says on its line when only the answers enforce it (an agent that is not Cursor's)", () => {
    expect(fenceLine(fenceSummary('no-shell', false))).toMatch(
      /^fence no-shell: blocks execute · .* · enforced only by permission answers and the ledger$/,
    );
  });

  it('never claims search blocked: no rule reaches grep and glob', () => {
    for (const f of ['none', 'no-shell', 'read-only'] as const)
      expect(fenceSummary(f).open).toContain('search');
  });

  it('prints one line saying why search stays open', () => {
    expect(fenceLine(fenceSummary('read-only'))).toBe(
      'fence read-only: blocks edit, execute, fetch · open: read, search (grep and glob: no rule reaches them)',
    );
  });
});
