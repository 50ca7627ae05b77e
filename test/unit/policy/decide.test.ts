import { describe, expect, it } from 'vitest';
import type { Fence, Policy, ToolKind } from '../../../src/options.js';
import {
  PLAN_ONLY_REASON,
  READ_ONLY_PLAN_REASON,
  QUESTION_SKIP,
  SKIP_QUESTION_REASON,
  decidePermission,
  decidePlan,
  isRejection,
  permissionResult,
  readPermissionRequest,
  requestKind,
  type Verdict,
} from '../../../src/policy/decide.js';

// Cursor's three options, as the spike recorded them.
const CURSOR_OPTIONS = [
  { optionId: 'allow-once', name: 'Allow once', kind: 'allow_once' },
  { optionId: 'allow-always', name: 'Always allow', kind: 'allow_always' },
  { optionId: 'reject-once', name: 'Reject', kind: 'reject_once' },
];

// A session/request_permission's params, read the way the run reads them.
const request = (kind: string, options: unknown[] = CURSOR_OPTIONS, toolCallId = 'tool_ba1e') =>
  readPermissionRequest({
    sessionId: 's1',
    toolCall: {
      toolCallId,
      title: '`wc -l hello.txt`',
      kind,
      status: 'pending',
      content: [{ type: 'content', content: { type: 'text', text: 'Shell allowlist is empty' } }],
    },
    options,
  });

const QUESTION = readPermissionRequest({
  sessionId: 's1',
  toolCall: { toolCallId: 'tool_b7a3', title: 'Greeting tone', kind: 'other', status: 'pending' },
  options: [
    { optionId: 'tone:formal', name: 'Formal', kind: 'allow_once' },
    { optionId: 'tone:casual', name: 'Casual', kind: 'allow_once' },
    { optionId: QUESTION_SKIP, name: 'Skip', kind: 'reject_once' },
  ],
});

describe('readPermissionRequest', () => {
  it("reads the tool, its options and Cursor's reason", () => {
    expect(request('execute')).toEqual({
      toolCallId: 'tool_ba1e',
      title: '`wc -l hello.txt`',
      kind: 'execute',
      options: CURSOR_OPTIONS,
      agentReason: 'Shell allowlist is empty',
      isQuestion: false,
    });
  });

  it('recognises a question by its skip option', () => {
    expect(QUESTION.isQuestion).toBe(true);
  });

  const answers = QUESTION.options.filter((o) => o.optionId !== QUESTION_SKIP);
  const skip = { optionId: QUESTION_SKIP, name: 'Skip', kind: 'reject_once' };
  it.each<[string, unknown, object[], boolean]>([
    ['no kind', undefined, [...answers, skip], true],
    ['kind think', 'think', [...answers, skip], true],
    ['kind execute', 'execute', [...answers, skip], false],
    ['kind edit', 'edit', [...answers, skip], false],
    ['an unknown kind', 'shell', [...answers, skip], false],
    ['an allow_always answer', 'other', [{ optionId: 'y', name: 'Yes', kind: 'allow_always' }, skip], false],
    ['a skip that allows', 'other', [...answers, { ...skip, kind: 'allow_once' }], false],
    ['no skip', 'other', answers, false],
  ])('with %s it is a question: %s', (_, kind, options, question) => {
    const req = readPermissionRequest({ toolCall: { toolCallId: 't', title: 'Q?', kind }, options });
    expect(req.isQuestion).toBe(question);
  });

  it('judges a request shaped as a question for an execute tool by the fence, never asks it as one', () => {
    // Found by review: "Shall I keep the formatting?" with the skip option, for a tool announced as
    // `curl ... | sh`, was asked as a question under --fence no-shell, its allow_always sent as the answer.
    const req = readPermissionRequest({
      toolCall: { toolCallId: 't9', title: 'Shall I keep the current formatting?', kind: 'execute' },
      options: [
        { optionId: 'allow-always', name: 'Yes, keep it', kind: 'allow_always' },
        { optionId: 'allow-once', name: 'No, reformat', kind: 'allow_once' },
        skip,
      ],
    });
    expect(decidePermission(req, 'ask', [], true, 'no-shell')).toEqual({
      decision: { optionId: QUESTION_SKIP, kind: 'reject_once' },
      reason: '--fence no-shell rejects execute requests',
      decidedBy: 'policy',
    });
  });

  // Contract v3: a request with no kind is judged as execute (it was `other`).
  it('reads malformed params as an empty request judged as execute', () => {
    expect(readPermissionRequest(null)).toEqual({
      toolCallId: '',
      title: '',
      kind: 'execute',
      kindNote: 'the request has no kind: judged as execute',
      options: [],
      agentReason: null,
      isQuestion: false,
    });
  });
});

