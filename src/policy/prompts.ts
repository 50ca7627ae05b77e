// Pure: what a terminal question shows (everything Cursor asked) and how a typed answer maps to a choice.
import type { Todo } from '../events/types.js';
import { cutMiddle } from '../sanitize/cut.js';
import { oneLine, terminalSafe } from '../sanitize/terminal.js';
import { isRecord } from '../acp/messages.js';
import type { PermissionRequest } from './decide.js';
import { subjectOf, type Subject } from './subject.js';

export interface Choice {
  /** What the person types (or the label, or a unique start of it). */
  key: string;
  label: string;
  /** What the answer carries back: an optionId, an option id, `accept` / `reject`. */
  value: string;
}

export interface TerminalQuestion {
  lines: string[];
  choices: Choice[];
  /** What end of input (Ctrl-D) answers: reject once, or skip; none means the request is answered cancelled. */
  eof: Choice | undefined;
}

/** The keys of the skip and reject choices, which Ctrl-D also gives. */
export const SKIP_KEY = 's';

// Agent text shown at the terminal: control characters and escapes made visible (src/sanitize), so no
// escape sequence can redraw the question; newlines stay (text under a heading is indented line by line).
export const visible = terminalSafe;

/** The longest agent text one line of a question shows: its start and its end, the middle said as cut. */
export const SHOWN_MAX = 480;
const HEAD = 320; // characters shown before the cut (cutMiddle counts its ellipsis in)
const TAIL = 120; // and after it

// Agent text on one line of a question: newlines, CRs and tabs made visible (a tab would move the cursor as
// far as eight spaces), a run of spaces said as such (padding cannot push text to the start of a row), and,
// for what only describes the request (its title, the reason, an option's name), a long text shown by its
// start and its end. What the answer allows (a command, a path, a URL) is shown whole (`whole`): a cut could
// hide `; curl ... | sh` in its middle, and its rows are marked as continuations (wrapRows) however many.
export function questionText(text: string, whole = false): string {
  const one = oneLine(text.replace(/\n+$/, ''))
    .replace(/\t/g, '\u2409')
    .replace(/ {4,}/g, (run) => ` <${run.length} spaces> `);
  if (whole || one.length <= SHOWN_MAX) return one;
  return cutMiddle(one, HEAD + 1, TAIL + 1);
}

// One line of the question: a value under its label, its newlines made visible, so no agent text can stand
// in for a line of the question (a fake menu, a fake `command:`).
function field(label: string, value: string, whole = false): string[] {
  return [`  ${label}: ${questionText(value, whole)}`];
}

// Pure: a line of the question cut into the rows a terminal `width` columns wide shows, each row after the
// first marked as the line's continuation: agent text never starts a row, so padding cannot make it look
// like a line of its own. Every character outside printable ASCII is counted two columns wide (none is
// wider; a tab is shown as ␉), so the terminal never wraps a row before we do. Any terminal wide enough for the marker and one
// character is cut (found by review: below 20 columns lines were left to the terminal's own wrapping, and a
// title padded to the width made agent text start a row); a narrower one shows the line as it is.
export function wrapRows(line: string, width: number | undefined): string[] {
  const room = (width ?? 0) - 1;
  const marker = columnsOf(CONTINUED);
  if (room < marker + 2) return [line];
  const rows: string[] = [];
  let row = '';
  let used = 0;
  // A tab would move the cursor up to eight columns: it is shown as a symbol, as questionText does.
  for (const ch of line.replace(/\t/g, '\u2409')) {
    const w = columnsOf(ch);
    if (used + w > room) {
      rows.push(row);
      row = CONTINUED;
      used = marker;
    }
    row += ch;
    used += w;
  }
  rows.push(row);
  return rows;
}

// The columns a terminal may give text (no tab), at most: printable ASCII one, anything else two.
function columnsOf(text: string): number {
  let n = 0;
  for (const ch of text) n += ch.length === 1 && ch >= ' ' && ch <= '~' ? 1 : 2;
  return n;
}

/** What starts each row of a question line after its first. */
export const CONTINUED = '  \u21b3 ';

// The rawInput fields shown beside what is judged: where a command runs, and what a search looks for.
const WHERE_KEYS = ['cwd'] as const;
const SEARCH_KEYS = ['query', 'pattern'] as const;

// The strings under a key of any of the inputs, each once.
function stringsOf(inputs: readonly unknown[], key: string): string[] {
  const out = new Set<string>();
  for (const i of inputs) if (isRecord(i) && typeof i[key] === 'string' && i[key] !== '') out.add(i[key]);
  return [...out];
}

// A permission request: the tool kind and title, and then everything the answer is judged on (subject.ts):
// every command (an argv joined as one quoted command line, `cmd` too), path and URL the request and its
// announced tool name, each whole, beside the cwd, query and pattern of their rawInput (`input`: one, or a
// list of them); then the reason the agent (`who`: Cursor, or another agent's agentInfo.title) gives. The
// subject is the judge's (requests.ts); without one, what the input names.
export function permissionQuestion(
  req: PermissionRequest,
  input: Record<string, unknown> | readonly unknown[],
  who = 'Cursor',
  subject: Pick<Subject, 'commands' | 'paths' | 'urls'> = subjectOf({ rawInput: input }),
): TerminalQuestion {
  const inputs: readonly unknown[] = Array.isArray(input) ? input : [input];
  // The kind shown is the kind the answer is judged by (policy/decide.ts).
  const lines = [`${questionText(who)} asks permission to ${oneLine(req.kind)}: ${questionText(req.title)}`];
  for (const c of subject.commands) lines.push(...field('command', c, true));
  for (const k of WHERE_KEYS) for (const v of stringsOf(inputs, k)) lines.push(...field(k, v, true));
  for (const p of subject.paths) lines.push(...field('path', p, true));
  for (const u of subject.urls) lines.push(...field('url', u, true));
  for (const k of SEARCH_KEYS) for (const v of stringsOf(inputs, k)) lines.push(...field(k, v, true));
  if (req.agentReason) lines.push(...field('reason', req.agentReason));
  const allow = req.options.find((o) => o.kind === 'allow_once');
  const reject = req.options.find((o) => o.kind === 'reject_once');
  // Only the once options: allow_always would persist into Cursor's allowlist.
  const choices = [
    ...(allow ? [{ key: 'a', label: 'allow once', value: allow.optionId }] : []),
    ...(reject ? [{ key: 'r', label: 'reject once', value: reject.optionId }] : []),
  ];
  return { lines, choices, eof: choices.find((c) => c.key === 'r') };
}

