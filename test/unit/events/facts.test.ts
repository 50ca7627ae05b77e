import { describe, expect, it } from 'vitest';
import { ANSWER_KEPT_MAX, FACTS_KEPT, keepAnswer, RunFacts } from '../../../src/events/facts.js';
import type { PermissionEvent, ToolEvent } from '../../../src/events/types.js';

const tool = (toolCallId: string, over: Partial<ToolEvent> = {}): ToolEvent => ({
  type: 'tool',
  toolCallId,
  kind: 'execute',
  title: `run ${toolCallId}`,
  status: 'pending',
  input: {},
  output: null,
  locations: [],
  ...over,
});

const permission = (over: Partial<PermissionEvent> = {}): PermissionEvent => ({
  type: 'permission',
  toolCallId: 't1',
  title: 'rm -rf build',
  kind: 'execute',
  options: [],
  decision: { optionId: 'allow-once', kind: 'allow_once' },
  reason: 'the policy allows it',
  agentReason: null,
  decidedBy: 'policy',
  ...over,
});

const rejectOnce: PermissionEvent['decision'] = { optionId: 'reject-once', kind: 'reject_once' };

describe('RunFacts: the answer', () => {
  it('gathers the message text when asked to keep it', () => {
    const facts = new RunFacts(true);
    facts.add({ type: 'message', text: 'Hello, ' });
    facts.add({ type: 'thought', text: 'hmm' });
    facts.add({ type: 'message', text: 'world' });
    expect(facts.answer).toBe('Hello, world');
  });

  it('keeps no text when nothing needs it', () => {
    const facts = new RunFacts(false);
    facts.add({ type: 'message', text: 'Hello' });
    expect(facts.answer).toBe('');
  });

  it('starts the answer, the turn count and the last rejection again on a new turn', () => {
    const facts = new RunFacts(true);
    facts.add({ type: 'message', text: 'one' });
    facts.add(tool('a'), true);
    facts.add(permission({ decision: rejectOnce }));
    facts.newTurn();
    expect(facts).toMatchObject({ answer: '', turnToolCalls: 0, toolCount: 1, rejections: 1 });
    expect(facts.rejectedLast()).toBeUndefined();
  });
});

describe('RunFacts: tools', () => {
  it('counts a new call once, and keeps its latest kind, title and status', () => {
    const facts = new RunFacts(false);
    facts.add(tool('a'), true);
    facts.add(tool('a', { kind: 'edit', title: 'Edit a', status: 'completed' }));
    expect(facts).toMatchObject({ toolCount: 1, turnToolCalls: 1 });
    expect([...facts.tools]).toEqual([['a', { kind: 'edit', title: 'Edit a', status: 'completed' }]]);
  });

  it('keeps the earlier title when an update has none', () => {
    const facts = new RunFacts(false);
    facts.add(tool('a', { title: 'ls' }), true);
    facts.add(tool('a', { title: '', status: 'in_progress' }));
    expect(facts.tools.get('a')).toEqual({ kind: 'execute', title: 'ls', status: 'in_progress' });
  });

  it('keeps no tool it was not told is new', () => {
    const facts = new RunFacts(false);
    facts.add(tool('late', { status: 'completed' }));
    expect(facts.tools.size).toBe(0);
    expect(facts.toolCount).toBe(0);
  });

  it.each([
    { reportedStatus: 'in_progress', status: 'cancelled (never finished: left in progress)' },
    { reportedStatus: 'pending', status: 'cancelled (never finished: left pending)' },
    { reportedStatus: 'completed', status: 'cancelled' },
    { reportedStatus: undefined, status: 'cancelled' },
  ])('says a cancelled tool the agent left $reportedStatus as "$status"', ({ reportedStatus, status }) => {
    const facts = new RunFacts(false);
    facts.add(tool('a', { status: 'cancelled', ...(reportedStatus ? { reportedStatus } : {}) }), true);
    expect(facts.tools.get('a')?.status).toBe(status);
  });

  it('keeps a rejected tool left pending as rejected', () => {
    const facts = new RunFacts(false);
    facts.add(tool('a', { status: 'rejected', reportedStatus: 'pending' }), true);
    expect(facts.tools.get('a')?.status).toBe('rejected');
  });

  it(`keeps the first ${FACTS_KEPT} tools by name and counts the rest`, () => {
    const facts = new RunFacts(false);
    for (let i = 0; i <= FACTS_KEPT; i++) facts.add(tool(`t${i}`), true);
    expect(facts.tools.size).toBe(FACTS_KEPT);
    expect(facts.tools.has(`t${FACTS_KEPT}`)).toBe(false);
    expect(facts.toolCount).toBe(FACTS_KEPT + 1);
    expect(facts.turnToolCalls).toBe(FACTS_KEPT + 1);
  });

  it('counts the calls of the current turn apart from the run', () => {
    const facts = new RunFacts(false);
    facts.add(tool('a'), true);
    facts.newTurn();
    facts.add(tool('b'), true);
    facts.add(tool('b', { status: 'completed' }));
    expect(facts).toMatchObject({ toolCount: 2, turnToolCalls: 1 });
  });
});

