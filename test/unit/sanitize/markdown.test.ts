// Agent text in the CI summary's Markdown: escaped, so it is shown and never rendered.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fenceFor, markdownInline } from '../../../src/sanitize/markdown.js';

describe('markdownInline', () => {
  it.each([
    ['an image tag', '<img src=x onerror=alert(1)>', '&lt;img src=x onerror=alert(1)&gt;'],
    ['a Markdown image', '![](https://evil/pixel.png)', '\\!\\[\\](https://evil/pixel.png)'],
    ['breaking out of the table', '</table><h1>pwned</h1>', '&lt;/table&gt;&lt;h1&gt;pwned&lt;/h1&gt;'],
    ['a cell separator', 'a | b', 'a \\| b'],
    ['a link', '[click](https://evil)', '\\[click\\](https://evil)'],
    ['emphasis and code', '*bold* _it_ `code`', '\\*bold\\* \\_it\\_ \\`code\\`'],
    ['an entity', '&amp; &lt;', '&amp;amp; &amp;lt;'],
    ['a backslash before a pipe', '\\|', '\\\\\\|'],
    ['plain text', 'Read hello.txt', 'Read hello.txt'],
  ])('%s', (_name, input, escaped) => {
    expect(markdownInline(input)).toBe(escaped);
  });

  it('leaves no raw markup character, for any string', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        const out = markdownInline(s);
        // Every |, [, ], !, `, *, _ is preceded by a backslash that is itself not escaped; no < or > at all.
        expect(out).not.toMatch(/[<>]/);
        expect(out.replace(/\\[\\|[\]!`*_]/g, '')).not.toMatch(/[|[\]!`*_\\]/);
      }),
    );
  });
});

describe('fenceFor', () => {
  it.each([
    ['no backticks', 'text', '```'],
    ['a run of three', 'a ``` b', '````'],
    ['a run of ten', '`'.repeat(10), '`'.repeat(11)],
  ])('%s', (_name, text, fence) => {
    expect(fenceFor(text)).toBe(fence);
  });
});