describe('decidePermission', () => {
  it.each<[Policy, boolean, ToolKind[], string, string, string]>([
    ['reject', false, [], 'execute', 'reject-once', 'policy'],
    ['reject', true, [], 'execute', 'reject-once', 'policy'],
    ['reject', false, [], 'fetch', 'reject-once', 'policy'],
    ['reject', false, ['execute'], 'execute', 'allow-once', 'allow-flag'],
    ['reject', false, ['read'], 'execute', 'reject-once', 'policy'],
    ['allow', false, [], 'execute', 'allow-once', 'policy'],
    ['allow', true, [], 'fetch', 'allow-once', 'policy'],
    ['allow', false, ['fetch'], 'execute', 'allow-once', 'policy'],
    ['ask', false, [], 'execute', 'reject-once', 'policy'],
    ['ask', false, ['fetch'], 'fetch', 'allow-once', 'allow-flag'],
    ['ask', true, ['execute'], 'execute', 'allow-once', 'allow-flag'],
  ])(
    '%s policy, interactive %s, --allow %j: %s gets %s by %s',
    (policy, interactive, allow, kind, optionId, by) => {
      const verdict = decidePermission(request(kind), policy, allow, interactive);
      expect(verdict?.decision).toEqual({ optionId, kind: optionId.replace('-', '_') });
      expect(verdict?.decidedBy).toBe(by);
      expect(verdict?.reason).toMatch(/--(permissions|allow)/);
    },
  );

  it.each<{ allow: ToolKind[]; kind: string }>([
    { allow: [], kind: 'execute' },
    { allow: [], kind: 'fetch' },
    { allow: ['execute'], kind: 'fetch' },
  ])('leaves $kind to the person under ask at a terminal with --allow $allow', ({ allow, kind }) => {
    expect(decidePermission(request(kind), 'ask', allow, true)).toBeUndefined();
  });

  it('names the missing terminal when ask falls back to rejection', () => {
    expect(decidePermission(request('execute'), 'ask', [], false)?.reason).toBe(
      '--permissions ask with no terminal',
    );
  });

  it.each<{ policy: Policy; optionId: string }>([
    { policy: 'allow', optionId: 'allow-once' },
    { policy: 'reject', optionId: 'reject-once' },
  ])('picks the _once option under $policy even when the _always ones come first', ({ policy, optionId }) => {
    const options = [
      { optionId: 'allow-always', name: 'Always allow', kind: 'allow_always' },
      { optionId: 'reject-always', name: 'Always reject', kind: 'reject_always' },
      { optionId: 'reject-once', name: 'Reject', kind: 'reject_once' },
      { optionId: 'allow-once', name: 'Allow once', kind: 'allow_once' },
    ];
    const verdict = decidePermission(request('execute', options), policy, [], false);
    expect(verdict?.decision).toMatchObject({ optionId });
  });

  it.each<{ policy: Policy; options: typeof CURSOR_OPTIONS; missing: string }>([
    { policy: 'allow', options: [CURSOR_OPTIONS[1]!, CURSOR_OPTIONS[2]!], missing: 'allow_once' },
    { policy: 'reject', options: [CURSOR_OPTIONS[0]!, CURSOR_OPTIONS[1]!], missing: 'reject_once' },
    {
      policy: 'reject',
      options: [{ optionId: 'reject-always', name: 'Always reject', kind: 'reject_always' }],
      missing: 'reject_once',
    },
    { policy: 'allow', options: [], missing: 'allow_once' },
  ])('cancels under $policy when no $missing option is offered', ({ policy, options, missing }) => {
    expect(decidePermission(request('execute', options), policy, [], false)).toEqual({
      decision: { outcome: 'cancelled' },
      reason: expect.stringContaining(`no ${missing} option offered`),
      decidedBy: 'no-option',
    });
  });

  it.each<{ policy: Policy; interactive: boolean }>([
    { policy: 'reject', interactive: false },
    { policy: 'allow', interactive: false },
    { policy: 'ask', interactive: false },
    { policy: 'reject', interactive: true },
    { policy: 'allow', interactive: true },
  ])('skips a question under $policy, interactive $interactive', ({ policy, interactive }) => {
    expect(decidePermission(QUESTION, policy, ['other'], interactive)).toMatchObject({
      decision: { optionId: QUESTION_SKIP, kind: 'reject_once' },
      decidedBy: 'policy',
    });
  });

  it('leaves a question to the person under ask at a terminal', () => {
    expect(decidePermission(QUESTION, 'ask', [], true)).toBeUndefined();
  });
});

