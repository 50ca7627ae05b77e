// Turns raw rounds into medians with their spread, checks them against issue 10's targets, renders markdown.
import { cpus, loadavg, release } from 'node:os';

// The median of a list of numbers (null for none), the figure every comparison uses.
function median(xs) {
  const v = xs.filter((x) => typeof x === 'number').sort((a, b) => a - b);
  if (v.length === 0) return null;
  const mid = v.length >> 1;
  return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

// Median with its min-max spread, so a reader can tell a stable figure from a noisy one.
function stats(xs) {
  const v = xs.filter((x) => typeof x === 'number');
  return v.length ? { median: median(v), min: Math.min(...v), max: Math.max(...v), n: v.length } : null;
}

// Describes this machine (and its load, since other work on 2 cores skews every figure).
export function machine() {
  const c = cpus();
  return { cpu: c[0]?.model, cores: c.length, node: process.version, kernel: release(), loadavg: loadavg() };
}

// Summarises one client's rounds: wall, peak RSS (MiB), CPU and the load they ran at.
function sideStats(rs) {
  const good = rs.filter(Boolean);
  return {
    runs: good.length,
    ms: stats(good.map((r) => r.ms)),
    rssMiB: stats(good.map((r) => r.rssKiB && r.rssKiB / 1024)),
    cpuMs: stats(good.map((r) => r.cpuMs)),
    load: stats(good.map((r) => r.load)),
    // Start-up before the agent is spawned, and teardown after the agent sent the turn's answer.
    agentStartMs: median(good.map((r) => r.agentStartMs)),
    exitAfterResultMs: median(good.map((r) => r.exitAfterResultMs)),
    samplesMs: rs.map((r) => (r ? Math.round(r.ms) : null)),
  };
}

// A figure computed per round from two clients' runs of that round (paired, so drift cancels), as stats.
function paired(runs, a, b, f) {
  const xs = (runs[a] ?? []).map((ra, i) => {
    const rb = runs[b]?.[i];
    return ra && rb ? f(ra, rb) : null;
  });
  return stats(xs);
}

// The loads a figure's runs were taken at.
function loadOf(runs, sides) {
  return stats(sides.flatMap((side) => (runs[side] ?? []).filter(Boolean).map((r) => r.load)));
}

const ratio = (a, b) => a.ms / b.ms;
const delta = (a, b) => a.ms - b.ms;
const rssDelta = (a, b) => (a.rssKiB - b.rssKiB) / 1024;
const cpuDelta = (a, b) => a.cpuMs - b.cpuMs;

// The targets of issue 10; each reads its figure from the rounds it needs (missing scenarios: not run).
function targets(runs) {
  const by = (id) => runs[id];
  const rssOf = (rs) => stats(rs.filter(Boolean).map((r) => r.rssKiB / 1024));
  const rss = (id, side = 'rho') => (by(id) ? rssOf(by(id)[side]) : null);
  const pair = (id, a, b, f) => (by(id) ? paired(by(id), a, b, f) : null);
  const load = (id, sides) => (by(id) ? loadOf(by(id), sides) : null);
  // Per-run RSS at 32 at once over one run alone: medians, since the runs are not paired one to one.
  const scaleRss = () => {
    const one = rss('scale-1');
    const many = rss('scale-32');
    return one && many
      ? { median: many.median / one.median, min: many.min / one.max, max: many.max / one.min }
      : null;
  };
  const t = [
    ['1M short chunks, stream-json: peak RSS', rss('chunks-1M'), 60, 'MiB', load('chunks-1M', ['rho'])],
    [
      '1M short chunks: wall / minimal client',
      pair('chunks-1M', 'rho', 'minimal', ratio),
      1.1,
      'x',
      load('chunks-1M', ['rho', 'minimal']),
    ],
    ['1M short chunks, text: peak RSS', rss('chunks-1M-text'), 60, 'MiB', load('chunks-1M-text', ['rho'])],
    ['200k tool pairs, stream-json: peak RSS', rss('tools-200k'), 70, 'MiB', load('tools-200k', ['rho'])],
    ['200k tool pairs, text: peak RSS', rss('tools-200k-text'), 70, 'MiB', load('tools-200k-text', ['rho'])],
    [
      '50k tool pairs: wall / minimal client',
      pair('tools-50k', 'rho', 'minimal', ratio),
      1.15,
      'x',
      load('tools-50k', ['rho', 'minimal']),
    ],
    [
      '20 MiB tool line: wall / minimal client',
      pair('tool-20mib', 'rho', 'minimal', ratio),
      1.2,
      'x',
      load('tool-20mib', ['rho', 'minimal']),
    ],
    [
      '20 MiB tool line: peak RSS − minimal client',
      pair('tool-20mib', 'rho', 'minimal', rssDelta),
      25,
      'MiB',
      load('tool-20mib', ['rho', 'minimal']),
    ],
    [
      'one turn, stream-json: rho − minimal client',
      pair('turn', 'rho', 'minimal', delta),
      30,
      'ms',
      load('turn', ['rho', 'minimal']),
    ],
    [
      'one turn, text: rho − minimal client',
      pair('turn-text', 'rho', 'minimal', delta),
      30,
      'ms',
      load('turn-text', ['rho', 'minimal']),
    ],
    [
      'one turn, agent in a cgroup: rho − minimal client',
      pair('turn-cgroup', 'rho', 'minimal', delta),
      30,
      'ms',
      load('turn-cgroup', ['rho', 'minimal']),
    ],
    [
      'the cgroup itself: rho − rho without it',
      pair('turn-cgroup', 'rho', 'nocgroup', delta),
      10,
      'ms',
      load('turn-cgroup', ['rho', 'nocgroup']),
    ],
    [
      'the cgroup itself, CPU (user + sys): rho − rho without it',
      pair('turn-cgroup', 'rho', 'nocgroup', cpuDelta),
      10,
      'ms',
      load('turn-cgroup', ['rho', 'nocgroup']),
    ],
    [
      '`schema` − `--version`',
      pair('startup', 'schema', 'version', delta),
      30,
      'ms',
      load('startup', ['schema', 'version']),
    ],
    [
      '`--help` − `--version`',
      pair('startup', 'help', 'version', delta),
      30,
      'ms',
      load('startup', ['help', 'version']),
    ],
    [
      'ledger, git repo of 10,000 files: on − off (--no-changes)',
      pair('changes-10k', 'ledger', 'no-ledger', delta),
      50,
      'ms',
      load('changes-10k', ['ledger', 'no-ledger']),
    ],
    [
      'ledger, git repo of 100,000 files: on − off',
      pair('changes-100k', 'ledger', 'no-ledger', delta),
      1000,
      'ms',
      load('changes-100k', ['ledger', 'no-ledger']),
    ],
    [
      'ledger, 10,000 files outside git (walk): on − off',
      pair('changes-10k-walk', 'ledger', 'no-ledger', delta),
      50,
      'ms',
      load('changes-10k-walk', ['ledger', 'no-ledger']),
    ],
    [
      '32 at once: per-run RSS / one run alone',
      by('scale-32') && by('scale-1') ? scaleRss() : null,
      1.05,
      'x',
      load('scale-32', ['rho']),
    ],
    [
      '32 at once: total wall / 32 minimal clients',
      pair('scale-32', 'rho', 'minimal', ratio),
      1.1,
      'x',
      load('scale-32', ['rho', 'minimal']),
    ],
  ];
  return t.map(([name, st, limit, unit, ld]) => ({
    name,
    value: st?.median ?? null,
    spread: st ? { min: st.min, max: st.max } : null,
    limit,
    unit,
    load: ld ? { median: ld.median, min: ld.min, max: ld.max } : null,
    pass: st ? st.median <= limit : null,
  }));
}

// Builds the report body: per-scenario, per-client summaries and the target verdicts.
export function evaluate(scenarios, runs) {
  return {
    scenarios: scenarios.map((s) => ({
      id: s.id,
      label: s.label,
      parallel: s.parallel ?? 1,
      sides: Object.fromEntries(Object.entries(runs[s.id]).map(([side, rs]) => [side, sideStats(rs)])),
    })),
    targets: targets(runs),
  };
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
function spread(st, digits = 0) {
  return st ? `${f(st.median, digits)} (${f(st.min, digits)}–${f(st.max, digits)})` : '–';
}

// Renders a markdown table from a header and rows of cells.
function table(header, rows) {
  const line = (cells) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)];
}

