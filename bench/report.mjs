// Turns raw runs into medians, checks them against the targets, and renders markdown.
import { cpus, loadavg, release } from 'node:os';

// The median of a list of numbers (null for none), the figure every comparison uses.
function median(xs) {
  const v = xs.filter((x) => typeof x === 'number').sort((a, b) => a - b);
  if (v.length === 0) return null;
  const mid = v.length >> 1;
  return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

// Median with its spread, so a reader can tell a stable figure from a noisy one.
function stats(xs) {
  return xs.length ? { median: median(xs), min: Math.min(...xs), max: Math.max(...xs) } : null;
}

// Describes this machine (and its load, since other work on 2 cores skews every figure).
export function machine() {
  const c = cpus();
  return { cpu: c[0]?.model, cores: c.length, node: process.version, kernel: release(), loadavg: loadavg() };
}

// Summarises one scenario's runs into the figures the targets are stated in.
function summarise(s) {
  const floorMs = stats(s.floor.map((r) => r.ms));
  const rhoMs = stats(s.rho.map((r) => r.ms));
  const mib = (rs) => median(rs.map((r) => r.rssKiB && r.rssKiB / 1024));
  const perSec = (ms) => (s.id.startsWith('flood') && ms ? Math.round(s.chunks / (ms.median / 1000)) : null);
  const both = (k) => ({ floor: median(s.floor.map((r) => r[k])), rho: median(s.rho.map((r) => r[k])) });
  const timing = (k) => median(s.rho.map((r) => r.result?.timings?.[k]));
  return {
    id: s.id,
    format: s.format ?? null,
    chunks: s.chunks ?? null,
    runs: { floor: s.floor.length, rho: s.rho.length },
    floorMs,
    rhoMs,
    deltaMs: floorMs && rhoMs ? rhoMs.median - floorMs.median : null,
    ratio: floorMs && rhoMs ? rhoMs.median / floorMs.median : null,
    chunksPerSec: { floor: perSec(floorMs), rho: perSec(rhoMs) },
    rssMiB: { floor: mib(s.floor), rho: mib(s.rho) },
    cpuMs: both('cpuMs'),
    agentStartMs: both('agentStartMs'),
    exitAfterResultMs: both('exitAfterResultMs'),
    rhoTimings: {
      initializeMs: timing('initializeMs'),
      sessionNewMs: timing('sessionNewMs'),
      promptMs: timing('promptMs'),
    },
    stdoutLines: median(s.rho.map((r) => r.lines)),
    samplesMs: { floor: s.floor.map((r) => Math.round(r.ms)), rho: s.rho.map((r) => Math.round(r.ms)) },
  };
}

// Checks each target from the issue; a missing figure (failed runs) fails its target.
function targets(by) {
  const rss = (id) => by[id]?.rssMiB.rho ?? null;
  const flat =
    rss('flood-1M') !== null && rss('flood-100k') !== null
      ? Math.abs(rss('flood-1M') - rss('flood-100k'))
      : null;
  const t = [
    ['one turn, stream-json: rho − floor', ['turn-stream-json'], by['turn-stream-json']?.deltaMs, 60, 'ms'],
    ['one turn, text: rho − floor', ['turn-text'], by['turn-text']?.deltaMs, 60, 'ms'],
    ['200k flood, stream-json: wall / floor', ['flood-200k'], by['flood-200k']?.ratio, 1.25, 'x'],
    ['200k flood, text: wall / floor', ['flood-200k-text'], by['flood-200k-text']?.ratio, 1.25, 'x'],
    ['peak RSS, 200k flood stream-json', ['flood-200k'], rss('flood-200k'), 90, 'MiB'],
    ['RSS flat: 1M vs 100k (abs diff), stream-json', ['flood-1M', 'flood-100k'], flat, 10, 'MiB'],
    ['--version − node -e 0', ['version'], by.version?.deltaMs, 30, 'ms'],
  ];
  // A target whose scenarios were left out (BENCH_ONLY) is not judged: verdict null.
  return t.map(([name, needs, value, limit, unit]) => ({
    name,
    value: value ?? null,
    limit,
    unit,
    pass: needs.every((id) => by[id]) ? typeof value === 'number' && value <= limit : null,
  }));
}

// Builds the report body: per-scenario summaries and target verdicts.
export function evaluate(results, { floorOnly }) {
  const scenarios = results.map(summarise);
  const by = Object.fromEntries(scenarios.map((s) => [s.id, s]));
  return { scenarios, targets: floorOnly ? [] : targets(by) };
}

// JSON.stringify (numbers to 3 decimals) in prettier's JSON style (arrays of primitives on one line when
// they fit in 110 columns), so `prettier --check .` stays clean on bench/last-run.json.
export function toJson(value) {
  const round = (_k, v) => (typeof v === 'number' && !Number.isInteger(v) ? Math.round(v * 1000) / 1000 : v);
  const text = JSON.stringify(value, round, 2);
  return (
    text.replace(/\[\n\s+([^[\]{}]*?)\n\s*\]/g, (whole, body, at) => {
      const one = `[${body.split(/,\n\s*/).join(', ')}]`;
      const column = at - text.lastIndexOf('\n', at) - 1;
      const comma = text[at + whole.length] === ',' ? 1 : 0;
      return column + one.length + comma <= 110 ? one : whole;
    }) + '\n'
  );
}

// Formats a number for the table, with a dash where there is nothing to show.
function f(x, digits = 0, suffix = '') {
  return typeof x === 'number' ? x.toFixed(digits) + suffix : '–';
}

// Formats a median with its min–max range.
function spread(st) {
  return st ? `${f(st.median)} (${f(st.min)}–${f(st.max)})` : '–';
}

// Formats rho-cursor's own handshake and prompt timings (from its result event).
function timings(t) {
  return t.promptMs === null ? '–' : `${f(t.initializeMs)} / ${f(t.sessionNewMs)} / ${f(t.promptMs)}`;
}

// Renders a markdown table from a header and rows of cells.
function table(header, rows) {
  const line = (cells) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)];
}

