// Bounded whatever the input (contract v3, "Bounds"): for each hostile input, a run under --timeout 2s ends
// with exit 124 or its documented usage/config exit, the `result` event last, and no process left behind:
// not the agent, not a grandchild that left the session and cleared its environment, not the agent's cgroup.
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { probeTreeHandle } from '../../src/agent/cgroup.js';
import { MAX_HELD_BYTES } from '../../src/render/output.js';
import { TOOL_FACTOR, TOOL_SLACK } from '../../src/render/stream-json.js';
import { MAX_HELD_TOOLS } from '../../src/stop.js';
import { BIN, FIXTURES, makeAgentDir } from '../helpers/agent-path.js';
import { finish, runCli, startCli, tempDir, waitForStdout, type CliRun } from '../helpers/cli.js';
import { chunk, effect, permissionRequest } from '../helpers/lines.js';
import { isRunning, waitForGone } from '../helpers/processes.js';
import { hasPty, onPty, type PtyStep } from '../helpers/pty.js';
import { SHORT_GRACE, testTiming } from '../helpers/timing.js';
import { WIRE_LOG_MAX_PENDING } from '../../src/wirelog.js';
import { MAX_KEPT } from '../../src/events/collect.js';
import { JsonOutput, jsonSchemas } from '../../src/events/schema.js';
import type { JsonOutput as JsonOutputType } from '../../src/events/types.js';
import { LINE_HEAD, LINE_TAIL } from '../../src/run/attempt.js';

const SJ = ['--output-format', 'stream-json'];
const agentPath = makeAgentDir(join(FIXTURES, 'scripted.mjs')).then((d) => join(d, 'cursor-agent'));
const CGROUP_ROOTS = [
  '/sys/fs/cgroup',
  '/sys/fs/cgroup/unified',
  '/sys/fs/cgroup/freezer',
  '/sys/fs/cgroup/pids',
];
/** Whether this machine gives a run's agent a cgroup (root with a writable cgroupfs). */
const tree = probeTreeHandle(process.env);
const PERMISSION = permissionRequest(0, 'tool_1', 'execute', 'ls');
const mkfifo = (path: string): void => void expect(spawnSync('mkfifo', [path]).status).toBe(0);

interface Hostile {
  /** Files and settings of the hostile input, made in dir; returns the run's extra arguments and env. */
  make(dir: string): { args: string[]; env?: Record<string, string>; cwd?: string };
  script?: Record<string, unknown>;
  exit: number;
  code: string;
  message: RegExp;
  /** The answer is judged only once the turn is over: on a loaded machine the 2 s deadline may come first,
   * which is the bound holding too (exit 124, run_timeout), never a hang. */
  orDeadline?: true;
  /** The run's result comes within this long of its start, by its own clock (`durationMs`: from before the
   * deadline's timer starts), and the process exits within 2 s more of the test's clock (Node's start and
   * exit, several times longer on a loaded 2-core machine than on a quiet one). */
  withinMs?: number;
  /** The watchdog's kill, where a run that ignored its deadline would grow its memory past a test's share. */
  watchdogMs?: number;
}

/** L levels of anyOf over two refs to the next level, ending in a string (1.4 KB at L = 20): a mismatch (42)
 * takes 2^L branches and collects 2^L errors (found by review: L = 22 took 116 s and 3.7 GB, L = 32 never
 * ended, --timeout and SIGINT not acted on). */
function exponentialSchema(levels: number): string {
  const defs: Record<string, unknown> = {};
  for (let i = 0; i < levels; i++)
    defs[`a${i}`] = { anyOf: [{ $ref: `#/$defs/a${i + 1}` }, { $ref: `#/$defs/a${i + 1}` }] };
  defs[`a${levels}`] = { type: 'string' };
  return JSON.stringify({ $defs: defs, $ref: '#/$defs/a0' });
}
const exponential = (dir: string): { args: string[] } => {
  writeFileSync(join(dir, 's.json'), exponentialSchema(32));
  return { args: ['--output-schema', join(dir, 's.json'), '--schema-retries', '0'] };
};

// A turn that never ends unless cancelled (the agent answers the cancel), its pid written.
const endless = { before: [chunk('working')], answer: false, onCancel: {} };

