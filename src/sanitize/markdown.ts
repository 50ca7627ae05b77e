// Pure: agent text inside the CI summary's Markdown: shown, never rendered as HTML, links, images or tables.

// HTML's three, and every Markdown character that could start markup in a cell or a list item.
const MARKUP = /[<>&|[\]!`*_\\]/;
const MARKUP_ALL = /[<>&|[\]!`*_\\]/g;
const HTML: Readonly<Record<string, string>> = { '<': '&lt;', '>': '&gt;', '&': '&amp;' };

// Escapes one piece of inline text: HTML entities for < > &, a backslash before the Markdown characters.
export function markdownInline(text: string): string {
  return MARKUP.test(text) ? text.replace(MARKUP_ALL, (c) => HTML[c] ?? '\\' + c) : text;
}

// The answer's fence lives with the prompt's (--attach) in src/markdown.ts.
export { fenceFor } from '../markdown.js';