describe('permissionResult', () => {
  it.each<{ name: string; verdict: Verdict; result: unknown }>([
    {
      name: 'a chosen option is selected',
      verdict: {
        decision: { optionId: 'reject-once', kind: 'reject_once' },
        reason: '',
        decidedBy: 'policy',
      },
      result: { outcome: { outcome: 'selected', optionId: 'reject-once' } },
    },
    {
      name: 'no option is cancelled',
      verdict: { decision: { outcome: 'cancelled' }, reason: '', decidedBy: 'no-option' },
      result: { outcome: { outcome: 'cancelled' } },
    },
  ])('$name', ({ verdict, result }) => {
    expect(permissionResult(verdict)).toEqual(result);
  });
});

describe('isRejection', () => {
  it.each([
    { decision: { optionId: 'reject-once', kind: 'reject_once' }, rejected: true },
    { decision: { outcome: 'cancelled' as const }, rejected: true },
    { decision: { optionId: 'allow-once', kind: 'allow_once' }, rejected: false },
  ])('$decision is a rejection: $rejected', ({ decision, rejected }) => {
    expect(isRejection({ decision, reason: '', decidedBy: 'policy' })).toBe(rejected);
  });
});

describe('decidePlan', () => {
  it.each<{ policy: Policy; interactive: boolean }>([
    { policy: 'allow', interactive: false },
    { policy: 'ask', interactive: true },
    { policy: 'reject', interactive: false },
  ])(
    'rejects the plan of a --plan run under $policy, asking for it as the answer',
    ({ policy, interactive }) => {
      expect(decidePlan(policy, true, interactive)).toEqual({
        outcome: 'rejected',
        reason: PLAN_ONLY_REASON,
      });
    },
  );

  it.each<{ policy: Policy; interactive: boolean; outcome: string | undefined }>([
    { policy: 'allow', interactive: false, outcome: 'accepted' },
    { policy: 'allow', interactive: true, outcome: 'accepted' },
    { policy: 'reject', interactive: false, outcome: 'rejected' },
    { policy: 'reject', interactive: true, outcome: 'rejected' },
    { policy: 'ask', interactive: false, outcome: 'rejected' },
    { policy: 'ask', interactive: true, outcome: undefined },
  ])(
    'answers a plan under $policy, interactive $interactive: $outcome',
    ({ policy, interactive, outcome }) => {
      const answer = decidePlan(policy, false, interactive);
      expect(answer?.outcome).toBe(outcome);
      if (answer?.outcome === 'rejected') {
        expect(answer.reason).not.toBe(PLAN_ONLY_REASON);
        expect(answer.reason).toMatch(/not approved/);
      }
    },
  );
});

describe('the network is one kind', () => {
  it.each([
    ['fetch', 'web_fetch_0', 'fetch'],
    ['search', 'web_search_0', 'fetch'],
    ['other', 'web_fetch_3', 'fetch'],
    ['fetch', 'tool_1', 'fetch'],
    ['search', 'tool_grep_1', 'search'],
    ['execute', 'tool_1', 'execute'],
    ['switch_mode', 'tool_1', 'switch_mode'],
  ])('a %s request with id %s counts as %s', (kind, id, as) => {
    expect(requestKind({ kind, toolCallId: id })).toBe(as);
  });

  // Only Cursor's own ids name the web: one that merely holds the words is judged by its kind.
  it.each([
    ['tool_web_search_0', 'search'],
    ['xweb_fetch_1', 'search'],
    ['a\nweb_search_1', 'search'],
    [' web_search_1', 'search'],
    ['web_search', 'search'],
    ['web_searcher_1', 'search'],
    ['web_fetchx_1', 'search'],
    ['web__search_1', 'search'],
    ['WEB_SEARCH_1', 'search'],
    ['web_search_', 'fetch'],
    ['web_fetch_', 'fetch'],
  ])('a search request with id %j counts as %s', (id, as) => {
    expect(requestKind({ kind: 'search', toolCallId: id })).toBe(as);
  });

  it.each<Fence>(['none', 'no-shell'])('--allow search never opens web search (fence %s)', (fence) => {
    const verdict = decidePermission(
      request('search', CURSOR_OPTIONS, 'web_search_0'),
      'reject',
      ['search'],
      false,
      fence,
    );
    expect(verdict?.decision).toEqual({ optionId: 'reject-once', kind: 'reject_once' });
    expect(verdict?.reason).toContain('search of the web counts as fetch');
  });

  it('--allow fetch allows web search, outside a read-only fence', () => {
    const verdict = decidePermission(
      request('search', CURSOR_OPTIONS, 'web_search_0'),
      'reject',
      ['fetch'],
      false,
    );
    expect(verdict).toMatchObject({ decision: { optionId: 'allow-once' }, decidedBy: 'allow-flag' });
  });

  it('--allow search still allows a search request that is not the web', () => {
    const verdict = decidePermission(
      request('search', CURSOR_OPTIONS, 'tool_9'),
      'reject',
      ['search'],
      false,
    );
    expect(verdict?.decision).toMatchObject({ optionId: 'allow-once' });
  });
});

