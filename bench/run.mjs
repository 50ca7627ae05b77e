// `npm run bench`: times rho-cursor against a minimal NDJSON client and a bare line reader (the limit) on a
// fake agent, in alternating rounds, prints a markdown report with PASS/FAIL per target and writes it as
// JSON to bench/last-run.json. Flags: --quick (3 rounds, for development). Env: BENCH_ROUNDS (default 7),
// BENCH_ONLY=id,id (a subset of scenarios), BENCH_RHO (another build of rho-cursor to time),
// BENCH_KEEP_REPOS=1 (the ledger rows' workspaces kept under $TMPDIR and reused).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measure } from './measure.mjs';
import { KEEP, makeRepo } from './repo.mjs';
import { evaluate, machine, render, toJson } from './report.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RHO = process.env.BENCH_RHO ?? join(ROOT, 'bin/rho-cursor');
const AGENT = join(ROOT, 'bench/fake-agent');
const FLOOR = join(ROOT, 'bench/floor-client.mjs');
const QUICK = process.argv.includes('--quick');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (QUICK ? 3 : 7));
const ONLY = process.env.BENCH_ONLY?.split(',');
const CONFIG_DIR = mkdtempSync(join(tmpdir(), 'rho-bench-config-'));

// The clients: the bare reader and the minimal client (bench/floor-client.mjs), rho-cursor in a format.
const bare = { side: 'bare', cmd: process.execPath, args: [FLOOR, '--bare'], format: 'floor' };
const minimal = { side: 'minimal', cmd: process.execPath, args: [FLOOR], format: 'floor' };
// The client rows run in an empty workspace, so they time the client and not the workspace the bench was
// started in (the change ledger's cost in a real repository has rows of its own: changes-*).
const EMPTY_WORKSPACE = mkdtempSync(join(tmpdir(), 'rho-bench-workspace-'));
// rho-cursor in a format and a workspace (with any extra flags before the prompt).
const rho = (format, cwd = EMPTY_WORKSPACE, ...extra) => ({
  side: 'rho',
  cmd: RHO,
  args: [
    'run',
    '--agent',
    AGENT,
    '--permissions',
    'allow',
    '--output-format',
    format,
    '--cwd',
    cwd,
    ...extra,
    'bench',
  ],
  format,
});
const cli = (side, args) => ({ side, cmd: RHO, args, format: 'cli' });
// rho-cursor in a workspace, with the ledger on (as by default) or off (--no-changes).
const inRepo = (side, dir, ...extra) => ({ ...rho('stream-json', dir, ...extra), side });
// The workspaces of the ledger rows, made once (lazily: only when their rows run).
const repos = {};
const repo = (files, git) => (repos[`${files}-${git}`] ??= makeRepo(files, git));
const ledgerSides = (files, git) => [
  inRepo('ledger', repo(files, git)),
  inRepo('no-ledger', repo(files, git), '--no-changes'),
];

// One turn with Cursor's handshake shape (delays shortened so the bench is quick).
const TURN = { BENCH_INIT_MS: 450, BENCH_NEW_MS: 300, BENCH_PROMPT_MS: 100, BENCH_CHUNKS: 20 };
// A short real turn for the scale rows: the handshake, 2k chunks and 200 tool pairs.
const SHORT_TURN = { ...TURN, BENCH_CHUNKS: 2000, BENCH_SHORT: 1, BENCH_TOOLS: 200 };
const CHUNKS_1M = { BENCH_CHUNKS: 1_000_000, BENCH_SHORT: 1 };

