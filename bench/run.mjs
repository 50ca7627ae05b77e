// `npm run bench`: times rho-cursor against the floor client on a fake agent of known latency,
// prints a markdown report with PASS/FAIL per target and writes it as JSON to bench/last-run.json.
// Env: BENCH_RUNS (runs per side, default 5), BENCH_RUNS_1M (1M flood, default BENCH_RUNS),
// BENCH_ONLY=id,id (a subset of scenarios), BENCH_RHO (another build to time). Flag --floor-only times the floor alone.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measure } from './measure.mjs';
import { evaluate, machine, render, toJson } from './report.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RHO = process.env.BENCH_RHO ?? join(ROOT, 'bin/rho-cursor');
const AGENT = join(ROOT, 'bench/fake-agent');
const FLOOR = join(ROOT, 'bench/floor-client.mjs');
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const RUNS_1M = Number(process.env.BENCH_RUNS_1M ?? RUNS);
const ONLY = process.env.BENCH_ONLY?.split(',');
const FLOOR_ONLY = process.argv.includes('--floor-only');
const CONFIG_DIR = mkdtempSync(join(tmpdir(), 'rho-bench-config-'));

const TURN = { BENCH_INIT_MS: 450, BENCH_NEW_MS: 300, BENCH_PROMPT_MS: 100, BENCH_CHUNKS: 20 };
// Builds a zero-delay flood scenario.
const flood = (n, format, label) => ({
  id: `flood-${label}${format === 'text' ? '-text' : ''}`,
  format,
  env: { BENCH_CHUNKS: n },
});
const SCENARIOS = [
  { id: 'turn-stream-json', format: 'stream-json', env: TURN },
  { id: 'turn-text', format: 'text', env: TURN },
  flood(10_000, 'stream-json', '10k'),
  flood(100_000, 'stream-json', '100k'),
  flood(200_000, 'stream-json', '200k'),
  flood(200_000, 'text', '200k'),
  { ...flood(1_000_000, 'stream-json', '1M'), runs: RUNS_1M },
  { id: 'tool-20mib', format: 'stream-json', env: { BENCH_TOOL_MIB: 20, BENCH_CHUNKS: 20 } },
].filter((s) => !ONLY || ONLY.includes(s.id));

const failures = [];

// Says why a run does not count (null when it is good); stream-json must end in a result event.
function problem(r, format) {
  if (r.spawnError) return `spawn failed: ${r.spawnError}`;
  if (r.code !== 0) return `exit ${r.signal ?? r.code}`;
  if (r.leftovers.length) return `agent outlived the run (pids ${r.leftovers.join(', ')}, killed)`;
  if (format !== 'stream-json') return null;
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

// Runs one side once, logs it, and records a failure instead of a timing when it went wrong.
async function once(scenario, side, cmd, args, env, format) {
  const r = await measure(cmd, args, { env: { CURSOR_CONFIG_DIR: CONFIG_DIR, ...env } });
  const why = problem(r, format);
  const rss = r.rssKiB ? ` ${(r.rssKiB / 1024).toFixed(1)} MiB` : '';
  process.stderr.write(
    `  ${scenario.padEnd(18)} ${side.padEnd(5)} ${r.ms.toFixed(0).padStart(6)} ms${rss}${why ? ` FAILED: ${why}` : ''}\n`,
  );
  if (!why) return r;
  failures.push({ scenario, side, reason: why, stderr: r.stderrTail });
  return null;
}

// Alternates floor and rho-cursor runs so drift in machine load hits both sides alike.
async function runScenario(s) {
  const env = Object.fromEntries(Object.entries(s.env).map(([k, v]) => [k, String(v)]));
  const rhoArgs = ['run', '--agent', AGENT, '--output-format', s.format, 'bench'];
  const floor = [];
  const rho = [];
  for (let i = 0; i < (s.runs ?? RUNS); i++) {
    floor.push(await once(s.id, 'floor', process.execPath, [FLOOR], env, 'floor'));
    if (!FLOOR_ONLY) rho.push(await once(s.id, 'rho', RHO, rhoArgs, env, s.format));
  }
  return { ...s, chunks: s.env.BENCH_CHUNKS, floor: floor.filter(Boolean), rho: rho.filter(Boolean) };
}

// Cold start: `rho-cursor --version` against `node -e 0`, alternated, 10 each.
async function runVersion() {
  const node = [];
  const rho = [];
  for (let i = 0; i < 10; i++) {
    node.push(await once('version', 'node', process.execPath, ['-e', '0'], {}, 'node'));
    if (!FLOOR_ONLY) rho.push(await once('version', 'rho', RHO, ['--version'], {}, 'text'));
  }
  return { id: 'version', floor: node.filter(Boolean), rho: rho.filter(Boolean) };
}

const startedAt = new Date().toISOString();
const loadBefore = machine().loadavg;
process.stderr.write(`bench: ${RUNS} runs per side${FLOOR_ONLY ? ' (floor only)' : ''}; warming up\n`);
await measure(process.execPath, [FLOOR], { env: { BENCH_CHUNKS: '20' } });
if (!FLOOR_ONLY) await measure(RHO, ['run', '--agent', AGENT, '--output-format', 'stream-json', 'warmup']);
const results = [];
for (const s of SCENARIOS) results.push(await runScenario(s));
if (!ONLY || ONLY.includes('version')) results.push(await runVersion());
rmSync(CONFIG_DIR, { recursive: true, force: true });

const report = evaluate(results, { floorOnly: FLOOR_ONLY });
const { loadavg: loadAfter, ...host } = machine();
const doc = {
  startedAt,
  machine: { ...host, loadBefore, loadAfter },
  runs: RUNS,
  runs1M: RUNS_1M,
  ...report,
  failures,
};
writeFileSync(join(ROOT, 'bench/last-run.json'), toJson(doc));
process.stdout.write(render(doc));
process.exit(failures.length ? 1 : 0);
