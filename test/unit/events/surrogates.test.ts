import { describe, expect, it } from 'vitest';
import { SurrogateJoiner } from '../../../src/events/surrogates.js';
import type { MessageEvent } from '../../../src/events/types.js';

const EMOJI = '🎉'; // \uD83C\uDF89
const HIGH = EMOJI[0]!;
const LOW = EMOJI[1]!;
const message = (text: string): MessageEvent => ({ type: 'message', text });

describe('SurrogateJoiner', () => {
  it('passes a whole chunk through as the same event', () => {
    const joiner = new SurrogateJoiner();
    const e = message(`hi ${EMOJI}`);
    expect(joiner.take(e)).toBe(e);
    expect(joiner.holding).toBe(false);
  });

  it('passes an empty chunk through', () => {
    const e = message('');
    expect(new SurrogateJoiner().take(e)).toBe(e);
  });

  it('joins a pair split across two chunks', () => {
    const joiner = new SurrogateJoiner();
    expect(joiner.take(message(`a${HIGH}`))).toEqual(message('a'));
    expect(joiner.holding).toBe(true);
    expect(joiner.take(message(`${LOW}b`))).toEqual(message(`${EMOJI}b`));
    expect(joiner.holding).toBe(false);
  });

  it('holds a chunk that is only a high surrogate', () => {
    const joiner = new SurrogateJoiner();
    expect(joiner.take(message(HIGH))).toEqual(message(''));
    expect(joiner.take(message(LOW))).toEqual(message(EMOJI));
  });

  it('keeps holding while each chunk ends in a high surrogate', () => {
    const joiner = new SurrogateJoiner();
    joiner.take(message(HIGH));
    expect(joiner.take(message(`${LOW}${HIGH}`))).toEqual(message(EMOJI));
    expect(joiner.take(message(LOW))).toEqual(message(EMOJI));
  });

  it('keeps the other fields of a chunk it changes', () => {
    const joiner = new SurrogateJoiner();
    const e = { ...message(`x${LOW}`), extra: { a: 1 } };
    expect(joiner.take(e)).toEqual({ type: 'message', text: 'x\uFFFD', extra: { a: 1 } });
    joiner.take({ ...message(HIGH), extra: { b: 2 } });
    expect(joiner.take({ ...message(LOW), extra: { c: 3 } })).toEqual({
      type: 'message',
      text: EMOJI,
      extra: { c: 3 },
    });
  });

  it('keeps the extra of a chunk it holds whole on that chunk, now empty: the half goes on with the next', () => {
    const joiner = new SurrogateJoiner();
    expect(joiner.take({ ...message(HIGH), extra: { messageId: 'LOST-10' } })).toEqual({
      type: 'message',
      text: '',
      extra: { messageId: 'LOST-10' },
    });
    expect(joiner.take(message(`${LOW} ok`))).toEqual(message(`${EMOJI} ok`));
  });

  it('replaces a lone half with U+FFFD', () => {
    const joiner = new SurrogateJoiner();
    expect(joiner.take(message(`a${LOW}b`))).toEqual(message('a\uFFFDb'));
    joiner.take(message(`a${HIGH}`));
    expect(joiner.take(message('b'))).toEqual(message('\uFFFDb'));
  });

  it('holds each stream apart: a thought between the halves of a message pair', () => {
    const joiner = new SurrogateJoiner();
    joiner.take(message(HIGH));
    expect(joiner.take({ type: 'thought', text: 'hmm' })).toEqual({ type: 'thought', text: 'hmm' });
    expect(joiner.take(message(LOW))).toEqual(message(EMOJI));
  });

  it.each([
    ['the first high surrogate', '\uD800', true],
    ['the last high surrogate', '\uDBFF', true],
    ['a low surrogate', '\uDC00', false],
    ['the character before the surrogates', '\uD7FF', false],
  ])('holds a chunk ending in %s: %s', (_name, last, held) => {
    const joiner = new SurrogateJoiner();
    joiner.take(message(`a${last}`));
    expect(joiner.holding).toBe(held);
  });

  it('drains what it holds as U+FFFD, per stream, and holds nothing after', () => {
    const joiner = new SurrogateJoiner();
    expect(joiner.drain()).toEqual([]);
    joiner.take(message(HIGH));
    joiner.take({ type: 'thought', text: HIGH });
    expect(joiner.drain()).toEqual([message('\uFFFD'), { type: 'thought', text: '\uFFFD' }]);
    expect(joiner.holding).toBe(false);
    expect(joiner.drain()).toEqual([]);
    expect(joiner.take(message(LOW))).toEqual(message('\uFFFD'));
  });

  it('says it is holding a thought half too', () => {
    const joiner = new SurrogateJoiner();
    joiner.take({ type: 'thought', text: HIGH });
    expect(joiner.holding).toBe(true);
    expect(joiner.drain()).toEqual([{ type: 'thought', text: '\uFFFD' }]);
  });
});