const SCENARIOS = [
  { id: 'turn', label: 'one turn, stream-json', env: TURN, sides: [minimal, rho('stream-json')] },
  { id: 'turn-text', label: 'one turn, text', env: TURN, sides: [minimal, rho('text')] },
  {
    // The whole-tree handle's cost: the same turn with the agent in a cgroup (where the machine gives one)
    // and without (RHO_CURSOR_CGROUP=off: the process group and the /proc survey alone).
    id: 'turn-cgroup',
    label: 'one turn, stream-json, agent in a cgroup / without one',
    env: TURN,
    sides: [
      minimal,
      rho('stream-json'),
      { ...rho('stream-json'), side: 'nocgroup', env: { RHO_CURSOR_CGROUP: 'off' } },
    ],
  },
  {
    id: 'chunks-1M',
    label: '1M short chunks (`w123 `), stream-json',
    env: CHUNKS_1M,
    sides: [bare, minimal, rho('stream-json')],
  },
  { id: 'chunks-1M-text', label: '1M short chunks, text', env: CHUNKS_1M, sides: [rho('text')] },
  {
    id: 'tools-50k',
    label: '50k tool_call + update pairs, stream-json',
    env: { BENCH_TOOLS: 50_000 },
    sides: [bare, minimal, rho('stream-json')],
  },
  {
    id: 'tools-200k',
    label: '200k tool pairs, stream-json',
    env: { BENCH_TOOLS: 200_000 },
    sides: [bare, minimal, rho('stream-json')],
  },
  {
    id: 'tools-200k-text',
    label: '200k tool pairs, text',
    env: { BENCH_TOOLS: 200_000 },
    sides: [rho('text')],
  },
  {
    id: 'tool-20mib',
    label: 'one 20 MiB tool output line, stream-json',
    env: { BENCH_TOOL_MIB: 20, BENCH_CHUNKS: 20 },
    sides: [bare, minimal, rho('stream-json')],
  },
  {
    id: 'startup',
    label: 'start-up: `--version`, `--help`, `schema` (and `node -e 0`)',
    env: {},
    sides: [
      { side: 'node', cmd: process.execPath, args: ['-e', '0'], format: 'cli' },
      cli('version', ['--version']),
      cli('help', ['--help']),
      cli('schema', ['schema']),
    ],
  },
  {
    id: 'scale-1',
    label: 'a short turn, one run alone',
    env: SHORT_TURN,
    sides: [minimal, rho('stream-json')],
  },
  {
    id: 'scale-8',
    label: '8 runs at once',
    env: SHORT_TURN,
    parallel: 8,
    sides: [minimal, rho('stream-json')],
  },
  {
    id: 'scale-32',
    label: '32 runs at once',
    env: SHORT_TURN,
    parallel: 32,
    sides: [minimal, rho('stream-json')],
  },
  {
    id: 'changes-10k',
    label: 'a short turn in a git repository of 10,000 files: the ledger on and off',
    env: TURN,
    sides: () => ledgerSides(10_000, true),
  },
  {
    id: 'changes-100k',
    label: 'a short turn in a git repository of 100,000 files: the ledger on and off',
    env: TURN,
    sides: () => ledgerSides(100_000, true),
  },
  {
    id: 'changes-10k-walk',
    label: 'a short turn in a folder of 10,000 files outside git (the capped walk): the ledger on and off',
    env: TURN,
    sides: () => ledgerSides(10_000, false),
  },
]
  .filter((s) => !ONLY || ONLY.includes(s.id))
  // A scenario's sides may need a workspace made first: made only for the scenarios that run.
  .map((s) => (typeof s.sides === 'function' ? { ...s, sides: s.sides() } : s));

const failures = [];

// The number of session/update lines the fake agent sends for an env (what every client must account for).
function expectedUpdates(env) {
  const n = (k) => Number(env[k] ?? 0);
  return n('BENCH_CHUNKS') + 2 * n('BENCH_TOOLS') + (n('BENCH_TOOL_MIB') > 0 ? 2 : 0);
}

// Says why a run does not count (null when it is good); stream-json must end in a result event and
// carry one event per update plus the session and result events.
function problem(r, format, env) {
  if (r.spawnError) return `spawn failed: ${r.spawnError}`;
  if (r.code !== 0) return `exit ${r.signal ?? r.code}`;
  if (r.leftovers.length)
    return `the agent's processes outlived the run (pids ${r.leftovers.join(', ')}, killed)`;
  if (format !== 'stream-json') return null;
  if (r.lines !== expectedUpdates(env) + 2)
    return `${r.lines} stdout lines, expected ${expectedUpdates(env) + 2}`;
  try {
    const ev = JSON.parse(r.lastLine);
    if (ev.type !== 'result' || ev.exitCode !== 0 || ev.stopReason !== 'end_turn')
      return `last line: ${r.lastLine.slice(0, 200)}`;
    r.result = ev;
  } catch {
    return `last stdout line is not JSON: ${r.lastLine.slice(0, 200)}`;
  }
  return null;
}