// A question sent as a permission request: its title, its text (from toolCall.content) and its options.
export function permissionAsQuestion(req: PermissionRequest, who = 'Cursor'): TerminalQuestion {
  const lines = [`${questionText(who)} asks: ${questionText(req.title)}`];
  if (req.agentReason && req.agentReason !== req.title) lines.push(...indented(req.agentReason));
  let n = 0;
  const choices = req.options.map((o) =>
    o.kind === 'reject_once'
      ? { key: SKIP_KEY, label: questionText(o.name), value: o.optionId }
      : { key: String(++n), label: questionText(o.name), value: o.optionId },
  );
  return { lines, choices, eof: choices.find((c) => c.key === SKIP_KEY) };
}

export interface AskedQuestion {
  id: string | null;
  prompt: string;
  options: Array<{ id: string; label: string }>;
}

// One question of a cursor/ask_question, numbered when there are several.
export function askQuestion(
  title: string | null,
  q: AskedQuestion,
  index: number,
  count: number,
): TerminalQuestion {
  const of = count > 1 ? ` (${index + 1} of ${count})` : '';
  const lines =
    title && title !== q.prompt
      ? [`Cursor asks${of}: ${questionText(title)}`, ...indented(q.prompt)]
      : [`Cursor asks${of}: ${questionText(q.prompt)}`];
  const skip = { key: SKIP_KEY, label: 'skip', value: '' };
  const choices = [
    ...q.options.map((o, i) => ({ key: String(i + 1), label: questionText(o.label), value: o.id })),
    skip,
  ];
  return { lines, choices, eof: skip };
}

export interface ProposedPlan {
  name: string | null;
  overview: string | null;
  plan: string;
  todos: Todo[];
}

// A cursor/create_plan: the name, the overview, the plan itself and its todos.
export function planQuestion(p: ProposedPlan): TerminalQuestion {
  const lines = [`Cursor proposes a plan${p.name ? `: ${questionText(p.name)}` : ''}`];
  if (p.overview) lines.push(...indented(p.overview), '');
  lines.push(...indented(p.plan.replace(/\n+$/, '')));
  if (p.todos.length > 0) {
    lines.push('  todos:');
    for (const t of p.todos) lines.push(`    - ${questionText(t.content)}`);
  }
  const reject = { key: 'r', label: 'reject', value: 'reject' };
  return { lines, choices: [{ key: 'a', label: 'accept', value: 'accept' }, reject], eof: reject };
}

// Text shown under a heading, two spaces in.
function indented(text: string): string[] {
  return visible(text)
    .split('\n')
    .map((l) => (l === '' ? '' : '  ' + l));
}

// The menu line the answer is typed after.
export function menu(q: TerminalQuestion): string {
  return q.choices.map((c) => `[${c.key}] ${c.label}`).join('  ') + ' > ';
}

// Says what the question takes, after an answer it could not read.
export function hint(q: TerminalQuestion, typed: string): string {
  const keys = q.choices.map((c) => c.key);
  const list = keys.length > 1 ? `${keys.slice(0, -1).join(', ')} or ${keys.at(-1)}` : (keys[0] ?? '');
  const what = typed.trim() === '' ? 'type' : `'${oneLine(typed.trim())}' is not an answer: type`;
  const eof = q.eof ? `; Ctrl-D: ${q.eof.label}` : '';
  return `  ${what} ${list} (or an option's name) and Enter${eof}`;
}

// Reads a typed answer: a key, an option's label, or the unique start of one (case and spaces ignored).
export function matchAnswer(q: TerminalQuestion, typed: string): Choice | undefined {
  const t = typed.trim().toLowerCase().replace(/\s+/g, ' ');
  if (t === '') return undefined;
  const byKey = q.choices.find((c) => c.key.toLowerCase() === t);
  if (byKey) return byKey;
  const byLabel = q.choices.find((c) => c.label.toLowerCase() === t);
  if (byLabel) return byLabel;
  const starts = q.choices.filter((c) => c.label.toLowerCase().startsWith(t));
  return starts.length === 1 ? starts[0] : undefined;
}

/** The abort reason of a question still open when the turn ended: it closes with its own line. */
export const TURN_ENDED = 'turn-ended';

/** The abort reason of a question still open when the run was stopped (Ctrl-\\: `ended by SIGQUIT`). */
export class RunStopped {
  constructor(readonly how: string) {}
}

// The line that closes a question nobody answered: the run cancelled it, the run was stopped (found by
// review: Ctrl-\ at the question said the turn had ended), or the turn ended first.
export const closingLine = (reason: unknown): string =>
  reason === TURN_ENDED
    ? '\n(the turn ended before an answer: not answered)\n'
    : reason instanceof RunStopped
      ? `\n(${reason.how}: not answered)\n`
      : '\n(cancelled)\n';
