// Turns raw runs into medians, checks them against the issue's targets, and renders markdown.
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
    ['one turn, stream-json: rho − floor', by['turn-stream-json']?.deltaMs, 60, 'ms'],
    ['one turn, text: rho − floor', by['turn-text']?.deltaMs, 60, 'ms'],
    ['200k flood, stream-json: wall / floor', by['flood-200k']?.ratio, 1.25, 'x'],
    ['200k flood, text: wall / floor', by['flood-200k-text']?.ratio, 1.25, 'x'],
    ['peak RSS, 200k flood stream-json', rss('flood-200k'), 90, 'MiB'],
    ['RSS flat: |1M − 100k|, stream-json', flat, 10, 'MiB'],
    ['--version − node -e 0', by.version?.deltaMs, 30, 'ms'],
  ];
  return t.map(([name, value, limit, unit]) => ({
    name,
    value: value ?? null,
    limit,
    unit,
    pass: typeof value === 'number' && value <= limit,
  }));
}

// Builds the report body: per-scenario summaries and target verdicts.
export function evaluate(results, { floorOnly }) {
  const scenarios = results.map(summarise);
  const by = Object.fromEntries(scenarios.map((s) => [s.id, s]));
  return { scenarios, targets: floorOnly ? [] : targets(by) };
}

// JSON.stringify in prettier's JSON style (arrays of primitives on one line when they fit in 110
// columns), so `prettier --check .` stays clean on bench/last-run.json.
export function toJson(value) {
  const text = JSON.stringify(value, null, 2);
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

// Renders the whole report as markdown.
export function render(doc) {
  const m = doc.machine;
  const out = [
    `## rho-cursor bench (${doc.startedAt})`,
    '',
    `Machine: ${m.cpu}, ${m.cores} cores, Node ${m.node}, Linux ${m.kernel}; load avg before ${m.loadBefore.map((x) => x.toFixed(2)).join(' ')}, after ${m.loadAfter.map((x) => x.toFixed(2)).join(' ')}.`,
    m.loadBefore[0] > 0.5
      ? `**The machine was busy when the bench started (load ${m.loadBefore[0].toFixed(2)}): expect noise.**`
      : '',
    `Runs per side: ${doc.runs} (1M flood: ${doc.runs1M}; --version: 10), floor and rho-cursor alternated; figures are medians.`,
    '',
    '| scenario | runs floor/rho | floor ms (min–max) | rho ms (min–max) | rho − floor | rho / floor | chunks/s floor → rho | peak RSS MiB floor / rho |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const s of doc.scenarios) {
    const cps = s.id.startsWith('flood') ? `${f(s.chunksPerSec.floor)} → ${f(s.chunksPerSec.rho)}` : '–';
    out.push(
      `| ${s.id} | ${s.runs.floor}/${s.runs.rho} | ${spread(s.floorMs)} | ${spread(s.rhoMs)} | ${f(s.deltaMs, 0, ' ms')} | ${f(s.ratio, 2, 'x')} | ${cps} | ${f(s.rssMiB.floor, 1)} / ${f(s.rssMiB.rho, 1)} |`,
    );
  }
  if (doc.targets.length) {
    out.push('', '| target | measured | limit | result |', '| --- | --- | --- | --- |');
    for (const t of doc.targets) {
      const d = t.unit === 'x' ? 2 : t.unit === 'MiB' ? 1 : 0;
      out.push(
        `| ${t.name} | ${f(t.value, d, ` ${t.unit}`)} | ≤ ${t.limit} ${t.unit} | ${t.pass ? 'PASS' : 'FAIL'} |`,
      );
    }
  }
  out.push(
    '',
    'Notes: the one-turn agent waits 450 ms before answering initialize, 300 ms for session/new (shortened from the',
    'real ~2.4–3.4 s so the bench is quick), 100 ms before streaming 20 chunks. Floods have no delays. Peak RSS is the',
    "process's own VmHWM polled every 10 ms (the agent is not counted). chunks/s = chunks / whole wall time (startup",
    'and handshake included). rho-cursor stdout is piped to the harness and drained.',
  );
  if (doc.failures.length) {
    out.push('', `### ${doc.failures.length} failed run(s): not timed`, '');
    for (const x of doc.failures)
      out.push(
        `- ${x.scenario} ${x.side}: ${x.reason}${x.stderr ? ` — stderr: ${JSON.stringify(x.stderr.trim().slice(-300))}` : ''}`,
      );
  }
  return out.join('\n') + '\n\nJSON: bench/last-run.json\n';
}