describe('decidePermission under a fence', () => {
  it.each<[Fence, Policy, ToolKind[], string, string, string]>([
    ['no-shell', 'allow', [], 'execute', 'tool_1', 'reject-once'],
    ['no-shell', 'ask', [], 'execute', 'tool_1', 'reject-once'],
    ['no-shell', 'allow', [], 'fetch', 'web_fetch_0', 'allow-once'],
    ['no-shell', 'reject', ['fetch'], 'fetch', 'web_fetch_0', 'allow-once'],
    ['no-shell', 'reject', [], 'fetch', 'web_fetch_0', 'reject-once'],
    ['read-only', 'allow', [], 'fetch', 'web_fetch_0', 'reject-once'],
    ['read-only', 'allow', [], 'search', 'web_search_0', 'reject-once'],
    ['read-only', 'allow', [], 'execute', 'tool_1', 'reject-once'],
    ['read-only', 'allow', [], 'edit', 'tool_1', 'reject-once'],
    ['read-only', 'allow', [], 'read', 'tool_1', 'reject-once'],
    ['read-only', 'allow', [], 'other', 'tool_1', 'reject-once'],
    ['none', 'allow', [], 'execute', 'tool_1', 'allow-once'],
  ])('%s, %s, --allow %j: %s (%s) gets %s', (fence, policy, allow, kind, id, optionId) => {
    const verdict = decidePermission(request(kind, CURSOR_OPTIONS, id), policy, allow, false, fence);
    expect(verdict?.decision).toMatchObject({ optionId });
  });

  it('rejects a fenced kind without asking the person at the terminal', () => {
    const verdict = decidePermission(request('execute'), 'ask', [], true, 'no-shell');
    expect(verdict).toEqual({
      decision: { optionId: 'reject-once', kind: 'reject_once' },
      reason: '--fence no-shell rejects execute requests',
      decidedBy: 'policy',
    });
  });

  it('says read-only rejects every permission request', () => {
    expect(decidePermission(request('fetch'), 'allow', [], false, 'read-only')?.reason).toBe(
      '--fence read-only rejects every permission request',
    );
  });

  it('still skips a question under read-only, and leaves it to the person at a terminal', () => {
    expect(decidePermission(QUESTION, 'reject', [], false, 'read-only')?.decision).toMatchObject({
      optionId: QUESTION_SKIP,
    });
    expect(decidePermission(QUESTION, 'ask', [], true, 'read-only')).toBeUndefined();
  });
});

describe('decidePlan under a fence', () => {
  it.each<Policy>(['allow', 'ask', 'reject'])(
    'read-only rejects a plan under %s: it cannot be carried out',
    (policy) => {
      expect(decidePlan(policy, false, true, 'read-only')).toEqual({
        outcome: 'rejected',
        reason: READ_ONLY_PLAN_REASON,
      });
    },
  );

  it('no-shell leaves the plan to the policy', () => {
    expect(decidePlan('allow', false, false, 'no-shell')).toEqual({ outcome: 'accepted' });
  });
});

