// Pure: Markdown helpers shared by the prompt (--attach) and the CI summary.

// A code fence longer than any run of backticks in the text, so the text cannot close it early.
export function fenceFor(text: string): string {
  let longest = 0;
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  return '`'.repeat(Math.max(3, longest + 1));
}