describe('RunFacts.denied', () => {
  it('is false for a run with nothing refused', () => {
    const facts = new RunFacts(false);
    facts.add(tool('a', { status: 'completed' }), true);
    facts.add(permission());
    expect(facts.denied()).toBe(false);
  });

  it('is true once a kept tool is rejected', () => {
    const facts = new RunFacts(false);
    facts.add(tool('a'), true);
    expect(facts.denied()).toBe(false);
    facts.add(tool('a', { status: 'rejected' }));
    expect(facts.denied()).toBe(true);
  });

  it('is true for a rejected tool beyond the kept ones, and only a rejected one', () => {
    const facts = new RunFacts(false);
    for (let i = 0; i < FACTS_KEPT; i++) facts.add(tool(`t${i}`), true);
    facts.add(tool('late', { status: 'completed' }), true);
    expect(facts.denied()).toBe(false);
    facts.add(tool('late', { status: 'rejected' }));
    expect(facts.denied()).toBe(true);
  });

  it.each([
    { name: 'a reject option', decision: rejectOnce },
    { name: 'a reject_always option', decision: { optionId: 'r', kind: 'reject_always' } },
    { name: 'a cancelled answer', decision: { outcome: 'cancelled' as const } },
  ])('is true after a permission answered with $name', ({ decision }) => {
    const facts = new RunFacts(false);
    facts.add(permission({ decision }));
    expect(facts.rejections).toBe(1);
    expect(facts.denied()).toBe(true);
  });
});

