// Pure: agent text inside the CI summary's Markdown: shown, never rendered as HTML, links, images or tables.

// HTML's three; every Markdown character that could start markup in a cell or a list item (GFM's `~` of
// strikethrough too); and what GitHub's Markdown turns into a link from bare text (GFM's autolink literals):
// the `:` of `scheme://`, the `.` of `www.`, and every run of `@` (an email address, and on GitHub a mention).
const MARKUP = /[<>&|[\]!`*_~\\]|@+|:(?=\/\/)|(?<=www)\./i;
const MARKUP_ALL = new RegExp(MARKUP.source, 'gi');
// `:` and `.` as numeric character references: shown as themselves, while the URL and www rules, which match
// the characters as written, no longer see a link. Not `@`: cmark-gfm (GitHub's renderer) looks for email
// addresses in the text once its references are decoded, so `&#64;` is still a mailto: link. A run of `@`
// becomes a code span, which ends the text around it: no address, and no mention (GitHub finds mentions in
// text outside code).
const ENTITY: Readonly<Record<string, string>> = {
  '<': '&lt;',
  '>': '&gt;',
  '&': '&amp;',
  ':': '&#58;',
  '.': '&#46;',
};

const escapeOne = (c: string): string => (c[0] === '@' ? `\`${c}\`` : (ENTITY[c] ?? '\\' + c));

// Escapes one piece of inline text: an entity for each character above that has one, a code span for `@`,
// a backslash before the other Markdown characters.
export function markdownInline(text: string): string {
  return MARKUP.test(text) ? text.replace(MARKUP_ALL, escapeOne) : text;
}

// The answer's fence lives with the prompt's (--attach) in src/markdown.ts.
export { fenceFor } from '../markdown.js';
