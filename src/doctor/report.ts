// Pure: what doctor found, as one value, and its text and JSON forms.
import type { TreeHandle } from '../agent/cgroup.js';
import type { ErrorCode } from '../errors.js';
import type { Fence, Policy } from '../options.js';
import { MATRIX_KINDS, type Cell } from '../policy/matrix.js';
import type { RulesReport } from './rules.js';
import { cellText, type Kind, type Row } from './table.js';
import { oneLine } from '../sanitize/terminal.js';

/** Whether V8 took the build's code cache for the bundle ('none': there was none to give it). */
export type CodeCache = 'used' | 'rejected' | 'none';

export interface FileReport {
  path: string;
  exists: boolean;
  valid: boolean;
  /** The approvalMode the file sets, or null (the project file never sets one). */
  approvalMode: string | null;
  allow: string[];
  deny: string[];
  problem: string | null;
}

export interface HandshakeReport {
  initializeMs: number | null;
  sessionNewMs: number | null;
  /** Cursor's session/new succeeded (true) or asked for a login (false); null: not known (another agent's
   * session created, which may check its key only at the prompt; or no session/new answer). */
  authenticated: boolean | null;
  model: string | null;
  /** The fence the handshake ran under, so it could not touch the user's cli-config.json. */
  fence: Fence;
  error: string | null;
}

export interface DoctorReport {
  type: 'doctor';
  exitCode: number;
  error: { code: ErrorCode; message: string } | null;
  /** rho-cursor itself: its version, Node's, and whether V8 took the build's code cache (start-up time). */
  rhoCursor: { version: string; node: string; codeCache: CodeCache };
  agent: {
    command: string;
    from: '--agent' | 'RHO_CURSOR_AGENT' | 'default';
    path: string | null;
    version: string | null;
    problem: string | null;
    /** Cursor's newer `agent` binary found on PATH while cursor-agent is missing, and how to pass it. */
    newerName: string | null;
    /** Is it Cursor? By its name (and --agent-arg), then, with --handshake, by its initialize answer. */
    cursor: boolean;
    /** Another agent's agentInfo.title, when the handshake said it. */
    title: string | null;
  };
  configDir: { dir: string; source: string; how: string; problem: string | null };
  files: { user: FileReport; project: FileReport };
  /** The approvalMode Cursor applies (its default `unrestricted` when the file sets none). */
  approvalMode: string;
  apiKey: { set: boolean };
  /** The whole-tree handle a run's agent gets here (a cgroup), or none, and the promise it keeps. */
  processes: { handle: TreeHandle['kind']; text: string };
  handshake: HandshakeReport | null;
  plan: boolean;
  /** With --allow, --deny or --fence: the rules, as Cursor's config gets them, and each kind under them. */
  rules: RulesReport | null;
  table: Array<{ fence: Fence; policy: Policy } & Record<Kind, Cell>>;
  warnings: Array<{ code: string; message: string }>;
}

// The table as JSON rows: one object per fence and policy, a cell per tool kind.
export function tableJson(rows: Row[]): DoctorReport['table'] {
  return rows.map((r) => ({ fence: r.fence, policy: r.policy, ...r.cells }));
}

const pad = (s: string, n: number): string => s + ' '.repeat(Math.max(0, n - s.length));

// One config file in a line: where it is, whether it is usable, and what it sets.
function fileLine(label: string, f: FileReport): string {
  if (!f.exists) return `${label} ${f.path}: not present (Cursor's defaults apply)`;
  if (!f.valid) return `${label} ${f.path}: INVALID: ${f.problem ?? 'unusable'}`;
  const rules = (xs: string[]): string => (xs.length ? xs.join(', ') : 'none');
  const mode = f.approvalMode === null ? '' : ` · approvalMode ${f.approvalMode}`;
  return `${label} ${f.path}: valid${mode} · allow: ${rules(f.allow)} · deny: ${rules(f.deny)}`;
}