describe('RunFacts: permissions', () => {
  it("records each decision in rho-cursor's words, by the kind chosen, never the agent's option id", () => {
    const facts = new RunFacts(false);
    facts.add(permission());
    facts.add(
      permission({ decision: { outcome: 'cancelled' }, reason: 'withdrawn', decidedBy: 'withdrawn' }),
    );
    // Found by review: the agent names its options; one called "rejected" of kind allow_once was allowed.
    facts.add(permission({ decision: { optionId: 'rejected', kind: 'allow_once' } }));
    facts.add(permission({ decision: { optionId: 'ALLOWED', kind: 'reject_once' }, reason: 'no' }));
    expect(facts.decisions).toEqual([
      { kind: 'execute', title: 'rm -rf build', decision: 'allowed once', reason: 'the policy allows it' },
      { kind: 'execute', title: 'rm -rf build', decision: 'cancelled', reason: 'withdrawn' },
      { kind: 'execute', title: 'rm -rf build', decision: 'allowed once', reason: 'the policy allows it' },
      { kind: 'execute', title: 'rm -rf build', decision: 'rejected once', reason: 'no' },
    ]);
    expect(facts.decisionCount).toBe(4);
    expect(facts.rejections).toBe(2);
  });

  it(`keeps the first ${FACTS_KEPT} decisions and warnings and counts them all`, () => {
    const facts = new RunFacts(false);
    for (let i = 0; i <= FACTS_KEPT; i++) {
      facts.add(permission({ title: `p${i}` }));
      facts.add({ type: 'warning', code: 'w', message: `w${i}` });
    }
    expect(facts.decisions).toHaveLength(FACTS_KEPT);
    expect(facts.decisions.at(-1)?.title).toBe(`p${FACTS_KEPT - 1}`);
    expect(facts.decisionCount).toBe(FACTS_KEPT + 1);
    expect(facts.warnings).toHaveLength(FACTS_KEPT);
    expect(facts.warnings[0]).toEqual({ code: 'w', message: 'w0' });
    expect(facts.warningCount).toBe(FACTS_KEPT + 1);
  });

  it('names the last rejection while no tool started after it', () => {
    const facts = new RunFacts(false);
    facts.add(tool('a'), true);
    facts.add(permission({ title: 'first', decision: rejectOnce }));
    facts.add(permission({ title: 'second', kind: 'edit', decision: rejectOnce }));
    expect(facts.rejectedLast()).toEqual({ title: 'second', kind: 'edit' });
    facts.add(tool('b'), true);
    expect(facts.rejectedLast()).toBeUndefined();
  });

  it('does not name an allowed request as the last rejection', () => {
    const facts = new RunFacts(false);
    facts.add(permission());
    expect(facts.rejectedLast()).toBeUndefined();
  });

  it.each(['withdrawn', 'cancel'] as const)(
    'does not name a request %s as the last rejection (the agent or the run ended it)',
    (decidedBy) => {
      const facts = new RunFacts(false);
      facts.add(permission({ decision: { outcome: 'cancelled' }, decidedBy }));
      expect(facts.rejectedLast()).toBeUndefined();
      expect(facts.rejections).toBe(1);
    },
  );

  it('names a rejection the person made', () => {
    const facts = new RunFacts(false);
    facts.add(permission({ decision: rejectOnce, decidedBy: 'person' }));
    expect(facts.rejectedLast()).toEqual({ title: 'rm -rf build', kind: 'execute' });
  });
});

// Found by review: the answer kept for -o grew without bound; past ~512 Mi characters V8 threw (`internal`).
describe('RunFacts: the answer kept is bounded', () => {
  const message = (text: string) => ({ type: 'message' as const, text });

  it(`keeps up to ANSWER_KEPT_MAX characters and says it was cut; a new turn starts again`, () => {
    const facts = new RunFacts(true);
    facts.add(message('x'.repeat(ANSWER_KEPT_MAX - 2)));
    expect(facts.answerCut).toBe(false);
    facts.add(message('abc'));
    expect(facts.answer.length).toBe(ANSWER_KEPT_MAX);
    expect(facts.answer.endsWith('xab')).toBe(true);
    expect(facts.answerCut).toBe(true);
    facts.add(message('more'));
    expect(facts.answer.length).toBe(ANSWER_KEPT_MAX);
    facts.newTurn();
    expect([facts.answer, facts.answerCut]).toEqual(['', false]);
  });

  it('counts the answer when none is kept', () => {
    const facts = new RunFacts(false);
    facts.add(message('x'.repeat(ANSWER_KEPT_MAX)));
    expect(facts.answerCut).toBe(false);
    facts.add(message('y'));
    expect([facts.answer, facts.answerCut]).toEqual(['', true]);
  });

  it('exactly the bound is not cut', () => {
    expect(keepAnswer('ab', 'c'.repeat(ANSWER_KEPT_MAX - 2))).toMatchObject({ cut: false });
    expect(keepAnswer('', 'c'.repeat(ANSWER_KEPT_MAX + 1)).kept.length).toBe(ANSWER_KEPT_MAX);
  });
});