const CASES: Record<string, Hostile> = {
  'a pattern that backtracks (^(a+)+$) against a long near-match': {
    make: (dir) => {
      writeFileSync(
        join(dir, 's.json'),
        JSON.stringify({ type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } } }),
      );
      return { args: ['--output-schema', join(dir, 's.json'), '--schema-retries', '0'] };
    },
    script: { before: [chunk(JSON.stringify({ s: 'a'.repeat(30_000) + '!' }))] },
    exit: 6,
    code: 'schema_mismatch',
    message: /must match pattern/,
    orDeadline: true,
  },
  'a schema whose check is exponential (anyOf over two refs, 32 levels) against a mismatch': {
    make: exponential,
    script: { before: [chunk('42')] },
    exit: 124,
    code: 'run_timeout',
    message: /the run exceeded --timeout 2s/,
    withinMs: 3000,
    // Before the fix the check ran on the main thread: 1 GB by 15 s.
    watchdogMs: 8000,
  },
  'a schema nested 5,000 levels deep': {
    make: (dir) => {
      writeFileSync(join(dir, 's.json'), '{"items":'.repeat(5000) + '{}' + '}'.repeat(5000));
      return { args: ['--output-schema', join(dir, 's.json')] };
    },
    exit: 2,
    code: 'usage',
    message: /s\.json is nested deeper than 256 levels \(the most rho-cursor takes in a schema\)$/,
  },
  'a FIFO as cli-config.json': {
    make: (dir) => {
      mkdirSync(join(dir, 'cfg'));
      mkfifo(join(dir, 'cfg', 'cli-config.json'));
      return { args: [], env: { CURSOR_CONFIG_DIR: join(dir, 'cfg') } };
    },
    exit: 2,
    code: 'config_invalid',
    message: /cfg\/cli-config\.json is a FIFO \(named pipe\), not a regular file/,
  },
  'a workspace .cursor/cli.json that links to /dev/zero': {
    make: (dir) => {
      mkdirSync(join(dir, 'ws', '.cursor'), { recursive: true });
      symlinkSync('/dev/zero', join(dir, 'ws', '.cursor', 'cli.json'));
      return { args: [], cwd: join(dir, 'ws') };
    },
    exit: 2,
    code: 'config_invalid',
    message: /\.cursor\/cli\.json is a character device, not a regular file/,
  },
  'a schema that refers to itself ({"$ref": "#"})': {
    make: (dir) => {
      writeFileSync(join(dir, 's.json'), '{"$ref": "#"}');
      return { args: ['--output-schema', join(dir, 's.json')] };
    },
    exit: 2,
    code: 'usage',
    message: /s\.json refers to itself at # without moving into a property or an item/,
  },
  'a FIFO as --prompt-file': {
    make: (dir) => {
      mkfifo(join(dir, 'task.md'));
      return { args: ['-f', join(dir, 'task.md')] };
    },
    exit: 2,
    code: 'usage',
    message: /'--prompt-file': '.*task\.md' is a FIFO/,
  },
  'a FIFO as --attach': {
    make: (dir) => {
      mkfifo(join(dir, 'notes.md'));
      return { args: ['--attach', join(dir, 'notes.md')] };
    },
    exit: 2,
    code: 'usage',
    message: /'--attach' takes a file: '.*notes\.md' is not one \(a FIFO \(named pipe\)\)/,
  },
  'a FIFO nothing reads as --wire-log': {
    make: (dir) => {
      mkfifo(join(dir, 'wire'));
      return { args: ['--wire-log', join(dir, 'wire')] };
    },
    exit: 2,
    code: 'usage',
    message: /'--wire-log' cannot open .*wire: nothing is reading the FIFO/,
  },
  'a FIFO nothing reads as -o': {
    make: (dir) => {
      mkfifo(join(dir, 'answer'));
      return { args: ['-o', join(dir, 'answer')] };
    },
    exit: 1,
    code: 'write_failed',
    message: /cannot write the last message to .*answer: nothing is reading the FIFO/,
  },
  'a FIFO as --output-schema': {
    make: (dir) => {
      mkfifo(join(dir, 's.json'));
      return { args: ['--output-schema', join(dir, 's.json')] };
    },
    exit: 2,
    code: 'usage',
    message: /'--output-schema': .*s\.json is a FIFO/,
  },
  // Found by review: every answer was buffered, however much (167 MB for 80k requests).
  'an agent that stops reading its input and floods requests': {
    make: () => ({ args: ['--permissions', 'allow'] }),
    script: { deafFlood: 12_000 },
    exit: 1,
    code: 'protocol',
    message: /stopped reading what rho-cursor sends: more than 16 MiB of answers wait/,
    orDeadline: true,
  },
};

// One hostile run under --timeout 2s; the agent writes its pid (and the ghost's) into dir.
async function hostileRun(
  dir: string,
  h: Pick<Hostile, 'make' | 'script' | 'watchdogMs'>,
  env: Record<string, string> = {},
) {
  const made = h.make(dir);
  const script = { ...(h.script ?? {}), pidFile: join(dir, 'agent.pid') };
  const t0 = Date.now();
  const started = startCli(['run', ...SJ, '--timeout', '2s', ...made.args, 'go'], {
    agent: await agentPath,
    cliConfig: { approvalMode: 'allowlist' },
    cwd: made.cwd,
    watchdogMs: h.watchdogMs ?? 15_000,
    env: { RHO_SCRIPT: JSON.stringify(script), ...made.env, ...env },
  });
  const pid = started.child.pid!;
  const r = await finish(started, true);
  return { r, pid, ms: Date.now() - t0 };
}

// Nothing of the run is left: the agent, the ghost, and any cgroup the run made.
async function expectNothingLeft(
  dir: string,
  rhoPid: number,
  files = ['agent.pid', 'ghost.pid'],
): Promise<void> {
  for (const f of files) {
    const path = join(dir, f);
    if (!existsSync(path)) continue;
    const pid = Number(readFileSync(path, 'utf8'));
    expect(await waitForGone(pid, 3000), `${f} ${pid} still running`).toBe(true);
  }
  for (const root of CGROUP_ROOTS) {
    const left = existsSync(root)
      ? readdirSync(root).filter((n) => n.startsWith(`rho-cursor-${rhoPid}-`))
      : [];
    expect(left, `cgroups left in ${root}`).toEqual([]);
  }
}

// A copy of the CLI whose stdout goes into a file (output the test need not buffer) and whose peak RSS is
// measured where /usr/bin/time is: its MB, or undefined without it.
function measured(dir: string): { bin: string; out: () => string; peakMB: () => number | undefined } {
  const time = existsSync('/usr/bin/time') ? `/usr/bin/time -f %M -o "${dir}/rss" ` : '';
  const bin = join(dir, 'rho-cursor');
  writeFileSync(bin, `#!/bin/sh\nexec ${time}${JSON.stringify(BIN)} "$@" >"${dir}/out"\n`);
  chmodSync(bin, 0o755);
  return {
    bin,
    out: () => readFileSync(join(dir, 'out'), 'utf8'),
    peakMB: () =>
      time ? Number(readFileSync(join(dir, 'rss'), 'utf8').trim().split('\n').at(-1)) / 1024 : undefined,
  };
}

function expectResultLast(r: CliRun, exit: number, code: string, message: RegExp): void {
  expect(r.exitCode, r.stderr).toBe(exit);
  expect(r.events.filter((e) => e.type === 'result')).toHaveLength(1);
  expect(r.events.at(-1)).toMatchObject({ type: 'result', exitCode: exit, error: { code } });
  expect((r.events.at(-1)!.error as { message: string }).message).toMatch(message);
  expect(r.stderr).not.toMatch(/\n\s+at |unknown format/);
}

