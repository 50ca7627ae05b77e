// The questions put to the person, bounded by their request's signal, with a fake asker and no terminal.
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { Asker, Choice, TerminalQuestion } from '../../../src/policy/ask.js';
import { OpenQuestions } from '../../../src/policy/questions.js';

const Q = { lines: ['?'], choices: [] } as unknown as TerminalQuestion;
const YES = { key: 'y', label: 'yes', value: 'yes' } as Choice;

// An asker that answers when told, logs what happens in order, and queues as the terminal asker does.
function setup() {
  const log: string[] = [];
  const answers: Array<(c: Choice | undefined) => void> = [];
  const asker: Asker = {
    choose: (_q, signal) =>
      new Promise((resolve) => {
        answers.push(resolve);
        signal.addEventListener('abort', () => {
          log.push(`closed: ${String(signal.reason)}`);
          resolve(undefined);
        });
      }),
  };
  const questions = new OpenQuestions(asker, {
    hold: () => log.push('hold'),
    resume: () => log.push('resume'),
  });
  return { questions, answers, log };
}

describe('OpenQuestions', () => {
  it('counts a question as open until the person answers it', async () => {
    const { questions, answers, log } = setup();
    const choice = questions.ask(Q, new AbortController().signal);
    expect(questions.asking).toBe(true);
    expect(log).toEqual(['hold']);
    answers[0]!(YES);
    await expect(choice).resolves.toBe(YES);
    expect(questions.asking).toBe(false);
    expect(log).toEqual(['hold', 'resume']);
  });

  it('holds the screen from the first question until the last one closes, not between two', async () => {
    const { questions, answers, log } = setup();
    const first = questions.ask(Q, new AbortController().signal);
    const second = questions.ask(Q, new AbortController().signal);
    expect(log).toEqual(['hold', 'hold']);
    answers[0]!(YES);
    await expect(first).resolves.toBe(YES);
    expect(log).toEqual(['hold', 'hold']);
    answers[1]!(YES);
    await expect(second).resolves.toBe(YES);
    expect(log).toEqual(['hold', 'hold', 'resume']);
  });

  it('an abort closes the question first, then says so, and the choice is undefined', async () => {
    const { questions, log } = setup();
    const request = new AbortController();
    const choice = questions.ask(Q, request.signal, (why) => log.push(`closed(${String(why)})`));
    request.abort('withdrawn');
    expect(log).toEqual(['hold', 'closed: withdrawn', 'resume', 'closed(withdrawn)']);
    expect(questions.asking).toBe(false);
    await expect(choice).resolves.toBeUndefined();
  });

  it('an abort ends a question still queued behind another at once', async () => {
    const log: string[] = [];
    // This asker never gets to the second question: the first is still on the screen.
    const asker: Asker = { choose: () => new Promise(() => {}) };
    const questions = new OpenQuestions(asker);
    void questions.ask(Q, new AbortController().signal);
    const second = new AbortController();
    const choice = questions.ask(Q, second.signal, () => log.push('closed'));
    second.abort();
    await expect(choice).resolves.toBeUndefined();
    expect(log).toEqual(['closed']);
    expect(questions.asking).toBe(true);
  });

  it('an answer after the abort changes nothing, and an abort after the answer says nothing', async () => {
    const { questions, answers, log } = setup();
    const first = new AbortController();
    const late = questions.ask(Q, first.signal, () => log.push('first closed'));
    first.abort('x');
    answers[0]!(YES);
    await expect(late).resolves.toBeUndefined();
    const second = new AbortController();
    const answered = questions.ask(Q, second.signal, () => log.push('second closed'));
    answers[1]!(YES);
    await expect(answered).resolves.toBe(YES);
    second.abort('y');
    expect(log.filter((l) => l.endsWith('closed'))).toEqual(['first closed']);
    expect(questions.asking).toBe(false);
  });

  it('with nobody to ask, or a request already aborted, the choice is undefined at once', async () => {
    await expect(new OpenQuestions(undefined).ask(Q, new AbortController().signal)).resolves.toBeUndefined();
    const { questions, log } = setup();
    await expect(questions.ask(Q, AbortSignal.abort())).resolves.toBeUndefined();
    expect(log).toEqual([]);
    expect(questions.asking).toBe(false);
  });
});

describe('OpenQuestions: the count and the listeners', () => {
  it('counts a withdrawn question once, however late its asker lets go of it', async () => {
    const { questions, answers } = setup();
    const first = new AbortController();
    const withdrawn = questions.ask(Q, first.signal);
    const still = questions.ask(Q, new AbortController().signal);
    first.abort('withdrawn');
    await expect(withdrawn).resolves.toBeUndefined();
    answers[0]!(YES);
    await Promise.resolve();
    expect(questions.asking).toBe(true);
    answers[1]!(YES);
    await expect(still).resolves.toBe(YES);
    expect(questions.asking).toBe(false);
  });

  it('after the answer, leaves the request’s signal alone: an abort then reaches neither asker nor caller', async () => {
    const { questions, answers, log } = setup();
    const request = new AbortController();
    const answered = questions.ask(Q, request.signal, () => log.push('closed'));
    answers[0]!(YES);
    await expect(answered).resolves.toBe(YES);
    expect(getEventListeners(request.signal, 'abort')).toHaveLength(0);
    request.abort('late');
    expect(log).toEqual(['hold', 'resume']);
  });

  it('closes a question aborted without a closed callback, throwing nothing', async () => {
    const { questions, log } = setup();
    // A signal that keeps its listener, so the abort can be called here and its throw seen.
    let fire: (() => void) | undefined;
    const signal = {
      aborted: false,
      reason: 'gone',
      addEventListener: (_type: string, fn: () => void) => (fire = fn),
      removeEventListener: () => {},
    } as unknown as AbortSignal;
    const choice = questions.ask(Q, signal);
    expect(() => fire!()).not.toThrow();
    expect(log).toEqual(['hold', 'closed: gone', 'resume']);
    await expect(choice).resolves.toBeUndefined();
    expect(questions.asking).toBe(false);
  });

  it('answers undefined, and stops counting, when the asker fails', async () => {
    const questions = new OpenQuestions({ choose: () => Promise.reject(new Error('terminal gone')) });
    await expect(questions.ask(Q, new AbortController().signal)).resolves.toBeUndefined();
    expect(questions.asking).toBe(false);
  });
});
