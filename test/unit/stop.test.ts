import { describe, expect, it } from 'vitest';
import { constants } from 'node:os';
import { answeredSignals, fmtMs, isImmediate, isSignal, stopError, type StopCause } from '../../src/stop.js';

describe('stopError', () => {
  it.each([
    ['SIGINT', 130, 'cancelled'],
    ['SIGTERM', 143, 'cancelled'],
    ['timeout', 124, 'run_timeout'],
    ['epipe', 141, 'stdout_closed'],
  ] as const)('%s exits %i', (cause, exitCode, code) => {
    expect(stopError(cause, 1500)).toMatchObject({ exitCode, code });
  });

  it.each([
    ['SIGINT', 130, 'cancelled by SIGINT'],
    ['SIGTERM', 143, 'cancelled by SIGTERM'],
    ['SIGHUP', 129, 'cancelled by SIGHUP'],
    ['SIGQUIT', 131, 'ended by SIGQUIT'],
    ['SIGUSR2', 140, 'ended by SIGUSR2'],
    ['SIGALRM', 142, 'ended by SIGALRM'],
    ['SIGXCPU', 152, 'ended by SIGXCPU'],
    ['SIGABRT', 134, 'ended by SIGABRT'],
    ['SIGSTKFLT', 144, 'ended by SIGSTKFLT'],
    ['SIGVTALRM', 154, 'ended by SIGVTALRM'],
    ['SIGPROF', 155, 'ended by SIGPROF'],
    ['SIGIO', 157, 'ended by SIGIO'],
    ['SIGPWR', 158, 'ended by SIGPWR'],
    ['SIGSYS', 159, 'ended by SIGSYS'],
  ] as const)('%s: exit %i, %s', (cause, exitCode, message) => {
    expect(stopError(cause)).toMatchObject({ code: 'cancelled', exitCode, message });
  });

  it.each([
    ['idle', { idleTimeoutMs: 2000 }, 'idle_timeout', 'the agent sent nothing for 2s (--idle-timeout)'],
    ['epipe', {}, 'stdout_closed', 'stdout was closed'],
    ['write_failed', { writeFailure: 'ENOSPC: no space left' }, 'write_failed', 'ENOSPC: no space left'],
    ['write_failed', {}, 'write_failed', 'cannot write the output'],
  ] as const)('%s %j is %s: %s', (cause, facts, code, message) => {
    expect(stopError(cause, facts)).toMatchObject({ code, message });
  });

  it('tells which signals end at once and which causes are signals', () => {
    const causes: StopCause[] = [
      'SIGINT',
      'SIGTERM',
      'SIGHUP',
      'SIGQUIT',
      'SIGUSR2',
      'SIGALRM',
      'SIGXCPU',
      'timeout',
    ];
    expect(causes.filter(isImmediate)).toEqual(['SIGQUIT', 'SIGUSR2', 'SIGALRM', 'SIGXCPU']);
    expect(causes.filter(isSignal)).toEqual(causes.slice(0, 7));
  });

  it('the signals that cancel are the three a person or a supervisor sends to ask for an end', () => {
    expect(answeredSignals([]).filter((s) => !isImmediate(s))).toEqual(['SIGINT', 'SIGTERM', 'SIGHUP']);
  });

  // Linux's signals whose default action ends the process (signal(7): Term and Core), by Node's names.
  const ENDS_BY_DEFAULT = Object.keys(constants.signals).filter(
    (s) =>
      !['SIGCHLD', 'SIGCONT', 'SIGSTOP', 'SIGTSTP', 'SIGTTIN', 'SIGTTOU', 'SIGURG', 'SIGWINCH'].includes(s),
  );
  // What is not answered, and why: SIGKILL cannot be caught; a fault raises SIGSEGV, SIGBUS, SIGFPE, SIGILL
  // and SIGTRAP (a trap instruction, V8's own crash included) where a listener that returns re-runs the
  // faulting instruction; SIGUSR1 and SIGXFSZ are taken and ignored, SIGPIPE Node ignores; SIGIOT and
  // SIGPOLL are other names of SIGABRT and SIGIO.
  const NOT_ANSWERED = [
    'SIGKILL',
    'SIGSEGV',
    'SIGBUS',
    'SIGFPE',
    'SIGILL',
    'SIGTRAP',
    'SIGUSR1',
    'SIGXFSZ',
    'SIGPIPE',
    'SIGIOT',
    'SIGPOLL',
  ];

  it('every other signal whose default action ends the process ends the run at once', () => {
    const fatal = ENDS_BY_DEFAULT.filter(
      (s) => !NOT_ANSWERED.includes(s) && !['SIGINT', 'SIGTERM', 'SIGHUP'].includes(s),
    );
    expect([...answeredSignals([])].sort()).toEqual([...fatal, 'SIGINT', 'SIGTERM', 'SIGHUP'].sort());
    expect(fatal).toEqual(
      expect.arrayContaining(['SIGPWR', 'SIGVTALRM', 'SIGPROF', 'SIGIO', 'SIGSYS', 'SIGSTKFLT']),
    );
    for (const s of fatal) expect(isImmediate(s as StopCause), s).toBe(true);
  });

  it('answers no signal that does not end a process by default, nor one it must leave alone', () => {
    for (const s of [...NOT_ANSWERED, 'SIGWINCH', 'SIGCHLD', 'SIGCONT', 'SIGURG', 'SIGSTOP', 'SIGTSTP'])
      expect(answeredSignals([]), s).not.toContain(s);
  });

  it.each([
    [['--cpu-prof'], false],
    [['--cpu-prof-dir=/tmp/p', '--cpu-prof'], false],
    [['--prof'], false],
    [['--cpu_prof'], false],
    // Found by review: V8's --prof-cpp ("like --prof") samples with SIGPROF too.
    [['--prof-cpp'], false],
    [['--prof_cpp'], false],
    [['--inspect'], true],
    [['--cpu-prof-interval=100'], true],
    [['--heap-prof'], true],
    [[], true],
  ])("Node's flags %j: SIGPROF answered: %s", (flags, answered) => {
    expect(answeredSignals(flags).includes('SIGPROF')).toBe(answered);
    expect(answeredSignals(flags)).toContain('SIGPWR');
  });

  it('names the timeout as the user wrote it', () => {
    expect(stopError('timeout', 1500).message).toBe('the run exceeded --timeout 1500ms');
    expect(stopError('timeout', 120_000).message).toBe('the run exceeded --timeout 120s');
  });

  it.each([
    [0, 'the turn started more than 0 tool calls (--max-tool-calls)'],
    [1, 'the turn started more than 1 tool call (--max-tool-calls)'],
    [2, 'the turn started more than 2 tool calls (--max-tool-calls)'],
  ])('--max-tool-calls %i is named in a sentence', (maxToolCalls, message) => {
    expect(stopError('max_tool_calls', { maxToolCalls })).toMatchObject({ code: 'max_tool_calls', message });
  });

  it.each([
    [500, '500ms'],
    [10_000, '10s'],
  ])('fmtMs(%i) is %s', (ms, text) => expect(fmtMs(ms)).toBe(text));
});