describe('decisions on what rho-cursor knows (contract v3)', () => {
  it.each<{ options: typeof CURSOR_OPTIONS; policy: Policy }>([
    {
      options: [
        { optionId: 'x', name: 'Allow', kind: 'allow_once' },
        { optionId: 'x', name: 'Reject', kind: 'reject_once' },
      ],
      policy: 'reject',
    },
    {
      options: [
        { optionId: 'x', name: 'Allow', kind: 'allow_once' },
        { optionId: 'x', name: 'Reject', kind: 'reject_once' },
      ],
      policy: 'allow',
    },
    {
      options: [
        { optionId: QUESTION_SKIP, name: 'Skip', kind: 'reject_once' },
        { optionId: QUESTION_SKIP, name: 'Yes', kind: 'allow_once' },
      ],
      policy: 'reject',
    },
  ])('options with a duplicate optionId are ambiguous: cancelled under $policy', ({ options, policy }) => {
    const req = readPermissionRequest({ toolCall: { toolCallId: 't', kind: 'read' }, options });
    expect(decidePermission(req, policy, [], false)).toMatchObject({ decision: { outcome: 'cancelled' } });
  });

  it.each<[unknown, string]>([
    ['shell', 'execute'],
    [undefined, 'execute'],
    [42, 'execute'],
    ['read', 'read'],
    ['other', 'other'],
    ['switch_mode', 'switch_mode'],
  ])('a request of kind %j is judged as %s', (kind, judged) => {
    expect(readPermissionRequest({ toolCall: { toolCallId: 't', kind } }).kind).toBe(judged);
  });

  it.each<[Fence, Policy, ToolKind[]]>([
    ['no-shell', 'allow', []],
    ['none', 'reject', ['other', 'read']],
  ])('an unknown kind under --fence %s --permissions %s --allow %j is rejected', (fence, policy, allow) => {
    const req = readPermissionRequest({
      toolCall: { toolCallId: 't', kind: 'shell' },
      options: CURSOR_OPTIONS,
    });
    const v = decidePermission(req, policy, allow, false, fence);
    expect(v).toMatchObject({ decision: { optionId: 'reject-once' } });
  });
});

describe('readPermissionRequest reads what it is sent leniently', () => {
  it('reads options of any shape into strings, and drops what is not an option', () => {
    const r = readPermissionRequest({
      toolCall: { toolCallId: 7, title: 9, kind: 'read', content: 'x' },
      options: [
        { optionId: 3 },
        { optionId: 'a', name: 5, kind: 6 },
        { name: 'no id', kind: 'allow_once' },
        'allow',
        null,
      ],
    });
    expect(r).toEqual({
      // A numeric id is the same tool as its text (the tool store keys it so).
      toolCallId: '7',
      title: '',
      kind: 'read',
      options: [
        { optionId: '3', name: '3', kind: '' },
        { optionId: 'a', name: 'a', kind: '' },
        { optionId: '', name: 'no id', kind: 'allow_once' },
      ],
      agentReason: null,
      isQuestion: false,
      // What is not an option is no option, but it is kept, as sent (nothing the agent sent is lost); so are a
      // title, content, name or kind of the wrong type.
      extra: {
        'params.options': ['allow', null],
        'params.toolCall.title': 9,
        'params.toolCall.content': 'x',
        'params.options.1.name': 5,
        'params.options.1.kind': 6,
      },
    });
  });

  it('keeps the params beyond the session, the tool call and the options as extra `params.<name>`', () => {
    const r = readPermissionRequest({
      sessionId: 's1',
      toolCall: { toolCallId: 't', title: 'run', kind: 'execute' },
      options: CURSOR_OPTIONS,
      _meta: { trace: 'x' },
      urgency: 2,
    });
    expect(r.extra).toEqual({ 'params._meta': { trace: 'x' }, 'params.urgency': 2 });
    expect(request('execute')).not.toHaveProperty('extra');
  });

  // Found by review: a permission event dropped what its tool call and options carried beyond what it shows
  // (an edit's diff, the command's rawInput, its locations, an option's _meta).
  it('keeps what the tool call and each option carry beyond what the event shows, as `params.toolCall.<name>`', () => {
    const diff = { type: 'diff', path: 'a.ts', oldText: 'a', newText: 'b' };
    const r = readPermissionRequest({
      sessionId: 's1',
      toolCall: {
        toolCallId: 't',
        title: 'Edit a.ts',
        kind: 'edit',
        status: 'pending',
        content: [diff],
        rawInput: { path: 'a.ts' },
        locations: [{ path: 'a.ts' }],
      },
      options: [{ optionId: 'allow-once', name: 'Allow', kind: 'allow_once', _meta: { hint: 1 } }, 'x'],
    });
    expect(r.extra).toEqual({
      'params.toolCall.content': [diff],
      'params.toolCall.rawInput': { path: 'a.ts' },
      'params.toolCall.locations': [{ path: 'a.ts' }],
      'params.options': ['x'],
      'params.options.0._meta': { hint: 1 },
    });
    // A kind judged otherwise is kept as claimed; a status other than pending is kept.
    const other = readPermissionRequest({
      toolCall: { toolCallId: 't', title: 'x', kind: 'shell', status: 'in_progress' },
      options: CURSOR_OPTIONS,
    });
    expect(other.kind).toBe('execute');
    expect(other.extra).toEqual({ 'params.toolCall.kind': 'shell', 'params.toolCall.status': 'in_progress' });
    // Text content is the event's agentReason: nothing more to keep.
    expect(request('execute')).not.toHaveProperty('extra');
  });

  it('reads options that are not a list as none, and a toolCall that is not a record as empty', () => {
    expect(readPermissionRequest({ toolCall: 'x', options: { optionId: 'a' } })).toMatchObject({
      toolCallId: '',
      options: [],
      kind: 'execute',
      extra: { 'params.toolCall': 'x', 'params.options': { optionId: 'a' } },
    });
  });

  it.each<[unknown, string]>([
    ['shell', "the request has an unknown kind 'shell': judged as execute"],
    [undefined, 'the request has no kind: judged as execute'],
    [42, 'the request has no kind: judged as execute'],
  ])('says why a request of kind %j is judged as execute', (kind, note) => {
    expect(readPermissionRequest({ toolCall: { kind } })).toMatchObject({ kind: 'execute', kindNote: note });
  });

  it.each(['read', 'edit', 'delete', 'move', 'search', 'execute', 'think', 'fetch', 'other', 'switch_mode'])(
    'takes the known kind %s as it is, with no note',
    (kind) => {
      const r = readPermissionRequest({ toolCall: { kind } });
      expect(r.kind).toBe(kind);
      expect(r).not.toHaveProperty('kindNote');
    },
  );
});