// Runs one client once and returns its figures, or records a failure (null) when it went wrong.
async function once(s, c, pollMs = 10) {
  const env = { CURSOR_CONFIG_DIR: CONFIG_DIR, ...s.env, ...c.env };
  const r = await measure(c.cmd, c.args, { env, pollMs });
  const why = problem(r, c.format, s.env);
  if (!why) return r;
  failures.push({ scenario: s.id, side: c.side, reason: why, stderr: r.stderrTail });
  return null;
}

// Runs n copies of a client at once: total wall from the first launch to the last exit, per-run peak RSS.
async function parallel(s, c, n) {
  const t0 = performance.now();
  // A slower poll: 2n pollers at 10 ms would load the 2 cores they measure.
  const rs = await Promise.all(Array.from({ length: n }, () => once(s, c, 25)));
  const ms = performance.now() - t0;
  const good = rs.filter(Boolean);
  if (good.length < n) return null;
  const rss = good.map((r) => r.rssKiB).sort((a, b) => a - b);
  return {
    ms,
    load: good[0].load,
    rssKiB: rss[rss.length >> 1],
    rssMaxKiB: rss[rss.length - 1],
    cpuMs: good.reduce((a, r) => a + (r.cpuMs ?? 0), 0),
  };
}

// Logs one figure as it is taken, so a long bench shows progress on stderr.
function log(s, side, round, r) {
  const fig = r ? `${r.ms.toFixed(0).padStart(6)} ms ${((r.rssKiB ?? 0) / 1024).toFixed(1)} MiB` : 'FAILED';
  process.stderr.write(
    `  r${round} ${s.id.padEnd(16)} ${side.padEnd(8)} ${fig} load ${r?.load.toFixed(2) ?? ''}\n`,
  );
}

const startedAt = new Date().toISOString();
const loadBefore = machine().loadavg;
const t0 = performance.now();
process.stderr.write(`bench: ${ROUNDS} rounds${QUICK ? ' (--quick)' : ''}; warming up\n`);
await measure(process.execPath, [FLOOR], { env: { BENCH_CHUNKS: '20' } });
await measure(RHO, ['run', '--agent', AGENT, '--output-format', 'stream-json', 'warmup']);

// Every round runs every scenario once per client, the clients' order rotating, so drift in the
// machine's load hits every side alike.
const runs = Object.fromEntries(
  SCENARIOS.map((s) => [s.id, Object.fromEntries(s.sides.map((c) => [c.side, []]))]),
);
for (let round = 0; round < ROUNDS; round++) {
  for (const s of SCENARIOS) {
    const k = round % s.sides.length;
    for (const c of [...s.sides.slice(k), ...s.sides.slice(0, k)]) {
      const r = s.parallel ? await parallel(s, c, s.parallel) : await once(s, c);
      log(s, c.side, round + 1, r);
      runs[s.id][c.side][round] = r;
    }
  }
}
rmSync(CONFIG_DIR, { recursive: true, force: true });
rmSync(EMPTY_WORKSPACE, { recursive: true, force: true });
if (!KEEP)
  for (const dir of Object.values(repos)) rmSync(dir, { recursive: true, force: true, maxRetries: 5 });

const report = evaluate(SCENARIOS, runs);
const { loadavg: loadAfter, ...host } = machine();
const doc = {
  startedAt,
  wallSeconds: Math.round((performance.now() - t0) / 1000),
  machine: { ...host, loadBefore, loadAfter },
  rounds: ROUNDS,
  quick: QUICK,
  ...report,
  failures,
};
writeFileSync(join(ROOT, 'bench/last-run.json'), toJson(doc));
process.stdout.write(render(doc));
process.exit(failures.length ? 1 : 0);
