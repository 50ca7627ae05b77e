// Agent text in the CI summary's Markdown: escaped, so it is shown and never rendered. The oracles are a
// CommonMark + GFM renderer (micromark with its GFM extension: tables, strikethrough, autolink literals)
// and, where it is installed, GitHub's own (cmark-gfm, Debian's package; .ci/run installs it when it can).
import { execFileSync, spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { micromark } from 'micromark';
import { gfm, gfmHtml } from 'micromark-extension-gfm';
import { describe, expect, it } from 'vitest';
import { fenceFor, markdownInline } from '../../../src/sanitize/markdown.js';

describe('markdownInline', () => {
  it.each([
    ['an image tag', '<img src=x onerror=alert(1)>', '&lt;img src=x onerror=alert(1)&gt;'],
    ['a Markdown image', '![](https://evil/pixel.png)', '\\!\\[\\](https&#58;//evil/pixel.png)'],
    ['breaking out of the table', '</table><h1>pwned</h1>', '&lt;/table&gt;&lt;h1&gt;pwned&lt;/h1&gt;'],
    ['a cell separator', 'a | b', 'a \\| b'],
    ['a link', '[click](https://evil)', '\\[click\\](https&#58;//evil)'],
    ['a bare URL', 'see https://evil.example/x', 'see https&#58;//evil.example/x'],
    ['a bare www. domain', 'WWW.evil.example', 'WWW&#46;evil.example'],
    ['an email address and a mention', 'a@b.example @octocat', 'a`@`b.example `@`octocat'],
    ['a run of @', 'a@@b', 'a`@@`b'],
    ['a mailto: address', 'mailto:a@b.example', 'mailto:a`@`b.example'],
    ['strikethrough', '~~gone~~', '\\~\\~gone\\~\\~'],
    ['a colon that starts no link', 'a: b, c:/d', 'a: b, c:/d'],
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
        // Every |, [, ], !, `, *, _, ~ is preceded by a backslash that is itself not escaped; every @ is in a
        // code span of its own; no < or > at all, and nothing left of `://` or `www.`.
        const bare = out.replace(/\\[\\|[\]!`*_~]/g, '').replace(/`@+`/g, '');
        expect(bare).not.toMatch(/[|[\]!`*_~\\<>@]/);
        expect(out).not.toMatch(/:\/\/|www\./i);
      }),
    );
  });
});

// GitHub renders the summary as GFM: what it would draw of a table cell and of a list item holding the text.
const render = (md: string): string => micromark(md, { extensions: [gfm()], htmlExtensions: [gfmHtml()] });
// The text a cell or item shows: its @ code spans as their text, the references decoded.
const shown = (html: string): string =>
  html
    .replace(/<code>(@+)<\/code>/g, '$1')
    .replace(/&(lt|gt|quot|amp);/g, (_e, n: string) => ({ lt: '<', gt: '>', quot: '"', amp: '&' })[n]!);
// Text with no element in it, but the code spans of @.
const TEXT = '((?:[^<]|<code>@+<\\/code>)*)';
// Strings made of the pieces that start markup, links and tables, and of plain text between them.
const hostile = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        'https://',
        'http://',
        'www.',
        'WWW.',
        'a@b.co',
        '@',
        '~~',
        '~',
        '|',
        '\\',
        '<a href=x>',
        '</td>',
        '[x](y)',
        '![i](j)',
        '*',
        '**',
        '_',
        '`',
        '&amp;',
        '&#58;',
        ':',
        '//',
        '.',
        ' ',
        'evil.example',
        '#1',
      ),
      fc.string(),
    ),
    { maxLength: 12 },
  )
  .map((parts) => parts.join(''));

describe('markdownInline under a GFM renderer', () => {
  it('a table cell shows the text, whole, as text: no element and no extra cell', () => {
    fc.assert(
      fc.property(hostile, (s) => {
        const html = render(`| h |\n| --- |\n| ${markdownInline(s)} |\n`);
        const cell = new RegExp(
          `^<table>\\n<thead>\\n<tr>\\n<th>h</th>\\n</tr>\\n</thead>\\n<tbody>\\n<tr>\\n<td>${TEXT}</td>\\n</tr>\\n</tbody>\\n</table>\\n?$`,
        ).exec(html);
        expect(cell, html).not.toBeNull();
        expect(shown(cell![1]!)).toBe(s.trim());
      }),
      { numRuns: 500 },
    );
  });

  it('a list item (a warning) shows the text as text', () => {
    fc.assert(
      fc.property(hostile, (s) => {
        const html = render(`- w: ${markdownInline(s)}\n`);
        const item = new RegExp(`^<ul>\\n<li>${TEXT}</li>\\n</ul>\\n?$`).exec(html);
        expect(item, html).not.toBeNull();
        expect(shown(item![1]!)).toBe(`w: ${s}`.trimEnd());
      }),
      { numRuns: 500 },
    );
  });
});

// GitHub's renderer, where it is installed: every case of a sample rendered as one table, row by row.
const cmarkGfm = spawnSync('cmark-gfm', ['--version']).status === 0;

describe.skipIf(!cmarkGfm)("markdownInline under cmark-gfm, GitHub's renderer", () => {
  it('each table cell shows the text, whole, as text: no link, no element, no extra cell', () => {
    const sample = [
      'a@b.co',
      'mailto:a@b.co',
      'xmpp:a@b.co/x',
      '@octocat',
      'see https://evil.example www.evil.example',
      '~~gone~~',
      ...fc.sample(hostile, { numRuns: 400, seed: 22 }),
    ].filter((x) => x.trim() !== '');
    const md = ['| h |', '| --- |', ...sample.map((x) => `| ${markdownInline(x)} |`)].join('\n') + '\n';
    const html = execFileSync('cmark-gfm', ['-e', 'table', '-e', 'autolink', '-e', 'strikethrough'], {
      input: md,
      encoding: 'utf8',
    });
    const rows = [...html.matchAll(/<tr>\n<td>(.*?)<\/td>\n<\/tr>/gs)].map((m) => m[1]!);
    expect(rows).toHaveLength(sample.length);
    rows.forEach((cell, i) => {
      expect(cell, sample[i]).toMatch(new RegExp(`^${TEXT}$`));
      expect(shown(cell)).toBe(sample[i]!.trim());
    });
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