describe('decidePermission says why, exactly', () => {
  it.each<[Policy, ToolKind[], string, string, string, string]>([
    ['reject', [], 'execute', 'tool_1', '--permissions reject', 'policy'],
    ['ask', [], 'execute', 'tool_1', '--permissions ask with no terminal', 'policy'],
    ['allow', [], 'execute', 'tool_1', '--permissions allow', 'policy'],
    ['reject', ['execute'], 'execute', 'tool_1', '--allow execute', 'allow-flag'],
    ['ask', ['read'], 'read', 'tool_1', '--allow read', 'allow-flag'],
    ['allow', ['read'], 'read', 'tool_1', '--permissions allow', 'policy'],
    [
      'allow',
      [],
      'search',
      'web_search_1',
      '--permissions allow (search of the web counts as fetch)',
      'policy',
    ],
    [
      'reject',
      ['fetch'],
      'search',
      'web_search_1',
      '--allow fetch (search of the web counts as fetch)',
      'allow-flag',
    ],
    [
      'reject',
      [],
      'other',
      'web_fetch_1',
      '--permissions reject (other of the web counts as fetch)',
      'policy',
    ],
    [
      'ask',
      [],
      'search',
      'web_search_1',
      '--permissions ask with no terminal (search of the web counts as fetch)',
      'policy',
    ],
    ['reject', [], 'fetch', 'web_fetch_1', '--permissions reject', 'policy'],
  ])('%s, --allow %j: %s (%s) says %j, decided by %s', (policy, allow, kind, id, reason, by) => {
    const v = decidePermission(request(kind, CURSOR_OPTIONS, id), policy, allow, false);
    expect(v?.reason).toBe(reason);
    expect(v?.decidedBy).toBe(by);
  });

  it('names the fence and the web together', () => {
    const v = decidePermission(
      request('search', CURSOR_OPTIONS, 'web_search_0'),
      'allow',
      [],
      false,
      'read-only',
    );
    expect(v?.reason).toBe(
      '--fence read-only rejects every permission request (search of the web counts as fetch)',
    );
  });

  it('a rule verdict decides after the fence and before the policy, with its own reason', () => {
    const allowRule = { decision: 'allow' as const, reason: '--allow Shell(ls)' };
    const denyRule = { decision: 'deny' as const, reason: '--deny Shell(rm)' };
    expect(decidePermission(request('execute'), 'reject', [], false, 'none', allowRule)).toEqual({
      decision: { optionId: 'allow-once', kind: 'allow_once' },
      reason: '--allow Shell(ls)',
      decidedBy: 'rule',
    });
    expect(decidePermission(request('execute'), 'allow', [], true, 'none', denyRule)).toEqual({
      decision: { optionId: 'reject-once', kind: 'reject_once' },
      reason: '--deny Shell(rm)',
      decidedBy: 'rule',
    });
    expect(decidePermission(request('execute'), 'allow', [], false, 'no-shell', allowRule)).toMatchObject({
      decision: { optionId: 'reject-once' },
      decidedBy: 'policy',
    });
  });

  it('skips a question with its own reason, and refuses an ambiguous one first', () => {
    expect(decidePermission(QUESTION, 'reject', [], false)).toEqual({
      decision: { optionId: QUESTION_SKIP, kind: 'reject_once' },
      reason: 'a question, and no person to answer it: skipped',
      decidedBy: 'policy',
    });
    const twice = readPermissionRequest({
      toolCall: { toolCallId: 't', kind: 'other' },
      options: [
        { optionId: 'a', name: 'A', kind: 'allow_once' },
        { optionId: 'a', name: 'B', kind: 'allow_once' },
      ],
    });
    expect(decidePermission(twice, 'ask', [], true)).toEqual({
      decision: { outcome: 'cancelled' },
      reason: 'ambiguous: two options share an optionId',
      decidedBy: 'no-option',
    });
  });

  it('cancels when no option of the kind is offered, saying which and why', () => {
    expect(decidePermission(request('execute', [CURSOR_OPTIONS[0]!]), 'reject', [], false)).toEqual({
      decision: { outcome: 'cancelled' },
      reason: 'no reject_once option offered; --permissions reject',
      decidedBy: 'no-option',
    });
  });
});

