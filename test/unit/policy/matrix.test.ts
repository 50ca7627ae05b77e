import { describe, expect, it } from 'vitest';
import type { CursorConfig } from '../../../src/config/cli-config.js';
import type { Fence, Policy, ToolKind } from '../../../src/options.js';
import { MATRIX_KINDS, answerFor, cell, gate, outcome, type Gate } from '../../../src/policy/matrix.js';

const config = (approvalMode: string, deny: string[] = []): CursorConfig => ({
  approvalMode,
  approvalModeSet: true,
  permissions: { allow: [], deny },
});

// Every matrix kind with its gate, from a row that lists them in MATRIX_KINDS order.
const row = (gates: Gate[]) => MATRIX_KINDS.map((kind, i) => ({ kind, gate: gates[i] }));

describe('gate', () => {
  it('covers read, search, edit, execute and fetch', () => {
    expect(MATRIX_KINDS).toEqual(['read', 'search', 'edit', 'execute', 'fetch']);
  });

  it.each(row(['runs', 'runs', 'runs', 'runs', 'runs']))(
    'runs $kind under unrestricted',
    ({ kind, gate: g }) => {
      expect(gate(kind, config('unrestricted'), false)).toBe(g);
    },
  );

  it.each(row(['runs', 'runs', 'runs', 'asks', 'asks']))(
    '$kind $gate under allowlist',
    ({ kind, gate: g }) => {
      expect(gate(kind, config('allowlist'), false)).toBe(g);
    },
  );

  it.each<{ mode: string; kind: ToolKind; gate: Gate }>([
    { mode: 'unrestricted', kind: 'edit', gate: 'blocked' },
    { mode: 'unrestricted', kind: 'delete', gate: 'blocked' },
    { mode: 'unrestricted', kind: 'move', gate: 'blocked' },
    { mode: 'unrestricted', kind: 'execute', gate: 'runs' },
    { mode: 'unrestricted', kind: 'read', gate: 'runs' },
    { mode: 'allowlist', kind: 'edit', gate: 'blocked' },
    { mode: 'allowlist', kind: 'execute', gate: 'asks' },
    { mode: 'allowlist', kind: 'fetch', gate: 'asks' },
  ])('plan mode: $kind $gate under $mode', ({ mode, kind, gate: g }) => {
    expect(gate(kind, config(mode), true)).toBe(g);
  });

  it.each<{ rule: string; kind: ToolKind; gate: Gate }>([
    { rule: 'Shell(*)', kind: 'execute', gate: 'blocked' },
    { rule: 'Shell(*)', kind: 'edit', gate: 'runs' },
    { rule: 'Shell(git push *)', kind: 'execute', gate: 'asks' },
    { rule: 'Write(**)', kind: 'edit', gate: 'blocked' },
    { rule: 'Write(**)', kind: 'delete', gate: 'blocked' },
    { rule: 'Write(**)', kind: 'execute', gate: 'asks' },
    { rule: 'Write(src/**)', kind: 'edit', gate: 'runs' },
    { rule: 'Read(**)', kind: 'read', gate: 'blocked' },
    { rule: 'Read(**/*)', kind: 'read', gate: 'blocked' },
    { rule: 'Read(**)', kind: 'search', gate: 'runs' },
    { rule: 'WebFetch(*)', kind: 'fetch', gate: 'asks' },
  ])('deny $rule: $kind $gate under allowlist', ({ rule, kind, gate: g }) => {
    expect(gate(kind, config('allowlist', [rule]), false)).toBe(g);
  });

  it.each<{ rule: string; kind: ToolKind }>([
    { rule: 'Shell(*)', kind: 'execute' },
    { rule: 'Write(**)', kind: 'edit' },
    { rule: 'Read(**)', kind: 'read' },
  ])('deny $rule blocks $kind under unrestricted too', ({ rule, kind }) => {
    expect(gate(kind, config('unrestricted', [rule]), false)).toBe('blocked');
  });

  it('lets WebFetch(*) block nothing under unrestricted', () => {
    expect(gate('fetch', config('unrestricted', ['WebFetch(*)']), false)).toBe('runs');
  });
});

describe('answerFor', () => {
  it.each<{ kind: ToolKind; policy: Policy; allow: ToolKind[]; answer: string }>([
    { kind: 'execute', policy: 'allow', allow: [], answer: 'allowed' },
    { kind: 'execute', policy: 'reject', allow: [], answer: 'rejected' },
    { kind: 'execute', policy: 'ask', allow: [], answer: 'person' },
    { kind: 'execute', policy: 'reject', allow: ['execute'], answer: 'allowed' },
    { kind: 'fetch', policy: 'ask', allow: ['execute'], answer: 'person' },
  ])('answers $kind under $policy with --allow $allow: $answer', ({ kind, policy, allow, answer }) => {
    expect(answerFor(kind, policy, allow)).toBe(answer);
  });
});

