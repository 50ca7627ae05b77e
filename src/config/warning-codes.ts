// Pure: every warning code a run (or doctor) gives and when, the one list behind --no-warning's check,
// `run --help` and the README's table.
import { RhoError } from '../errors.js';

export const WARNINGS = {
  'policy-fences-nothing':
    'approvalMode is unrestricted (or unset) and the policy is not allow, with no fence: nothing asks',
  'plan-allows-shell': '--plan --fence none while shell would still run or be allowed',
  'reads-edits-never-ask': 'under allowlist, no fence, and reject or ask: reads and edits run without asking',
  'webfetch-deny-ignored': 'a WebFetch(...) deny rule, which Cursor ignores',
  'read-rules-miss-search': 'a Read(...) rule, which grep and glob ignore',
  'write-rules-not-asked': 'a Write(...) allow rule: Cursor never asks before an edit',
  'mcp-rules-cursor-only': "an Mcp(...) rule: held by Cursor's config alone",
  'approval-mode-auto-review': 'approvalMode auto-review: Cursor decides what runs',
  'approval-mode-unknown': 'an approvalMode rho-cursor does not know',
  'ask-without-terminal': '--permissions ask with no terminal: requests are rejected',
  'stdin-ignored': 'standard input is a pipe or a file that the prompt does not read',
  'no-session-to-continue': '--continue found no session: a new one is started',
  'sessions-truncated':
    '--continue read the first 50 pages of session/list, or kept the newest 1000 sessions: the agent had more',
  'replayed-request':
    'the agent sent a request while a loaded session was replayed: answered cancelled, kept as a history event',
  'replay-unfinished':
    "the agent was still replaying a loaded session after 5 s: what it replays after is read as this turn's",
  'agent-non-json': 'the agent wrote a line that is not JSON-RPC',
  'reply-looks-like-error': 'the turn ended end_turn but the reply reads as an API error',
  'agent-warning': 'the agent sent a notice of severity warning',
  'agent-error': 'the agent sent a notice of severity error',
  'answer-cut':
    "the answer passed 64 MiB: -o is not written and --output-schema takes no value from it; the summary and json's text have its first 64 MiB",
  'foreign-session-update': 'the agent sent updates or permission requests for another sessionId',
  'wire-log-failed': '--wire-log could not be written',
  'patch-failed': '--patch could not be written',
  'patch-redacted':
    'the key (CURSOR_API_KEY) was in what --patch would hold: masked, so the hunks that held it do not reproduce it',
  'patch-incomplete':
    "--patch left out what it could not carry (a repository the agent made, a name git refuses, a submodule's folder, a listed change git undid as it added it): the worktree is kept",
  'key-too-short': 'CURSOR_API_KEY is under 8 characters: it is not masked in what rho-cursor writes',
  'socks-proxy': 'doctor: ALL_PROXY or HTTPS_PROXY names a SOCKS proxy',
  'fence-not-enforced-by-agent':
    'a fence on an agent that is not Cursor: it holds only through permission answers and the ledger',
  'unaccounted-change': 'a file changed that no completed edit, delete or move of the agent names',
  'rejected-tool-ran': 'a tool shown rejected ran: the ledger shows its change',
  'ledger-failed': "the workspace's changes could not be measured",
  'ledger-incomplete':
    'the look after the turn could not see all of the workspace (it grew past the cap during the turn, a path could not be measured): changes may be missing',
  'runner-file-written':
    "the agent wrote one of GitHub's file commands ($GITHUB_ENV, $GITHUB_PATH, ...): put back as it was",
  'cursor-config-ignored':
    "Cursor's config (cli-config.json, .cursor/cli.json, its dir) is unusable, and the agent is not Cursor: ignored",
  'model-not-settable': '--model for an agent that is not Cursor and offers no model: not applied',
} as const;

export type WarningCode = keyof typeof WARNINGS;
export const WARNING_CODES = Object.keys(WARNINGS) as WarningCode[];

// The codes of --no-warning (repeatable, comma lists too) and RHO_CURSOR_NO_WARNING, or the unknown ones.
export function silencedWarnings(
  flags: readonly string[],
  env: string | undefined,
): { codes: string[]; unknown: Array<{ code: string; from: string }> } {
  const codes: string[] = [];
  const unknown: Array<{ code: string; from: string }> = [];
  const take = (list: string, from: string): void => {
    for (const code of list.split(',').map((c) => c.trim())) {
      if (code === '') continue;
      if ((WARNING_CODES as readonly string[]).includes(code)) codes.push(code);
      else unknown.push({ code, from });
    }
  };
  for (const f of flags) take(f, '--no-warning');
  take(env ?? '', 'RHO_CURSOR_NO_WARNING');
  return { codes: [...new Set(codes)], unknown };
}

// A usage error for each unknown code: a misspelt code would silence nothing, and no one would know.
export function unknownWarningErrors(unknown: ReadonlyArray<{ code: string; from: string }>): RhoError[] {
  return unknown.map(
    (u) =>
      new RhoError('usage', `${u.from}: no warning has the code '${u.code}' (run --help lists the codes)`),
  );
}