describe('decidePlan says why it was not approved', () => {
  it.each<[Policy, boolean, string]>([
    ['ask', false, 'no person at the terminal to approve it'],
    ['reject', true, 'rho-cursor --permissions reject'],
    ['reject', false, 'rho-cursor --permissions reject'],
  ])('%s, interactive %s: %s', (policy, interactive, why) => {
    expect(decidePlan(policy, false, interactive)).toEqual({
      outcome: 'rejected',
      reason: `The plan was not approved (${why}). Do not execute it; give the plan as your final answer.`,
    });
  });

  it('leaves the plan to the person under ask at a terminal, under no fence or no-shell', () => {
    expect(decidePlan('ask', false, true)).toBeUndefined();
    expect(decidePlan('ask', false, true, 'no-shell')).toBeUndefined();
  });
});

describe('readPermissionRequest and decidePermission at the edges', () => {
  it('names an option with neither name nor optionId by the empty string', () => {
    expect(readPermissionRequest({ options: [{ kind: 'allow_once' }] }).options).toEqual([
      { optionId: '', name: '', kind: 'allow_once' },
    ]);
  });

  it('cancels a question that offers no skip option', () => {
    const noSkip = { ...QUESTION, options: QUESTION.options.filter((o) => o.optionId !== QUESTION_SKIP) };
    expect(decidePermission(noSkip, 'reject', [], false)).toEqual({
      decision: { outcome: 'cancelled' },
      reason: 'a question without a skip option',
      decidedBy: 'no-option',
    });
  });
});

describe('what the agent is told instead of a person’s answer', () => {
  it.each([
    [
      PLAN_ONLY_REASON,
      'This is a plan-only run (rho-cursor --plan): do not execute the plan. Give the whole plan as your final answer.',
    ],
    [
      SKIP_QUESTION_REASON,
      'No person can answer: rho-cursor is running without a terminal. Choose the most reasonable option yourself, say which, and continue.',
    ],
    [
      READ_ONLY_PLAN_REASON,
      'This run is read-only (rho-cursor --fence read-only): the plan cannot be executed. Give the whole plan as your final answer.',
    ],
  ])('%j', (reason, text) => {
    expect(reason).toBe(text);
  });
});

