// The signals a run answers, subscribed for as long as the run lives (teardown included), so a signal
// at any moment still ends the agent rather than rho-cursor alone.
import { answeredSignals, type StopSignal } from '../stop.js';

// Subscribes handler to every signal a run handles; SIGXFSZ is ignored so a too-large file is a write error.
export function onStopSignals(handler: (signal: StopSignal) => void): () => void {
  const nodeOptions = (process.env.NODE_OPTIONS ?? '').split(/\s+/);
  const signals = answeredSignals([...process.execArgv, ...nodeOptions]);
  const h = (s: NodeJS.Signals): void => handler(s as StopSignal);
  const ignore = (): void => {};
  for (const s of signals) process.on(s, h);
  process.on('SIGXFSZ', ignore);
  return () => {
    for (const s of signals) process.removeListener(s, h);
    process.removeListener('SIGXFSZ', ignore);
  };
}

// Runs fn synchronously when the process exits (process.exit included); returns the unsubscribe.
export function onProcessExit(fn: () => void): () => void {
  process.on('exit', fn);
  return () => process.removeListener('exit', fn);
}

// SIGUSR1 would open Node's inspector on 127.0.0.1:9229, unauthenticated: any process of the user, an agent's
// shell command included (`kill -USR1 $PPID`), could then run code in rho-cursor and decide what it reports
// (exit 0 for a breach). A listener of our own takes the signal from Node (Node 20 has no
// --disable-sigusr1), so it does nothing. For the life of the process: every command, not only a run.
export function ignoreDebuggerSignal(): void {
  process.on('SIGUSR1', () => {});
}