describe('outcome', () => {
  it.each<[ToolKind, string, Policy, ToolKind[], string[], boolean, string]>([
    ['execute', 'unrestricted', 'reject', [], [], false, 'runs'],
    ['execute', 'allowlist', 'reject', [], [], false, 'asks-rejected'],
    ['execute', 'allowlist', 'allow', [], [], false, 'asks-allowed'],
    ['fetch', 'allowlist', 'ask', [], [], false, 'asks-person'],
    ['execute', 'allowlist', 'reject', ['execute'], [], false, 'asks-allowed'],
    ['read', 'allowlist', 'reject', [], [], false, 'runs'],
    ['execute', 'allowlist', 'allow', [], ['Shell(*)'], false, 'blocked'],
    ['edit', 'allowlist', 'allow', [], [], true, 'blocked'],
    ['execute', 'unrestricted', 'reject', [], [], true, 'runs'],
  ])(
    '%s under %s, %s, --allow %j, deny %j, plan %s: %s',
    (kind, mode, policy, allow, deny, plan, expected) => {
      expect(outcome(kind, config(mode, deny), plan, policy, allow)).toBe(expected);
    },
  );
});

describe('cell under a fence', () => {
  // Whatever the user's config says: a fence makes it allowlist with its deny rules.
  it.each(['unrestricted', 'allowlist', 'auto-review'])('no-shell under %s', (mode) => {
    const c = config(mode);
    expect(cell('execute', c, false, 'allow', [], 'no-shell')).toEqual({
      outcome: 'blocked',
      by: 'config rule',
    });
    expect(cell('edit', c, false, 'reject', [], 'no-shell')).toEqual({ outcome: 'runs', by: 'nothing' });
    expect(cell('read', c, false, 'reject', [], 'no-shell')).toEqual({ outcome: 'runs', by: 'nothing' });
    expect(cell('search', c, false, 'reject', [], 'no-shell')).toEqual({ outcome: 'runs', by: 'nothing' });
    expect(cell('fetch', c, false, 'allow', [], 'no-shell')).toEqual({
      outcome: 'asks-allowed',
      by: 'permission answer',
    });
  });

  it.each(['unrestricted', 'allowlist'])('read-only under %s', (mode) => {
    const c = config(mode);
    expect(cell('execute', c, false, 'allow', [], 'read-only')).toEqual({
      outcome: 'blocked',
      by: 'config rule',
    });
    expect(cell('edit', c, false, 'allow', [], 'read-only')).toEqual({
      outcome: 'blocked',
      by: 'config rule',
    });
    expect(cell('fetch', c, false, 'allow', ['fetch'], 'read-only')).toEqual({
      outcome: 'asks-rejected',
      by: 'permission answer',
    });
    expect(cell('read', c, false, 'allow', [], 'read-only')).toEqual({ outcome: 'runs', by: 'nothing' });
    expect(cell('search', c, false, 'allow', [], 'read-only')).toEqual({ outcome: 'runs', by: 'nothing' });
  });

  it('names plan mode as what blocks an edit without a fence', () => {
    expect(cell('edit', config('allowlist'), true, 'allow', [], 'none')).toEqual({
      outcome: 'blocked',
      by: 'plan mode',
    });
  });

  it('names the deny rule before plan mode when both would block', () => {
    expect(cell('edit', config('allowlist'), true, 'allow', [], 'read-only').by).toBe('config rule');
  });

  it.each<[Fence, ToolKind, string]>([
    ['no-shell', 'execute', 'rejected'],
    ['no-shell', 'fetch', 'allowed'],
    ['read-only', 'fetch', 'rejected'],
    ['read-only', 'read', 'rejected'],
  ])('answerFor under %s: %s is %s even under allow', (fence, kind, answer) => {
    expect(answerFor(kind, 'allow', [kind], fence)).toBe(answer);
  });

  it('outcome keeps its old meaning without a fence', () => {
    expect(outcome('execute', config('unrestricted'), false, 'reject', [])).toBe('runs');
  });
});

describe('cell without a fence', () => {
  it('is the unfenced config’s cell: nothing stops a read when Cursor does not ask', () => {
    expect(cell('read', config('unrestricted'), false, 'reject', [])).toEqual({
      outcome: 'runs',
      by: 'nothing',
    });
    expect(cell('execute', config('allowlist'), false, 'reject', [])).toEqual({
      outcome: 'asks-rejected',
      by: 'permission answer',
    });
  });
});
