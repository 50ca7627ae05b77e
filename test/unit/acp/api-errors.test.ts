import { describe, expect, it } from 'vitest';
import { API_ERROR_PATTERNS, replyReadsAsError } from '../../../src/acp/api-errors.js';

// One reply for each pattern of the table, in its order, as it was seen.
const SEEN = [
  'Error: RetriableError: [unavailable] upstream connect error',
  'Error: T: [internal] Failed to run step, exceeded max retries',
  'Connect error resource_exhausted: Error',
];

describe('replies that read as an API error', () => {
  it.each(SEEN)('%j reads as an API error', (reply) => {
    expect(replyReadsAsError(`\n  ${reply}\nmore text`)).toBe(reply);
  });

  it('every pattern in the table has a reply above that only it matches', () => {
    expect(API_ERROR_PATTERNS).toHaveLength(SEEN.length);
    API_ERROR_PATTERNS.forEach((p, i) => {
      expect(SEEN.filter((r) => p.pattern.test(r))).toEqual([SEEN[i]]);
      expect(p.seen.length).toBeGreaterThan(10);
    });
  });

  it.each([
    'All done. Error: RetriableError',
    'Error: the file is missing',
    'The step said: Error: T: [internal] Failed to run step',
    'connect error resource_exhausted', // a sentence about it, not the error line
    'Here is how to handle `Connect error resource_exhausted`',
  ])('%j is an answer, not an API error', (reply) => {
    expect(replyReadsAsError(reply)).toBeUndefined();
  });
});
