// Pure: the Markdown a CI job reads after a run (--summary-file, GitHub's step summary): the outcome,
// the answer, the tools and their final status, the permission decisions and the warnings, under 1 MiB.
import { shownName } from '../changes/compare.js';
import { FACTS_KEPT, type RunFacts } from '../events/facts.js';
import { knownStopReason } from './github.js';
import { fenceFor } from '../markdown.js';
import { cutEnd, redacted } from '../sanitize/cut.js';
import { markdownInline } from '../sanitize/markdown.js';
import { oneLine as lineSafe, terminalSafe } from '../sanitize/terminal.js';
import type { ResultEvent } from '../events/types.js';

export const SUMMARY_MAX_BYTES = 1024 * 1024;
export const ANSWER_MAX_BYTES = 64 * 1024;
// The run keeps this many by name (FACTS_KEPT); the rest are counted.
const TABLE_MAX_ROWS = FACTS_KEPT;

export interface SummaryInput {
  result: ResultEvent;
  facts: RunFacts;
  fence: string;
}

// Agent text as inline Markdown on one line: the key masked, then cut at max characters (an ellipsis saying
// where), then escaped, so it is shown and never rendered as HTML, a link, an image or a table.
// Its controls, bidi and invisible characters are shown too (terminalSafe): the file is also read with `cat`.
const oneLine = (s: string, max: number): string =>
  markdownInline(cutEnd(terminalSafe(s.replace(/\r?\n|\r/g, ' ')), max));

// A tab as its Control Picture (␉): GFM reads a tab in a cell as a space, and trims it at either end.
const tabsShown = (s: string): string => s.replace(/\t/g, '\u2409');

// A table cell's most characters.
const CELL_MAX = 200;

// Makes text safe inside one Markdown table cell, shortened.
const cell = (s: string): string => oneLine(tabsShown(s), CELL_MAX);

// A file name as the text line and the warnings show it (shownName: in quotes when it holds a space, a comma,
// a quote...), its newlines and tabs made visible (␊ ␉), never spaces: GFM trims a cell, so `a.txt ` would
// read as `a.txt`, another file.
const nameCell = (name: string): string =>
  markdownInline(cutEnd(tabsShown(lineSafe(shownName(name))), CELL_MAX));

// A whole message (an error, a warning) as one Markdown line: never cut at a cell's length.
const MESSAGE_MAX = 4000;

// Cuts text to at most max UTF-8 bytes without splitting a character.
export function cutBytes(text: string, max: number): { text: string; cut: boolean } {
  if (Buffer.byteLength(text) <= max) return { text, cut: false };
  let t = Buffer.from(text).subarray(0, max).toString('utf8');
  if (t.endsWith('\uFFFD')) t = t.slice(0, -1);
  return { text: t, cut: true };
}

export function summaryMarkdown({ result, facts, fence }: SummaryInput): string {
  const ok = result.exitCode === 0;
  const lines: string[] = [
    `### rho-cursor: ${ok ? 'succeeded' : 'failed'}`,
    '',
    '| stopReason | exit code | duration | model | fence |',
    '| --- | --- | --- | --- | --- |',
    `| ${result.stopReason === null ? 'none' : knownStopReason(result.stopReason) || cell(result.stopReason)} | ${result.exitCode} | ${(result.durationMs / 1000).toFixed(1)} s | ${cell(result.model ?? 'unknown')} | ${cell(fence)} |`,
    '',
  ];
  if (result.error)
    lines.push(`**Error** (\`${result.error.code}\`): ${oneLine(result.error.message, MESSAGE_MAX)}`, '');
  // The key is masked before the cut, so none of it is left at the cut.
  const answer = cutBytes(terminalSafe(redacted(facts.answer)), ANSWER_MAX_BYTES);
  if (answer.text.trim() !== '') {
    const f = fenceFor(answer.text);
    lines.push('#### Answer', '', f, answer.text.replace(/\n$/, ''), f, '');
    if (answer.cut) lines.push(`_The answer was cut at ${ANSWER_MAX_BYTES / 1024} KiB._`, '');
  }
  lines.push(...changesTable(result.changes));
  const tools = [...facts.tools.values()];
  if (tools.length > 0) {
    lines.push(`#### Tools (${facts.toolCount})`, '', '| kind | title | status |', '| --- | --- | --- |');
    for (const t of tools.slice(0, TABLE_MAX_ROWS))
      lines.push(`| ${cell(t.kind)} | ${cell(t.title)} | ${cell(t.status)} |`);
    if (facts.toolCount > TABLE_MAX_ROWS)
      lines.push('', `_${facts.toolCount - TABLE_MAX_ROWS} more tools not listed._`);
    lines.push('');
  }
  if (facts.decisions.length > 0) {
    lines.push(
      '#### Permission decisions',
      '',
      '| kind | title | decision | reason |',
      '| --- | --- | --- | --- |',
    );
    for (const d of facts.decisions.slice(0, TABLE_MAX_ROWS))
      lines.push(`| ${cell(d.kind)} | ${cell(d.title)} | ${cell(d.decision)} | ${cell(d.reason)} |`);
    if (facts.decisionCount > TABLE_MAX_ROWS)
      lines.push('', `_${facts.decisionCount - TABLE_MAX_ROWS} more decisions not listed._`);
    lines.push('');
  }
  if (facts.warnings.length > 0) {
    lines.push('#### Warnings', '');
    for (const w of facts.warnings.slice(0, TABLE_MAX_ROWS))
      lines.push(`- \`${w.code}\`: ${oneLine(w.message, MESSAGE_MAX)}`);
    if (facts.warningCount > TABLE_MAX_ROWS)
      lines.push('', `_${facts.warningCount - TABLE_MAX_ROWS} more warnings not listed._`);
    lines.push('');
  }
  const md = lines.join('\n') + '\n';
  const whole = cutBytes(md, SUMMARY_MAX_BYTES - 100);
  return whole.cut ? whole.text + '\n\n_The summary was cut at 1 MiB._\n' : md;
}

// The changes the ledger measured, as a table: each path, how it changed, and whether a tool accounts for it.
function changesTable(changes: ResultEvent['changes']): string[] {
  if (!changes) return [];
  const rows = [
    ...changes.added.map((p) => [p, 'added'] as const),
    ...changes.modified.map((p) => [p, 'modified'] as const),
    ...changes.deleted.map((p) => [p, 'deleted'] as const),
  ].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const note = changes.truncated ? ['', '_The ledger reached its cap: more may have changed._'] : [];
  if (rows.length === 0) return ['#### Changes', '', 'No file changed.', ...note, ''];
  const unaccounted = new Set(changes.unaccounted);
  const out = [
    `#### Changes (${rows.length})`,
    '',
    '| path | change | named by a tool |',
    '| --- | --- | --- |',
  ];
  for (const [p, change] of rows.slice(0, TABLE_MAX_ROWS))
    out.push(`| ${nameCell(p)} | ${change} | ${unaccounted.has(p) ? 'no' : 'yes'} |`);
  if (rows.length > TABLE_MAX_ROWS)
    out.push('', `_${rows.length - TABLE_MAX_ROWS} more changes not listed._`);
  return [...out, ...note, ''];
}
