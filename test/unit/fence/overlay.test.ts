import { describe, expect, it } from 'vitest';
import { overlayConfig, overlayText } from '../../../src/fence/overlay.js';
import { cursorRules, parseRules } from '../../../src/policy/rules.js';

describe('overlayConfig', () => {
  it('starts from {"version": 1} where the user has no file', () => {
    expect(overlayConfig(undefined, 'no-shell')).toEqual({
      version: 1,
      approvalMode: 'allowlist',
      permissions: { allow: [], deny: ['Shell(*)'] },
    });
  });

  it('adds Shell(*) and Write(**) for read-only', () => {
    expect(overlayConfig(undefined, 'read-only').permissions).toEqual({
      allow: [],
      deny: ['Shell(*)', 'Write(**)'],
    });
  });

  it("keeps every other key of the user's file, in its place, and the user's own rules first", () => {
    const user = {
      version: 1,
      editor: { vimMode: true },
      approvalMode: 'unrestricted',
      permissions: { allow: ['Shell(ls)'], deny: ['Read(.env)'], extra: 'kept' },
      model: 'composer-2.5',
      futureKey: [1, 2],
    };
    const out = overlayConfig(user, 'read-only');
    expect(Object.keys(out)).toEqual([
      'version',
      'editor',
      'approvalMode',
      'permissions',
      'model',
      'futureKey',
    ]);
    expect(out).toEqual({
      ...user,
      approvalMode: 'allowlist',
      permissions: { allow: ['Shell(ls)'], deny: ['Read(.env)', 'Shell(*)', 'Write(**)'], extra: 'kept' },
    });
  });

  it("never changes the user's object", () => {
    const user = { approvalMode: 'unrestricted', permissions: { allow: [], deny: ['Write(x)'] } };
    const copy = structuredClone(user);
    overlayConfig(user, 'read-only');
    expect(user).toEqual(copy);
  });

  it('adds a fence rule the user already has only once', () => {
    const out = overlayConfig({ permissions: { deny: ['Shell(*)'] } }, 'no-shell');
    expect(out.permissions).toEqual({ allow: [], deny: ['Shell(*)'] });
  });

  it('sets allowlist whatever mode the user chose', () => {
    for (const mode of ['unrestricted', 'auto-review', 'allowlist', 'yolo']) {
      expect(overlayConfig({ approvalMode: mode }, 'no-shell').approvalMode).toBe('allowlist');
    }
  });

  it('writes JSON that parses back to the overlay', () => {
    const text = overlayText({ version: 1, model: 'm' }, 'no-shell');
    expect(text.endsWith('\n')).toBe(true);
    expect(JSON.parse(text)).toEqual(overlayConfig({ version: 1, model: 'm' }, 'no-shell'));
  });

  it('under read-only drops the allow rules that would let the network or MCP tools run unasked', () => {
    const user = {
      permissions: { allow: ['Shell(ls)', 'WebFetch(*)', 'WebFetch(example.com)', 'Mcp(gh:*)', 'Read(**)'] },
    };
    expect(overlayConfig(user, 'read-only').permissions).toMatchObject({ allow: ['Shell(ls)', 'Read(**)'] });
    expect(overlayConfig(user, 'no-shell').permissions).toMatchObject({ allow: user.permissions.allow });
  });
});

describe('overlayConfig with --allow and --deny rules', () => {
  const user = {
    version: 1,
    approvalMode: 'unrestricted',
    permissions: { allow: ['Shell(*)', 'WebFetch(*)'], deny: ['Read(.env)'] },
    model: 'm',
  };

  it("replaces the user's allow rules with the run's, so the user's config cannot widen them", () => {
    expect(overlayConfig(user, 'none', { allow: ['Shell(npm:test)'], deny: ['Shell(git:push)'] })).toEqual({
      version: 1,
      approvalMode: 'allowlist',
      permissions: { allow: ['Shell(npm:test)'], deny: ['Read(.env)', 'Shell(git:push)'] },
      model: 'm',
    });
  });

  // Only for the deny rules Cursor holds (Shell, Write, Read): the title once said "a deny wins in Cursor
  // anyway", which a WebFetch(...) or Mcp(...) deny does not (below).
  it("keeps the user's allow rules when the run only denies what Cursor holds (a Shell deny wins in Cursor)", () => {
    expect(overlayConfig(user, 'none', { allow: [], deny: ['Shell(rm)'] }).permissions).toEqual({
      allow: ['Shell(*)', 'WebFetch(*)'],
      deny: ['Read(.env)', 'Shell(rm)'],
    });
  });

  it("drops the user's WebFetch allows under a fetch deny Cursor ignores, and the Mcp ones under an Mcp deny", () => {
    const withMcp = {
      ...user,
      permissions: { ...user.permissions, allow: [...user.permissions.allow, 'Mcp(gh:*)'] },
    };
    const deny = cursorRules(parseRules([], ['WebFetch(evil.com)']).rules);
    expect(overlayConfig(withMcp, 'none', deny)).toMatchObject({
      approvalMode: 'allowlist',
      permissions: { allow: ['Shell(*)', 'Mcp(gh:*)'], deny: ['Read(.env)', 'WebFetch(evil.com)'] },
    });
    expect(overlayConfig(withMcp, 'none', cursorRules(parseRules([], ['fetch']).rules)).permissions).toEqual({
      allow: ['Shell(*)', 'Mcp(gh:*)'],
      deny: ['Read(.env)'],
    });
    expect(
      overlayConfig(withMcp, 'none', cursorRules(parseRules([], ['Mcp(gh:rm)']).rules)).permissions,
    ).toEqual({
      allow: ['Shell(*)', 'WebFetch(*)'],
      deny: ['Read(.env)', 'Mcp(gh:rm)'],
    });
    const own = cursorRules(parseRules(['WebFetch(*.com)', 'Mcp(gh:issue)'], ['fetch', 'Mcp(gh:rm)']).rules);
    expect(overlayConfig(withMcp, 'none', own).permissions).toMatchObject({ allow: ['Mcp(gh:issue)'] });
  });

  it("adds the run's deny rules after the fence's, once each", () => {
    expect(
      overlayConfig(undefined, 'no-shell', { allow: [], deny: ['Shell(*)', 'Write(**/.env*)'] }).permissions,
    ).toEqual({ allow: [], deny: ['Shell(*)', 'Write(**/.env*)'] });
  });
});
