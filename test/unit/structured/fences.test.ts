import { describe, expect, it } from 'vitest';
import { extractJson } from '../../../src/structured/extract.js';

// The answer's value, or what it says instead. The prose after the fences holds [9]: the balanced search's
// pick when no fenced block is taken.
const got = (answer: string): unknown => {
  const r = extractJson(answer);
  return r.ok ? r.value : r.reason;
};

describe('extractJson: which lines open and close a fenced block', () => {
  it.each<[string, string[], unknown]>([
    ['a fence indented by spaces or tabs', [' \t```json', '[1]', ' \t```', 'then [9]'], [1]],
    ['blanks after the fences', ['```json  \t', '[1]', '```  \t', 'then [9]'], [1]],
    ['a space between the fence and json', ['``` json', '[1]', '```', 'then [9]'], [1]],
    ['more after the info string', ['```json title="x"', '[1]', '```', 'then [9]'], [1]],
    ['a longer closing fence', ['```json', '[1]', '`````', 'then [9]'], [1]],
    ['the body kept as lines', ['```json', '[1,', '2]', '```', 'then [9]'], [1, 2]],
    ['another language', ['```jsonc', '[1]', '```', 'then [9]'], [9]],
    ['another language after a space', ['``` ts', '[1]', '```', 'then [9]'], [9]],
    ['a backtick after json: no fence', ['```json`', '[1]', '```', 'then [9]'], [9]],
    [
      'lines of the body joined by newlines, not run together',
      ['```json', '1', '2', '```'],
      'the last json block does not parse: Unexpected non-whitespace character after JSON at position 2',
    ],
    ['a backtick in the info string: no fence', ['```js`on', '[1]', '```', 'then [9]'], [9]],
    ['two backticks: no fence', ['``json', '[1]', '``', 'then [9]'], [9]],
    [
      'prose before an opening fence at the start of a line: no fence',
      ['x ```', '[1]', '```', 'then [9]'],
      [9],
    ],
    // It runs to the end, as in CommonMark: the last json block, and nothing after it (found by review: the
    // search took [9] from inside it, and a json block before it when there was one).
    [
      'a block that never closes',
      ['```json', '[1]', 'then [9]'],
      `the last json block does not parse: Unexpected non-whitespace character after JSON at position 4`,
    ],
  ])('%s', (_, lines, value) => {
    expect(got(lines.join('\n'))).toEqual(value);
  });

  it.each<[string, string[], unknown]>([
    ['text after the closing fence', ['```json', '[1]', '``` x', '```', 'then [9]'], [9]],
    ['text before the closing fence', ['```json', '[1]', 'x ```', '```', 'then [9]'], [9]],
    ['a shorter closing fence', ['````json', '[1]', '```', '````', 'then [9]'], [9]],
  ])('a line that does not close the block is its body: %s', (_, lines, value) => {
    expect(got(lines.join('\n'))).toEqual(value);
  });

  it.each<[string, string, unknown]>([
    ['after a space', 'Result: ```json\n[1]\n```\nthen [9]', [1]],
    ['after a tab, in capitals, blanks after', 'Result:\t```JSON \t\n[1]\n```\nthen [9]', [1]],
    ['a longer fence', 'Result: ````json\n[1]\n````\nthen [9]', [1]],
    ['not after a blank', 'Result:```json\n[1]\n```\nthen [9]', [9]],
    ['not another language', 'Result: ```ts\n[1]\n```\nthen [9]', [9]],
    ['not a bare fence', 'Result: ```\n[1]\n```\nthen [9]', [9]],
    ['not with text after it', 'Result: ```json now\n[1]\n```\nthen [9]', [9]],
  ])('a ```json fence ending a line of prose: %s', (_, answer, value) => {
    expect(got(answer)).toEqual(value);
  });

  it('a block in another language hides the json fences inside it', () => {
    expect(got(['```md', '```json', '[1]', '```', 'then [9]'].join('\n'))).toEqual([9]);
  });
});

describe('extractJson: a value nested too deep ends the search', () => {
  const deep = '['.repeat(600) + ']'.repeat(600);
  const TOO_DEEP = 'the JSON value nests deeper than 512 levels';

  it.each<[string, string]>([
    ['the whole answer', deep],
    ['a fenced block, even with a value after it', `\`\`\`json\n${deep}\n\`\`\`\nthen [9]`],
    ['the last balanced value', `Here: ${deep}.`],
  ])('%s', (_, answer) => {
    expect(extractJson(answer)).toEqual({ ok: false, reason: TOO_DEEP });
  });

  it('a value exactly as deep as the limit is taken', () => {
    const at = '['.repeat(512) + ']'.repeat(512);
    expect(extractJson(`Here: ${at}.`).ok).toBe(true);
  });
});

describe('extractJson: what a failed parse says', () => {
  it('a json block that does not parse, with no value after it, says its parse error', () => {
    expect(got('```json\nnope\n```\n')).toBe(
      'the last json block does not parse: Unexpected token \'o\', "nope" is not valid JSON',
    );
  });

  it('strings in the balanced search: an escaped backslash ends the escape', () => {
    expect(got('x {"a": "\\\\"} y')).toEqual({ a: '\\' });
    expect(got('x {"a": "\\\\", "b": "}"} y')).toEqual({ a: '\\', b: '}' });
  });

  it('a closing bracket of the other kind ends no candidate', () => {
    expect(got('x [1} and {"a": [2]] y')).toEqual([2]);
    expect(got('x {"a": 1] y')).toBe('the answer holds no JSON value');
  });

  it('a nested candidate that never closes ends its container too', () => {
    expect(got('x {"a": [1 y')).toBe('the answer holds no JSON value');
  });
});