describe('every hostile input ends the run within its bounds, result last, nothing left', () => {
  it.each(Object.entries(CASES))('%s', async (_, h) => {
    const dir = tempDir('rho-bounds-');
    const { r, pid, ms } = await hostileRun(dir, h);
    if (h.orDeadline && r.exitCode === 124) expectResultLast(r, 124, 'run_timeout', /--timeout/);
    else expectResultLast(r, h.exit, h.code, h.message);
    if (h.withinMs !== undefined) {
      expect(r.events.at(-1)!.durationMs).toBeLessThan(h.withinMs);
      expect(ms).toBeLessThan(h.withinMs + 2000);
    }
    // A usage or config error is found before anything is spawned.
    if (h.exit === 2) expect(existsSync(join(dir, 'agent.pid'))).toBe(false);
    await expectNothingLeft(dir, pid);
  });

  it.runIf(tree.kind !== 'none')(
    'a grandchild that left the session and cleared its environment (setsid env -i, TERM ignored) ends with the run: exit 124',
    async () => {
      const dir = tempDir('rho-bounds-');
      const h = { make: () => ({ args: [] }), script: { ...endless, ghost: join(dir, 'ghost.pid') } };
      // The ghost ignores SIGTERM and sits out the kill grace: a short one ends it the same way.
      const { r, pid } = await hostileRun(dir, h, testTiming(SHORT_GRACE));
      expectResultLast(r, 124, 'run_timeout', /--timeout/);
      expect(existsSync(join(dir, 'ghost.pid'))).toBe(true);
      await expectNothingLeft(dir, pid);
    },
  );

  it.runIf(tree.kind !== 'none')('the same with the cgroup v1 hierarchies (freezer, else pids)', async () => {
    const dir = tempDir('rho-bounds-');
    const h = { make: () => ({ args: [] }), script: { ...endless, ghost: join(dir, 'ghost.pid') } };
    const { r, pid } = await hostileRun(dir, h, { RHO_CURSOR_CGROUP: 'v1', ...testTiming(SHORT_GRACE) });
    expectResultLast(r, 124, 'run_timeout', /--timeout/);
    await expectNothingLeft(dir, pid);
  });

  it('without a cgroup (RHO_CURSOR_CGROUP=off) the escape the README names first remains: a process that left the session and cleared its environment', async () => {
    const dir = tempDir('rho-bounds-');
    const h = { make: () => ({ args: [] }), script: { ...endless, ghost: join(dir, 'ghost.pid') } };
    const { r, pid } = await hostileRun(dir, h, { RHO_CURSOR_CGROUP: 'off' });
    expectResultLast(r, 124, 'run_timeout', /--timeout/);
    const ghost = Number(readFileSync(join(dir, 'ghost.pid'), 'utf8'));
    try {
      expect(isRunning(ghost)).toBe(true);
      await expectNothingLeft(dir, pid, ['agent.pid']);
    } finally {
      process.kill(ghost, 'SIGKILL');
    }
  });
});

// Found by review, without a cgroup: two processes the survey missed, each writing a file into the workspace
// after the ledger's look (exit 0 under --fence read-only). Both ignore SIGTERM, so only the ladder's SIGKILL
// stops the write; the test waits past the time of the write and asserts it never came.
describe('without a cgroup, what the survey once missed ends with the run', () => {
  // A process whose main thread calls pthread_exit while a worker thread sleeps `secs` s, then writes
  // `target`: /proc shows it as a zombie (state Z) though its worker lives. argv: target secs pidfile [setsid].
  const ZOMBIE_LEADER_C = `
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <fcntl.h>
static const char *target; static int secs;
static void *worker(void *a) {
  (void)a;
  sleep(secs);
  int fd = open(target, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) { if (write(fd, "late\\n", 5) < 0) {} close(fd); }
  return NULL;
}
int main(int argc, char **argv) {
  target = argv[1]; secs = atoi(argv[2]);
  signal(SIGTERM, SIG_IGN); signal(SIGHUP, SIG_IGN);
  if (argc > 4) setsid();
  pthread_t t; pthread_create(&t, NULL, worker, NULL);
  FILE *f = fopen(argv[3], "w"); fprintf(f, "%d\\n", getpid()); fclose(f);
  pthread_exit(NULL);
}
`;
  const cc = ['cc', 'gcc', 'clang'].find((c) => spawnSync(c, ['--version']).status === 0);
  // The helper, compiled once into a temp dir outside any workspace; undefined without a C compiler.
  const zombieLeader = ((): string | undefined => {
    if (!cc) return undefined;
    const dir = tempDir('rho-zl-');
    writeFileSync(join(dir, 'zl.c'), ZOMBIE_LEADER_C);
    const built = spawnSync(cc, ['-pthread', '-o', join(dir, 'zl'), join(dir, 'zl.c')]);
    return built.status === 0 ? join(dir, 'zl') : undefined;
  })();
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  // A run under --fence read-only whose agent runs `sh` (in the background, detached from its pipes) and
  // answers; no cgroup, a short kill grace unless told.
  async function readOnlyRun(ws: string, sh: string, timing = testTiming(SHORT_GRACE)): Promise<CliRun> {
    return runCli(['run', ...SJ, '--fence', 'read-only', 'go'], {
      agent: await agentPath,
      cwd: ws,
      cliConfig: { approvalMode: 'allowlist' },
      env: {
        RHO_SCRIPT: JSON.stringify({ before: [effect({ sh }), chunk('nothing changed')] }),
        RHO_CURSOR_CGROUP: 'off',
        ...timing,
      },
    });
  }

  it.skipIf(zombieLeader === undefined).each([
    ["in the agent's process group", ''],
    ['in a session of its own (setsid: found by the run mark its live thread carries)', ' setsid'],
  ])(
    'a zombie thread-group leader whose thread still runs (%s) is ended, not taken as gone: its write never comes',
    async (_, setsid) => {
      const ws = tempDir('rho-ws-');
      const aside = tempDir('rho-zl-run-');
      const late = join(ws, 'late.txt');
      const pidFile = join(aside, 'zl.pid');
      // The effect waits for its pid: until then it takes SIGTERM (the teardown's would end it too soon).
      const r = await readOnlyRun(
        ws,
        `${zombieLeader} ${late} 2 ${pidFile}${setsid} </dev/null >/dev/null 2>&1 & while [ ! -s ${pidFile} ]; do sleep 0.02; done`,
      );
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.events.at(-1)).toMatchObject({ type: 'result', exitCode: 0 });
      const pid = Number(readFileSync(pidFile, 'utf8'));
      // Its thread would write 2 s after it started, which was before the run ended.
      await sleep(2500);
      try {
        expect(existsSync(late), 'the thread wrote after the run').toBe(false);
        expect(existsSync(`/proc/${pid}/task`) && readdirSync(`/proc/${pid}/task`).length > 1).toBe(false);
      } finally {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone, as it should be
        }
      }
    },
  );

  it('a process that keeps starting its successor in a new session (setsid) and exiting is followed and ended: its write never comes', async () => {
    const ws = tempDir('rho-ws-');
    const aside = tempDir('rho-hop-');
    const late = join(ws, 'late.txt');
    const hop = join(aside, 'hop.sh');
    const stop = join(aside, 'stop');
    const ready = join(aside, 'ready');
    // Each generation starts the next in a new session and exits (no other process: a generation lives a
    // few ms), until the file `stop` is there; the last one waits 1 s and writes. It keeps the run mark, and
    // ignores SIGTERM.
    writeFileSync(
      hop,
      [
        "trap '' TERM",
        `: > ${ready}`,
        'if [ ! -e "$1" ]; then',
        '  setsid /bin/sh "$0" "$1" "$2" </dev/null >/dev/null 2>&1 &',
        '  exit 0',
        'fi',
        'sleep 1',
        'echo late > "$2"',
      ].join('\n'),
    );
    try {
      // The effect waits for the first generation to ignore SIGTERM (the teardown's would end it too soon);
      // the default kill grace: 2 s of hopping, a hundred surveys, each of which once could miss it.
      const r = await readOnlyRun(
        ws,
        `/bin/sh ${hop} ${stop} ${late} </dev/null >/dev/null 2>&1 & while [ ! -e ${ready} ]; do sleep 0.02; done`,
        {},
      );
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.events.at(-1)).toMatchObject({ type: 'result', exitCode: 0 });
    } finally {
      // A generation still hopping stops now, and writes 1 s later.
      writeFileSync(stop, '');
    }
    await sleep(1500);
    expect(existsSync(late), 'the last generation wrote after the run').toBe(false);
  });
});

