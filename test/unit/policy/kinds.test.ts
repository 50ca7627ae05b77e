import { describe, expect, it } from 'vitest';
import { TOOL_KINDS } from '../../../src/options.js';
import { BY_DANGER, moreDangerous, widenedByWebId } from '../../../src/policy/kinds.js';

describe('the order of danger among kinds', () => {
  it('knows every tool kind and switch_mode, each once', () => {
    expect(new Set(BY_DANGER)).toEqual(new Set([...TOOL_KINDS, 'switch_mode']));
    expect(BY_DANGER).toHaveLength(new Set(BY_DANGER).size);
  });

  it.each([
    ['read', 'execute', 'execute'],
    ['execute', 'read', 'execute'],
    ['edit', 'delete', 'delete'],
    ['move', 'edit', 'move'],
    ['fetch', 'edit', 'edit'],
    ['search', 'fetch', 'fetch'],
    ['think', 'other', 'other'],
    ['read', 'read', 'read'],
    // A kind not listed is as dangerous as execute.
    ['shell', 'read', 'shell'],
    ['execute', 'shell', 'execute'],
  ])('of %s and %s, %s', (a, b, more) => {
    expect(moreDangerous(a, b)).toBe(more);
  });
});

describe('a web toolCallId only widens', () => {
  // Found by review: web_fetch_/web_search_ made an execute `rm -rf ~` and an edit out of the workspace a fetch.
  it.each([
    ['execute', 'web_fetch_1', 'execute'],
    ['edit', 'web_search_2', 'edit'],
    ['delete', 'web_fetch_1', 'delete'],
    ['move', 'web_search_1', 'move'],
    ['search', 'web_search_1', 'fetch'],
    ['read', 'web_fetch_1', 'fetch'],
    ['other', 'web_fetch_3', 'fetch'],
    ['fetch', 'web_fetch_3', 'fetch'],
    ['search', 'tool_web_search_1', 'search'],
  ])('a %s request with id %s counts as %s', (kind, id, as) => {
    expect(widenedByWebId(kind, id)).toBe(as);
  });
});