// Formats a floor / rho pair of medians.
function pair(p, digits = 0) {
  return `${f(p.floor, digits)} / ${f(p.rho, digits)}`;
}

// Renders the whole report as markdown: figures, where the time goes, targets, notes, failures.
export function render(doc) {
  const m = doc.machine;
  const load = (l) => l.map((x) => x.toFixed(2)).join(' ');
  const out = [
    `## rho-cursor bench (${doc.startedAt})`,
    '',
    `Machine: ${m.cpu}, ${m.cores} cores, Node ${m.node}, Linux ${m.kernel}; load average ${load(m.loadBefore)} before, ${load(m.loadAfter)} after.`,
    ...(m.loadBefore[0] > 0.5
      ? [`**The machine was already busy (load ${m.loadBefore[0].toFixed(2)}): expect noise.**`]
      : []),
    `Runs per side: ${doc.runs} (1M flood: ${doc.runs1M}; --version: 10), floor and rho-cursor alternated; medians.`,
    '',
  ];
  const flood = (s) => s.id.startsWith('flood');
  out.push(
    ...table(
      [
        'scenario',
        'runs floor/rho',
        'floor ms (min–max)',
        'rho ms (min–max)',
        'rho − floor',
        'rho / floor',
        'chunks/s floor → rho',
        'peak RSS MiB floor / rho',
      ],
      doc.scenarios.map((s) => [
        s.id,
        `${s.runs.floor}/${s.runs.rho}`,
        spread(s.floorMs),
        spread(s.rhoMs),
        f(s.deltaMs, 0, ' ms'),
        f(s.ratio, 2, 'x'),
        flood(s) ? `${f(s.chunksPerSec.floor)} → ${f(s.chunksPerSec.rho)}` : '–',
        pair(s.rssMiB, 1),
      ]),
    ),
    '',
    'Where the time goes (medians, floor / rho):',
    '',
    ...table(
      [
        'scenario',
        'CPU ms',
        'agent started after launch, ms',
        'exit after stopReason sent, ms',
        'rho init / new / prompt ms',
      ],
      doc.scenarios
        .filter((s) => s.id !== 'version')
        .map((s) => [
          s.id,
          pair(s.cpuMs),
          pair(s.agentStartMs),
          pair(s.exitAfterResultMs),
          timings(s.rhoTimings),
        ]),
    ),
  );
  if (doc.targets.length) {
    const verdict = (t) => (t.pass === null ? 'not run' : t.pass ? 'PASS' : 'FAIL');
    const digits = (t) => (t.unit === 'x' ? 2 : t.unit === 'MiB' ? 1 : 0);
    out.push(
      '',
      ...table(
        ['target', 'measured', 'limit', 'result'],
        doc.targets.map((t) => [
          t.name,
          f(t.value, digits(t), ` ${t.unit}`),
          `≤ ${t.limit} ${t.unit}`,
          verdict(t),
        ]),
      ),
    );
  }
  out.push('', ...NOTES);
  if (doc.failures.length) {
    out.push('', `### ${doc.failures.length} failed run(s), not timed`, '');
    for (const x of doc.failures) {
      const err = x.stderr ? ` — stderr: ${JSON.stringify(x.stderr.trim().slice(-300))}` : '';
      out.push(`- ${x.scenario} ${x.side}: ${x.reason}${err}`);
    }
  }
  return out.join('\n') + '\n\nJSON: bench/last-run.json\n';
}

const NOTES = [
  'Notes. One turn: the fake agent waits 450 ms before answering initialize, 300 ms for session/new (shortened',
  'from the real ~2.4–3.4 s so the bench is quick) and 100 ms before streaming 20 chunks; floods have no delays.',
  "Peak RSS is the client process's own VmHWM, polled every 10 ms (the agent is not counted). chunks/s = chunks /",
  'whole wall time (start-up and handshake included). rho-cursor stdout is piped to the harness and drained.',
  "CPU is the client's own user + sys from /proc (agent excluded; the last ≤ 10 ms unseen): steadier than wall",
  'time on a loaded machine. "agent started" is when the agent process began (its performance.timeOrigin) after',
  'the client was launched: the client\'s start-up before it spawns. "exit after stopReason" runs from the agent',
  "sending the prompt's result to the client's exit: teardown. rho init / new / prompt come from its result event.",
];