describe('a schema check the deadline cannot end is ended by a signal, or by its own bounds', () => {
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const)(
    '%s during an exponential check: exit %i within a second, result last, nothing left',
    async (signal, exit) => {
      const dir = tempDir('rho-bounds-');
      const started = startCli(['run', ...SJ, ...exponential(dir).args, 'go'], {
        agent: await agentPath,
        cliConfig: { approvalMode: 'allowlist' },
        watchdogMs: 8000,
        env: { RHO_SCRIPT: JSON.stringify({ before: [chunk('42')], pidFile: join(dir, 'agent.pid') }) },
      });
      // The answer is in; the check starts once the turn's answer follows it.
      await waitForStdout(started.child, '"type":"message"');
      await new Promise((r) => setTimeout(r, 500));
      const sentAt = Date.now();
      started.child.kill(signal);
      const r = await finish(started, true);
      expect(Date.now() - sentAt).toBeLessThan(1000);
      expectResultLast(r, exit, 'cancelled', new RegExp(`cancelled by ${signal}`));
      await expectNothingLeft(dir, started.child.pid!);
    },
  );

  it('without --timeout, a check ends at its own time (schemaCheckMs): a mismatch saying it could not be checked, exit 6', async () => {
    const dir = tempDir('rho-bounds-');
    const started = startCli(['run', ...SJ, ...exponential(dir).args, 'go'], {
      agent: await agentPath,
      cliConfig: { approvalMode: 'allowlist' },
      watchdogMs: 8000,
      env: {
        RHO_SCRIPT: JSON.stringify({ before: [chunk('42')], pidFile: join(dir, 'agent.pid') }),
        // The check's time alone: the compile keeps its own 15 s (a worker's start and compile passed 1 s in a
        // loaded CI run when the two shared one time).
        ...testTiming({ schemaCheckMs: 1000 }),
      },
    });
    const r = await finish(started, true);
    const line = '(root) could not be checked within 1 s (the time one check is given): not a match';
    const seen = `exit ${String(r.exitCode)}; last events ${JSON.stringify(r.events.slice(-3))}; stderr ${r.stderr}`;
    expect(
      r.events.find((e) => e.type === 'validation'),
      seen,
    ).toEqual({
      type: 'validation',
      attempt: 1,
      valid: false,
      errors: [line],
    });
    expectResultLast(r, 6, 'schema_mismatch', /after 1 attempt: \(root\) could not be checked within 1 s/);
    await expectNothingLeft(dir, started.child.pid!);
  });
});

describe('the check is no silence of the agent', () => {
  it('--idle-timeout does not fire while the answer is checked: the check ends at its own time, exit 6', async () => {
    const dir = tempDir('rho-bounds-');
    const r = await runCli(['run', ...SJ, '--idle-timeout', '500ms', ...exponential(dir).args, 'go'], {
      agent: await agentPath,
      cliConfig: { approvalMode: 'allowlist' },
      watchdogMs: 8000,
      // A check three times the idle timeout (the compile has its own 15 s).
      env: { RHO_SCRIPT: JSON.stringify({ before: [chunk('42')] }), ...testTiming({ schemaCheckMs: 1500 }) },
    });
    expectResultLast(r, 6, 'schema_mismatch', /could not be checked within 1\.5 s/);
  });
});