// The whole report for a person: facts first, then the table and its legend, then warnings and the verdict.
export function doctorText(r: DoctorReport): string {
  const lines: string[] = [];
  const a = r.agent;
  const agent = a.path
    ? `${a.command === a.path ? a.path : `${a.command} → ${a.path}`}${a.version ? ` (${a.version})` : ''}${a.problem ? ` · ${a.problem}` : ''}`
    : `${a.command}: ${a.problem ?? 'not found'}`;
  const rc = r.rhoCursor;
  const cache = {
    used: 'code cache used',
    rejected: 'code cache REJECTED: start-up compiles the bundle (rebuild with this Node: npm run build)',
    none: 'no code cache: start-up compiles the bundle',
  }[rc.codeCache];
  lines.push(`rho-cursor       ${rc.version} on Node ${rc.node} · ${cache}`);
  lines.push(`agent            ${agent}${a.from === 'default' ? '' : ` (from ${a.from})`}`);
  if (a.newerName) lines.push(`                 ${a.newerName}`);
  const d = r.configDir;
  lines.push(`config dir       ${d.dir} (${d.how})${d.problem ? ` · INVALID: ${d.problem}` : ''}`);
  lines.push(fileLine('cli-config.json ', r.files.user));
  lines.push(fileLine('.cursor/cli.json', r.files.project));
  const modeNote = r.files.user.approvalMode === null ? " (Cursor's default)" : '';
  lines.push(`approvalMode     ${r.approvalMode}${modeNote}`);
  lines.push(`CURSOR_API_KEY   ${r.apiKey.set ? 'set' : 'not set'}`);
  lines.push(`processes        ${r.processes.text}`);
  if (r.handshake) {
    const h = r.handshake;
    const ms = (n: number | null): string => (n === null ? '–' : `${n} ms`);
    // Only what was seen: another agent's session created says nothing of a key it checks at the prompt.
    const created = h.sessionNewMs !== null && h.error === null;
    const auth =
      h.authenticated === true
        ? ' · authenticated'
        : h.authenticated === false
          ? ' · NOT authenticated'
          : created
            ? ` · session created (no prompt sent: ${a.title ?? a.command} may ask for its key only at the prompt)`
            : '';
    const model = h.model ? ` · model ${h.model}` : '';
    lines.push(
      `handshake        initialize ${ms(h.initializeMs)} · session/new ${ms(h.sessionNewMs)}${auth}${model}` +
        ` (fence ${h.fence})${h.error ? ` · ${h.error}` : ''}`,
    );
  }
  if (r.rules) lines.push('', ...rulesLines(r.rules));
  lines.push('');
  lines.push(
    `what each tool kind does${r.plan ? ' with --plan' : ''}${r.rules && r.rules.allow.length + r.rules.deny.length > 0 ? ' under these rules' : ''}, by --fence and --permissions:`,
  );
  if (!a.cursor)
    lines.push(
      `(this is Cursor's table: ${a.title ?? a.command} is not Cursor, so what runs without asking is its own`,
      '  settings and mode; a fence holds for it only through permission answers and the ledger)',
    );
  const widths = [10, 8, ...MATRIX_KINDS.map(() => 15)];
  const header = ['fence', 'policy', ...MATRIX_KINDS];
  lines.push(
    header
      .map((h, i) => pad(h, widths[i]!))
      .join('')
      .trimEnd(),
  );
  for (const row of r.table) {
    const cells = MATRIX_KINDS.map((k) => cellText(row[k]));
    lines.push(
      [row.fence, row.policy, ...cells]
        .map((c, i) => pad(c, widths[i]!))
        .join('')
        .trimEnd(),
    );
  }
  lines.push(
    'runs: nothing stops it · asks: Cursor sends a permission request and the answer decides (you: at a terminal;',
    '  without one, rejected) · blocked: rule: a deny rule (the fences add Shell(*), Write(**)) · blocked: plan: plan mode',
    'search is grep and glob (no Read(...) rule reaches them); fetch is web fetch and web search (asked as kind search)',
  );
  if (r.warnings.length > 0) {
    lines.push('', 'warnings for a run with the defaults here:');
    for (const w of r.warnings) lines.push(`  ${w.code}: ${w.message}`);
  }
  lines.push('');
  lines.push(
    r.error
      ? `a run would fail: exit ${r.exitCode} (${r.error.code}): ${r.error.message}`
      : 'a run could start: exit 0',
  );
  // The agent's version, model and errors are its own text: each line stays one line, shown, never interpreted.
  return lines.map(oneLine).join('\n') + '\n';
}

// What the run gives Cursor: its private config as written, what of the user's allow rules it leaves out and
// why, or the user's own config when the run makes no private dir.
function cursorConfigLine(x: RulesReport): string {
  const p = x.privateConfig;
  if (!p)
    return "Cursor's config  yours, unchanged: no rule needs Cursor's config (rho-cursor's answers hold them)";
  const list = (xs: string[]): string => (xs.length ? xs.join(', ') : 'none');
  const why =
    x.cursor.allow.length > 0
      ? "the run's allow rules replace yours"
      : p.dropped.length > 0
        ? `yours, less ${p.dropped.join(', ')}: they would run unasked what only an answer stops`
        : 'yours';
  return `Cursor's config  private: approvalMode ${p.approvalMode} · allow: ${list(p.allow)} (${why}) · deny: ${list(p.deny)}`;
}

// The rules section: as read, as Cursor's config gets them, then one line per kind under the chosen fence.
function rulesLines(x: RulesReport): string[] {
  const list = (xs: string[]): string => (xs.length ? xs.join(', ') : 'none');
  const lines = [
    `rules            allow: ${list(x.allow)} · deny: ${list(x.deny)}`,
    cursorConfigLine(x),
    `under --fence ${x.fence} and --permissions ${x.policy}:`,
  ];
  for (const k of MATRIX_KINDS) lines.push(`  ${pad(k, 9)}${x.kinds[k]}`);
  return lines;
}