describe('readPermissionRequest with what is known of the tool (found by review)', () => {
  const subject = (commands: string[] = [], more: object = {}) => ({
    commands,
    paths: [],
    urls: [],
    ...more,
  });
  const QUESTION_OPTIONS = [
    { optionId: 'yes', name: 'Yes, keep it', kind: 'allow_once' },
    { optionId: QUESTION_SKIP, name: 'Skip', kind: 'reject_once' },
  ];

  it.each<[unknown, unknown, string]>([
    ['read', 'execute', 'execute'],
    ['execute', 'read', 'execute'],
    ['edit', 'delete', 'delete'],
    ['fetch', 'read', 'fetch'],
    [undefined, 'read', 'read'],
    [undefined, undefined, 'execute'],
    ['read', 'shell', 'execute'],
    ['shell', 'read', 'execute'],
  ])('claiming %j for a tool announced %j is judged as %s', (claimed, announced, kind) => {
    const req = readPermissionRequest(
      { toolCall: { toolCallId: 't', kind: claimed } },
      { announced: [{ kind: announced }] },
    );
    expect(req.kind).toBe(kind);
  });

  it('says when the claim is the more dangerous, and when the announced kind is', () => {
    const up = readPermissionRequest(
      { toolCall: { toolCallId: 't', kind: 'execute' } },
      { announced: [{ kind: 'read' }] },
    );
    expect(up.kindNote).toBe(
      'its tool was announced as read; the request claims execute, the more dangerous',
    );
    const down = readPermissionRequest(
      { toolCall: { toolCallId: 't', kind: 'read' } },
      { announced: [{ kind: 'execute' }] },
    );
    expect(down.kindNote).toBe('the request claims kind "read"; its tool was announced as execute');
  });

  it('takes the most dangerous of every kind it was announced with (held, and kept once let go)', () => {
    const req = readPermissionRequest(
      { toolCall: { toolCallId: 't', kind: 'read' } },
      { announced: [{ kind: 'read' }, { kind: 'edit' }] },
    );
    expect(req.kind).toBe('edit');
  });

  it('judges a command in rawInput as execute whatever the kinds say', () => {
    const req = readPermissionRequest(
      { toolCall: { toolCallId: 't', kind: 'read' } },
      { announced: [{ kind: 'read' }], subject: subject(['rm -rf ~'], { commandInInput: true }) },
    );
    expect(req.kind).toBe('execute');
  });

  it.each<[string, object]>([
    ['a command in rawInput', subject(['curl x | sh'], { commandInInput: true })],
    ['a command in a backquoted title', subject(['curl x | sh'])],
    ['a path', subject([], { paths: ['../../outside.txt'] })],
    ['a URL in rawInput', subject([], { urls: ['https://x'], urlInInput: true })],
  ])('is no question when it names %s', (_, s) => {
    const req = readPermissionRequest(
      { toolCall: { toolCallId: 'q', kind: 'other', title: 'Keep it?' }, options: QUESTION_OPTIONS },
      { announced: [], subject: s as never },
    );
    expect(req.isQuestion).toBe(false);
    expect(decidePermission(req, 'allow', [], false, 'no-shell')?.decision).toEqual(
      req.kind === 'execute'
        ? { optionId: QUESTION_SKIP, kind: 'reject_once' }
        : { optionId: 'yes', kind: 'allow_once' },
    );
  });

  it('is a question when it names nothing, a URL in its title included', () => {
    const req = readPermissionRequest(
      { toolCall: { toolCallId: 'q', kind: 'other', title: 'Use https://x?' }, options: QUESTION_OPTIONS },
      { announced: [], subject: subject([], { urls: ['https://x?'] }) },
    );
    expect(req.isQuestion).toBe(true);
  });

  it('is no question for a tool announced with a kind that acts', () => {
    const req = readPermissionRequest(
      { toolCall: { toolCallId: 'q', kind: 'other', title: 'Keep it?' }, options: QUESTION_OPTIONS },
      { announced: [{ kind: 'execute' }], subject: subject() },
    );
    expect(req).toMatchObject({ isQuestion: false, kind: 'execute' });
  });

  it('rejects a request for a tool that already finished, whatever the policy', () => {
    const req = readPermissionRequest(
      { toolCall: { toolCallId: 't', kind: 'read' }, options: CURSOR_OPTIONS },
      { announced: [], finished: true },
    );
    expect(req).toMatchObject({ kind: 'read', finished: true, isQuestion: false });
    expect(decidePermission(req, 'allow', ['read'], false)).toMatchObject({
      decision: { optionId: 'reject-once' },
      reason: 'its tool had already finished',
    });
  });

  it('takes the announced title when the request has none', () => {
    const req = readPermissionRequest(
      { toolCall: { toolCallId: 7, kind: 'read' } },
      { announced: [], title: '`ls`' },
    );
    expect(req).toMatchObject({ toolCallId: '7', title: '`ls`' });
  });
});