describe('the operating system limits are named errors', () => {
  it('ulimit -n 20: exit 1, error os_limit naming EMFILE with a hint, result last, nothing left', async () => {
    const dir = tempDir('rho-bounds-');
    const wrapper = join(dir, 'rho-cursor');
    writeFileSync(wrapper, `#!/bin/sh\nulimit -n 20\nexec ${JSON.stringify(BIN)} "$@"\n`);
    chmodSync(wrapper, 0o755);
    const started = startCli(['run', ...SJ, 'go'], {
      bin: wrapper,
      agent: await agentPath,
      cliConfig: { approvalMode: 'allowlist' },
      env: { RHO_SCRIPT: JSON.stringify({ pidFile: join(dir, 'agent.pid') }) },
    });
    const r = await finish(started, true);
    expectResultLast(r, 1, 'os_limit', /too many open files in this process \(EMFILE\)/);
    expect(r.stderr).toMatch(
      /^rho-cursor: too many open files .*\(raise the open-file limit, e\.g\. 'ulimit -n 4096'\)$/,
    );
    await expectNothingLeft(dir, started.child.pid!);
  });
});

describe('formats are enforced', () => {
  it('"format": "email" rejects not-an-email: exit 6, and nothing of ajv on stderr', async () => {
    const dir = tempDir('rho-bounds-');
    const h = {
      make: (d: string) => {
        writeFileSync(
          join(d, 's.json'),
          JSON.stringify({ type: 'object', properties: { e: { type: 'string', format: 'email' } } }),
        );
        return { args: ['--output-schema', join(d, 's.json'), '--schema-retries', '0'] };
      },
      script: { before: [chunk('{"e": "not-an-email"}')] },
    };
    const { r } = await hostileRun(dir, h);
    expectResultLast(r, 6, 'schema_mismatch', /\/e must match format "email"/);
  });
});