// Renders the whole report as markdown: figures per client, targets, notes, failures.
export function render(doc) {
  const m = doc.machine;
  const load = (l) => l.map((x) => x.toFixed(2)).join(' ');
  const out = [
    `## rho-cursor bench (${doc.startedAt}, ${doc.wallSeconds} s)`,
    '',
    `Machine: ${m.cpu}, ${m.cores} cores, Node ${m.node}, Linux ${m.kernel}; load average ${load(m.loadBefore)} before, ${load(m.loadAfter)} after.`,
    ...(m.loadBefore[0] > 0.5 || m.loadAfter[0] > 0.5
      ? [
          `**The machine was busy (1-minute load ${m.loadBefore[0].toFixed(2)} → ${m.loadAfter[0].toFixed(2)}): expect noise.**`,
        ]
      : []),
    `${doc.rounds} rounds${doc.quick ? ' (--quick)' : ''}; every round runs each client once per scenario, their order rotating; medians (min–max).`,
    '',
  ];
  const rows = [];
  for (const s of doc.scenarios) {
    for (const [side, st] of Object.entries(s.sides)) {
      rows.push([
        s.id,
        side,
        String(st.runs),
        spread(st.ms),
        spread(st.rssMiB, 1),
        f(st.cpuMs?.median),
        `${f(st.agentStartMs)} / ${f(st.exitAfterResultMs)}`,
        spread(st.load, 2),
      ]);
    }
  }
  out.push(
    ...table(
      [
        'scenario',
        'client',
        'runs',
        'wall ms',
        'peak RSS MiB (per run)',
        'CPU ms',
        'agent spawned / exit after answer, ms',
        'load (1 min)',
      ],
      rows,
    ),
    '',
  );
  const verdict = (t) => (t.pass === null ? 'not run' : t.pass ? 'PASS' : 'FAIL');
  const digits = (t) => (t.unit === 'x' ? 2 : t.unit === 'MiB' ? 1 : 0);
  out.push(
    ...table(
      ['target', 'measured (median)', 'spread (min–max)', 'limit', 'result', 'load (1 min)'],
      doc.targets.map((t) => [
        t.name,
        f(t.value, digits(t), ` ${t.unit}`),
        t.spread ? `${f(t.spread.min, digits(t))}–${f(t.spread.max, digits(t))}` : '–',
        `≤ ${t.limit} ${t.unit}`,
        verdict(t),
        t.load ? spread(t.load, 2) : '–',
      ]),
    ),
    '',
    ...NOTES,
  );
  if (doc.failures.length) {
    out.push('', `### ${doc.failures.length} failed run(s), not counted`, '');
    for (const x of doc.failures) {
      const err = x.stderr ? ` — stderr: ${JSON.stringify(x.stderr.trim().slice(-300))}` : '';
      out.push(`- ${x.scenario} ${x.side}: ${x.reason}${err}`);
    }
  }
  return out.join('\n') + '\n\nJSON: bench/last-run.json\n';
}

const NOTES = [
  'Clients: `bare` reads and counts lines (the limit); `minimal` parses every line and re-serialises every update to',
  'stdout in one write per read chunk (bench/floor-client.mjs); `rho` is bin/rho-cursor. All end the fake agent',
  'by its process group (it has a child, as cursor-agent does); a run that leaves one behind fails. Peak RSS is',
  "the client's own VmHWM polled every 10 ms (25 ms in the parallel rows; the agent is not counted); CPU is its",
  'user + sys. Paired figures (ratios, differences) are computed per round, then the median is taken. One turn:',
  'the agent waits 450 ms before answering initialize, 300 ms for session/new and 100 ms before streaming.',
  '"agent spawned" is when the agent started after the client was launched (its start-up); "exit after answer"',
  "runs from the agent sending the prompt's answer to the client's exit (its teardown).",
  'Parallel rows: n copies at once of a short turn (that handshake, 2k chunks, 200 tool pairs); wall is first',
  'launch to last exit; per-run RSS is the median of the n runs, compared with scale-1, the same turn alone.',
];
