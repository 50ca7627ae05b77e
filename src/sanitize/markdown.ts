// Pure: agent text inside the CI summary's Markdown: shown, never rendered as HTML, links, images or tables.

// HTML's three; every Markdown character that could start markup in a cell or a list item (GFM's `~` of
// strikethrough too); and what GitHub's Markdown turns into a link from bare text (GFM's autolink literals):
// the `:` of `scheme://`, the `.` of `www.`, and every `@` (an email address, and on GitHub a mention).
const MARKUP = /[<>&|[\]!`*_~\\@]|:(?=\/\/)|(?<=www)\./i;
const MARKUP_ALL = new RegExp(MARKUP.source, 'gi');
// The last three as numeric character references: shown as themselves, while the autolink rules, which
// match the characters as written, no longer see a link.
const ENTITY: Readonly<Record<string, string>> = {
  '<': '&lt;',
  '>': '&gt;',
  '&': '&amp;',
  ':': '&#58;',
  '.': '&#46;',
  '@': '&#64;',
};

// Escapes one piece of inline text: an entity for each character above that has one, a backslash before the
// other Markdown characters.
export function markdownInline(text: string): string {
  return MARKUP.test(text) ? text.replace(MARKUP_ALL, (c) => ENTITY[c] ?? '\\' + c) : text;
}

// The answer's fence lives with the prompt's (--attach) in src/markdown.ts.
export { fenceFor } from '../markdown.js';