describe('output files that are FIFOs: written without blocking the run', () => {
  // A reader of the FIFO (cat into a file), started before the run and ended by the run's close; resolves
  // once cat waits in its open for a writer (the kernel then counts it as the FIFO's reader).
  async function reader(fifo: string, into: string): Promise<{ exited: Promise<number | null> }> {
    mkfifo(fifo);
    const child = spawn('sh', ['-c', 'exec cat "$1" > "$2"', 'sh', fifo, into], { stdio: 'ignore' });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    await until(() => waitsForWriter(child.pid!));
    return { exited }; // in an object: an async function would wait for a promise it returns
  }

  it('-o and --wire-log into FIFOs with readers: they get the answer and the rows; exit 0', async () => {
    const dir = tempDir('rho-bounds-');
    const answerRead = await reader(join(dir, 'answer'), join(dir, 'answer.txt'));
    const wireRead = await reader(join(dir, 'wire'), join(dir, 'wire.jsonl'));
    const r = await runCli(['run', ...SJ, '-o', join(dir, 'answer'), '--wire-log', join(dir, 'wire'), 'go'], {
      agent: await agentPath,
      cliConfig: { approvalMode: 'allowlist' },
      env: { RHO_SCRIPT: JSON.stringify({ before: [chunk('the answer')] }) },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(await answerRead.exited).toBe(0);
    expect(await wireRead.exited).toBe(0);
    expect(readFileSync(join(dir, 'answer.txt'), 'utf8')).toBe('the answer');
    const rows = readFileSync(join(dir, 'wire.jsonl'), 'utf8').trim().split('\n');
    expect(rows.map((l) => (JSON.parse(l) as { dir: string }).dir).at(-1)).toBe('summary');
  });

  it('a reader that holds -o open and never reads: the run waits, as on stdout, until a signal ends it', async () => {
    const dir = tempDir('rho-bounds-');
    const fifo = join(dir, 'answer');
    mkfifo(fifo);
    // Opens the FIFO for reading (so the run's open succeeds) and never reads: 1 MiB does not fit in a pipe.
    const holder = spawn('sh', ['-c', 'exec 3<"$1"; exec sleep 30', 'sh', fifo], { stdio: 'ignore' });
    await until(() => waitsForWriter(holder.pid!));
    try {
      const sent = join(dir, 'sent.log');
      const started = startCli(['run', ...SJ, '-o', fifo, 'go'], {
        agent: await agentPath,
        cliConfig: { approvalMode: 'allowlist' },
        env: { RHO_SCRIPT: JSON.stringify({ hugeMiB: 1, sentLog: sent }) },
      });
      // The turn is over (the agent sent its answer), and the run is still waiting on the reader.
      await until(() => existsSync(sent) && readFileSync(sent, 'utf8').includes('stopReason'));
      await new Promise((r) => setTimeout(r, 500));
      expect(started.child.exitCode).toBeNull();
      started.child.kill('SIGTERM');
      const r = await finish(started, true);
      expectResultLast(
        r,
        1,
        'write_failed',
        /cannot write the last message to .*answer: the reader of .* did not take it/,
      );
    } finally {
      holder.kill('SIGKILL');
    }
  });
});

describe('--wire-log into a FIFO whose reader holds it open and never reads', () => {
  // Opens the FIFO for reading (so the run's open succeeds) and never reads; killed by the caller.
  async function holder(fifo: string) {
    mkfifo(fifo);
    const h = spawn('sh', ['-c', 'exec 3<"$1"; exec sleep 30', 'sh', fifo], { stdio: 'ignore' });
    await until(() => waitsForWriter(h.pid!));
    return h;
  }

  it('--timeout bounds its close after a turn that ended in time: exit 1, said on stderr, nothing left', async () => {
    // Found by review: the run waited on the reader for ever (alive at 12 s under --timeout 3s); SIGINT: exit 0.
    const dir = tempDir('rho-bounds-');
    const h = await holder(join(dir, 'wire'));
    try {
      const t0 = Date.now();
      const started = startCli(['run', ...SJ, '--timeout', '4s', '--wire-log', join(dir, 'wire'), 'go'], {
        agent: await agentPath,
        cliConfig: { approvalMode: 'allowlist' },
        watchdogMs: 12_000,
        env: {
          RHO_SCRIPT: JSON.stringify({ hugeMiB: 1, pidFile: join(dir, 'agent.pid') }),
          ...testTiming(SHORT_GRACE),
        },
      });
      const r = await finish(started, true);
      expect(r.exitCode, r.stderr).toBe(1);
      expect(Date.now() - t0).toBeLessThan(9000);
      expect(r.events.filter((e) => e.type === 'result')).toHaveLength(1);
      expect(r.events.at(-1)!.type).toBe('result');
      expect(r.stderr).toMatch(
        /^rho-cursor: the reader of the wire log .*wire did not take it within 300ms of the timeout: the rest is dropped$/m,
      );
      await expectNothingLeft(dir, started.child.pid!);
    } finally {
      h.kill('SIGKILL');
    }
  });

  it(`memory: past ${WIRE_LOG_MAX_PENDING / 1024 / 1024} MiB waiting for it the log stops (wire-log-failed), exit 1, the flood still read whole`, async () => {
    // Found by review: every row was held for the reader (529 MB for a 1e6-chunk flood, 102 MB without).
    const dir = tempDir('rho-bounds-');
    const h = await holder(join(dir, 'wire'));
    // 80 chunks of 1 MiB: five times the cap, each a wire-log row of its own (so the cap's saving, ~60 MB,
    // stands well clear of the noise of a loaded machine's RSS).
    writeFileSync(
      join(dir, 'script.json'),
      JSON.stringify({ lineFlood: { count: 80, line: chunk('x'.repeat(1024 * 1024) + ' %i') } }),
    );
    const m = measured(dir);
    try {
      const r = await runCli(
        ['run', '--output-format', 'stream-json', '--wire-log', join(dir, 'wire'), 'go'],
        {
          bin: m.bin,
          agent: await agentPath,
          cliConfig: { approvalMode: 'allowlist' },
          watchdogMs: 30_000,
          env: { RHO_SCRIPT: '@' + join(dir, 'script.json') },
        },
      );
      expect(r.exitCode, r.stderr).toBe(1);
      const lines = m.out().trimEnd().split('\n');
      expect(lines.filter((l) => l.startsWith('{"type":"message"'))).toHaveLength(80);
      const warned = lines.filter((l) => l.startsWith('{"type":"warning"') && l.includes('wire-log-failed'));
      expect(warned).toHaveLength(1);
      expect(JSON.parse(lines.at(-1)!)).toMatchObject({
        type: 'result',
        stopReason: 'end_turn',
        exitCode: 1,
        error: { code: 'write_failed', message: expect.stringMatching(/wire fell more than 16 MiB behind/) },
      });
      // Measured with 40 chunks: 105-112 MB with the cap, 154 MB before it (and the run then waited on the
      // reader for ever); with 80, see the README's bounds.
      expect(m.peakMB() ?? 0).toBeLessThan(160);
    } finally {
      h.kill('SIGKILL');
    }
  }, 40_000);
});

// Found by review: the answer kept for -o grew without bound (a 600 MiB answer: `internal`, 1.2 GB, -o lost).
describe('an answer past the 64 MiB kept for -o', () => {
  it('-o is not written (write_failed, said why), stdout has every chunk, an answer-cut warning', async () => {
    const dir = tempDir('rho-bounds-');
    writeFileSync(
      join(dir, 'script.json'),
      JSON.stringify({ lineFlood: { count: 65, line: chunk('x'.repeat(1024 * 1024 - 8) + ' %i') } }),
    );
    const answer = join(dir, 'answer.txt');
    writeFileSync(answer, 'before');
    const r = await runCli(['run', ...SJ, '-o', answer, 'go'], {
      agent: await agentPath,
      cliConfig: { approvalMode: 'allowlist' },
      watchdogMs: 30_000,
      env: { RHO_SCRIPT: '@' + join(dir, 'script.json') },
    });
    expect(r.exitCode, r.stderr.slice(-500)).toBe(1);
    expect(r.events.filter((e) => e.type === 'message')).toHaveLength(65);
    expect(r.events.filter((e) => e.type === 'warning' && e.code === 'answer-cut')).toHaveLength(1);
    expect(r.events.at(-1)).toMatchObject({
      type: 'result',
      stopReason: 'end_turn',
      error: {
        code: 'write_failed',
        message: expect.stringMatching(/answer\.txt: the answer passed 64 MiB/),
      },
    });
    expect(readFileSync(answer, 'utf8')).toBe('before');
  }, 40_000);
});

// Found by review: with --output-schema a value from the part kept was taken (exit 0) and -o written, though
// the answer's last block may be in the part lost, and the answer-cut warning said -o was not written.
describe('an answer past the 64 MiB kept, with --output-schema', () => {
  const VERDICT = { type: 'object', required: ['safe'], properties: { safe: { type: 'boolean' } } };
  const MiB = 1024 * 1024;
  // A draft value first, 65 MiB of prose, and the final value in the part past 64 MiB. The script is a file
  // (too large for the environment), removed after the run. Text mode under -q: stdout is the value alone and
  // the answer is written nowhere (two such answers are past what execa keeps of a stream).
  async function cut(args: string[], again?: object[]) {
    const dir = tempDir('rho-bounds-');
    try {
      const schema = join(dir, 'verdict.json');
      writeFileSync(schema, JSON.stringify(VERDICT));
      const answer = join(dir, 'answer.txt');
      writeFileSync(answer, 'before');
      const recvLog = join(dir, 'recv');
      const prose = chunk('x'.repeat(MiB) + '\n');
      const before = [
        chunk('Draft:\n```json\n{"safe": true}\n```\n'),
        ...Array.from({ length: 65 }, () => prose),
        chunk('Final:\n```json\n{"safe": false}\n```\n'),
      ];
      writeFileSync(
        join(dir, 'script.json'),
        JSON.stringify({ before, recvLog, ...(again ? { again } : {}) }),
      );
      const r = await runCli(['run', '-q', '--output-schema', schema, '-o', answer, ...args, 'go'], {
        agent: await agentPath,
        cliConfig: { approvalMode: 'allowlist' },
        watchdogMs: 60_000,
        env: { RHO_SCRIPT: '@' + join(dir, 'script.json') },
      });
      const prompts = readFileSync(recvLog, 'utf8')
        .split('\n')
        .filter((l) => l.includes('"session/prompt"')).length;
      return { r, prompts, written: readFileSync(answer, 'utf8') };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it('no value is taken from the part kept: a mismatch saying so, asked again, exit 6, -o not written', async () => {
    const { r, prompts, written } = await cut(['--schema-retries', '1']);
    expect(r.exitCode, r.stderr.slice(-500)).toBe(6);
    expect(prompts).toBe(2);
    expect(r.stdout).toBe('');
    const rows = r.stderr.split('\n');
    expect(rows).toContainEqual(
      expect.stringMatching(
        /^rho-cursor: the answer did not match .*verdict\.json after 2 attempts: the answer passed 64 MiB: no value is taken from it$/,
      ),
    );
    expect(
      rows.filter((l) =>
        /answer passed 64 MiB: -o is not written and --output-schema takes no value/.test(l),
      ),
    ).toHaveLength(1);
    expect(written).toBe('before');
  }, 60_000);

  it('a short answer when asked again is taken: exit 0, its value, -o written', async () => {
    const { r, prompts, written } = await cut([], [chunk('{"safe": false}')]);
    expect(r.exitCode, r.stderr.slice(-500)).toBe(0);
    expect(prompts).toBe(2);
    expect(r.stdout).toBe('{"safe":false}');
    expect(JSON.parse(written)).toEqual({ safe: false });
  }, 60_000);
});

describe('stream-json: tool events write at most TOOL_FACTOR x what was read + TOOL_SLACK', () => {
  it('a 1 MiB input and 60 bare updates: not 60 copies; the final state is written whole', async () => {
    const r = await runCli(['run', ...SJ, '--permissions', 'allow', 'go'], {
      agent: await agentPath,
      cliConfig: { approvalMode: 'allowlist' },
      watchdogMs: 30_000,
      env: { RHO_SCRIPT: JSON.stringify({ bigTool: { inputMiB: 1, flips: 60 } }) },
    });
    expect(r.exitCode, r.stderr.slice(-500)).toBe(0);
    // Read: ~1 MiB; each event of the tool is ~1 MiB. Within the budget, plus the state written at the end and
    // the one that crossed it. Before the bound every update wrote a copy (61 MiB).
    expect(r.stdout.length).toBeLessThan(TOOL_SLACK + (TOOL_FACTOR + 3) * 1.1 * 1024 * 1024);
    const big = r.events.filter((e) => e.type === 'tool' && e.toolCallId === 'big');
    expect(big.length).toBeGreaterThan(1);
    expect(big.length).toBeLessThan(30);
    expect(big.at(-1)).toMatchObject({ status: 'completed', output: { ok: true } });
    expect((big.at(-1)!.input as { text: string }).text).toHaveLength(1024 * 1024);
    expect(r.events.at(-1)).toMatchObject({ type: 'result', exitCode: 0 });
  });
});

describe('json keeps every tool for its output, up to MAX_HELD_TOOLS', () => {
  it('an agent that makes more tool calls than that: the turn is cancelled as protocol, exit 1, one json object', async () => {
    const r = await runCli(['run', '--output-format', 'json', '--permissions', 'allow', 'go'], {
      agent: await agentPath,
      cliConfig: { approvalMode: 'allowlist' },
      watchdogMs: 30_000,
      env: { RHO_SCRIPT: JSON.stringify({ toolFlood: MAX_HELD_TOOLS + 2000 }) },
    });
    expect(r.exitCode, r.stderr.slice(-500)).toBe(1);
    const out = JSON.parse(r.stdout) as { error: { code: string; message: string }; tools: unknown[] };
    expect(out.error.code).toBe('protocol');
    expect(out.error.message).toMatch(/more than 50000 tool calls, each kept for the json output/);
    // What was held is printed; the calls read after the stop are not kept.
    expect(out.tools.length).toBeGreaterThan(MAX_HELD_TOOLS);
    expect(out.tools.length).toBeLessThan(MAX_HELD_TOOLS + 2000);
  });
});

describe(`json keeps the first ${MAX_KEPT} permissions, questions, plans and warnings of each code`, () => {
  // A json run against the agent script in dir/script.json, measured; it must end 0 with valid json.
  async function jsonRun(dir: string) {
    const m = measured(dir);
    const r = await runCli(['run', '--output-format', 'json', 'go'], {
      bin: m.bin,
      agent: await agentPath,
      cliConfig: { approvalMode: 'allowlist' },
      watchdogMs: 30_000,
      env: { RHO_SCRIPT: '@' + join(dir, 'script.json') },
    });
    expect(r.exitCode, r.stderr.slice(-500)).toBe(0);
    return { m, out: JSON.parse(m.out()) as JsonOutputType };
  }

  it('40,000 non-JSON lines: the first kept, each quoted line cut past 4096 characters, the rest counted; memory flat', async () => {
    // Found by review: every warning was kept with its whole line (701 MB for 800k lines; 82 MB in stream-json).
    const dir = tempDir('rho-bounds-');
    writeFileSync(
      join(dir, 'script.json'),
      JSON.stringify({
        before: ['z'.repeat(10_000)],
        lineFlood: { count: 40_000, line: 'y'.repeat(400) + '%i' },
      }),
    );
    const { m, out } = await jsonRun(dir);
    expect(() => JsonOutput.parse(out)).not.toThrow();
    const nonJson = out.warnings.filter((w) => w.code === 'agent-non-json');
    expect(nonJson).toHaveLength(MAX_KEPT);
    expect(out.omitted).toEqual({ permissions: 0, questions: 0, plans: 0, warnings: 40_001 - MAX_KEPT });
    // The 10,000-character line: its start and end, the middle said as cut.
    const more = 10_000 - (LINE_HEAD - 1) - (LINE_TAIL - 1);
    expect(nonJson[0]!.line).toBe(
      `${'z'.repeat(LINE_HEAD - 1)}… (${more} more characters) …${'z'.repeat(LINE_TAIL - 1)}`,
    );
    expect(nonJson[1]!.line).toBe('y'.repeat(400) + '0');
    // `rho-cursor schema --output-format json` describes the count.
    expect((jsonSchemas().json as { properties: Record<string, unknown> }).properties.omitted).toBeDefined();
    // Measured: 117 MB with the bound, 271 MB before it.
    expect(m.peakMB() ?? 0).toBeLessThan(180);
  }, 40_000);

  it(`${MAX_KEPT + 2000} permission requests: the first ${MAX_KEPT} kept, the rest counted`, async () => {
    // Found by review: 431 MB for 200k permission requests of one tool call.
    const dir = tempDir('rho-bounds-');
    const request = permissionRequest(0, 'tool_1', 'execute', 'rm');
    writeFileSync(
      join(dir, 'script.json'),
      JSON.stringify({ lineFlood: { count: MAX_KEPT + 2000, line: { ...request, id: 'p%i' } } }),
    );
    const { out } = await jsonRun(dir);
    expect(out.permissions).toHaveLength(MAX_KEPT);
    expect(out.omitted).toEqual({ permissions: 2000, questions: 0, plans: 0, warnings: 0 });
  }, 40_000);
});

describe.skipIf(!hasPty)('while a question waits at the terminal', () => {
  /** 60,000 chunks are ~9 MB on the wire: more than may be held, so reading must stop before their end. */
  const FLOOD = 60_000;
  const QUESTION = { wait: '[a] allow once  [r] reject once > ' };

  // The fixture on a person's terminal (CI unset: a runner's CI=true is nobody's terminal); its flood is
  // logged to flood.log in a directory of the test's own, which is also the Cursor config dir.
  async function atTerminal(
    args: string[],
    steps: (floodLog: string) => PtyStep[],
    script: (dir: string) => Record<string, unknown>,
    env: Record<string, string> = {},
  ) {
    const dir = tempDir();
    const floodLog = join(dir, 'flood.log');
    const r = await onPty([BIN, 'run', ...args, '--agent', await agentPath, 'go'], steps(floodLog), {
      env: {
        RHO_SCRIPT: JSON.stringify({ flood: FLOOD, floodLog, ...script(dir) }),
        CURSOR_CONFIG_DIR: dir,
        TERM: 'xterm',
        NO_COLOR: '1',
        CI: null,
        ...env,
      },
    });
    expect(r.failed, r.screen.slice(-2000)).toBeNull();
    return { ...r, log: readFileSync(floodLog, 'utf8') };
  }

  it('reads at most MAX_HELD_BYTES of what the agent sends meanwhile, then the pipe holds the agent; all of it is drawn after the answer', async () => {
    const r = await atTerminal(
      [],
      (floodLog) => [
        QUESTION,
        // The agent's write waits (rho-cursor stopped reading) while the question is still open.
        { file: floodLog, contains: 'blocked after', timeout: 8 },
        { send: 'a\r' },
        { wait: 'stopReason' },
      ],
      () => ({ before: [PERMISSION] }),
    );
    expect(r.code).toBe(0);
    const blockedAt = Number(/blocked after (\d+) bytes/.exec(r.log)![1]);
    // What was read: the held bytes, the batch that crossed them (~300 KB) and the pipe's buffer.
    expect(blockedAt).toBeLessThan(MAX_HELD_BYTES + 1024 * 1024);
    expect(r.log).toMatch(/done \d+ bytes\n$/);
    // Nothing the agent sent is lost: every chunk is drawn after the answer, in order.
    const text = r.screen.slice(r.screen.indexOf('reject once > '));
    expect(text).toContain(`0 1 2 3 `);
    expect(text).toContain(`${FLOOD - 2} ${FLOOD - 1} `);
  });

  it('a question left open by a try that failed is closed before the retry, which reads on past the bound', async () => {
    // Found by review: the next try's reader stopped for good after 4 MiB, the old question unanswerable.
    const r = await atTerminal(
      ['--retries', '1'],
      () => [QUESTION, { wait: 'stopReason', timeout: 10 }],
      (dir) => ({ counterFile: join(dir, 'tries'), failTimes: 1, failWith: 'askThenExit' }),
      { RHO_CURSOR_TEST_TIMING: JSON.stringify({ retryBaseMs: 50 }) },
    );
    expect(r.code).toBe(0);
    expect(r.screen).toMatch(/reject once > \r\n\(the turn ended before an answer: not answered\)\r\n/);
    expect(r.screen).toContain(`${FLOOD - 2} ${FLOOD - 1} `);
    expect(r.log).toMatch(/done \d+ bytes\n$/);
  });

  it('--idle-timeout waits while the question does, reading paused or not: the answer after 3 s, exit 0', async () => {
    // 2 s: the agent's start-up on a loaded machine stays well inside it; the question outlasts it.
    const r = await atTerminal(
      ['--idle-timeout', '2s'],
      (floodLog) => [
        QUESTION,
        { file: floodLog, contains: 'blocked after', timeout: 8 },
        { pause: 3000 },
        { send: 'a\r' },
        { wait: 'stopReason' },
      ],
      () => ({ before: [PERMISSION] }),
    );
    expect(r.code).toBe(0);
    expect(r.screen).not.toContain('idle-timeout');
    expect(r.screen).toContain(`${FLOOD - 2} ${FLOOD - 1} `);
  });

  it('--timeout still ends the question and the run while reading waits for it: exit 124', async () => {
    const r = await atTerminal(
      ['--timeout', '3s'],
      (floodLog) => [
        QUESTION,
        { file: floodLog, contains: 'blocked after', timeout: 8 },
        { wait: 'timeout' },
      ],
      () => ({ before: [PERMISSION] }),
    );
    expect(r.code).toBe(124);
    // The question is closed, and what was held (all of it) is drawn after it.
    expect(r.screen).toMatch(/reject once > \r\n\(cancelled\)\r\n0 1 2 3 /);
    expect(r.screen).toContain(`${FLOOD - 2} ${FLOOD - 1} `);
  });
});

// Is the process waiting in a FIFO's open for a writer? (The kernel then counts it as the FIFO's reader.)
function waitsForWriter(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/wchan`, 'utf8') === 'wait_for_partner';
  } catch {
    return false;
  }
}

// Polls until the condition holds (a readiness check, never a fixed wait for the outcome itself).
async function until(ok: () => boolean): Promise<void> {
  while (!ok()) await new Promise((r) => setTimeout(r, 25));
}
