// The only terminal I/O of the policy: ask the person at the terminal, in raw mode, one question at a time.
import { StringDecoder } from 'node:string_decoder';
import { EMPTY_EDITOR, feedKeys } from './line-editor.js';
import {
  closingLine,
  hint,
  matchAnswer,
  menu,
  wrapRows,
  type Choice,
  type TerminalQuestion,
} from './prompts.js';

export type { Choice, TerminalQuestion } from './prompts.js';

export interface Asker {
  /** Shows the question; resolves with the choice, or undefined when aborted (or Ctrl-D with nothing to give). */
  choose(q: TerminalQuestion, signal: AbortSignal): Promise<Choice | undefined>;
}

/** The terminal as the asker needs it; the process's own in production, a fake in tests. */
export interface Terminal {
  input: {
    setRawMode?(raw: boolean): unknown;
    on(event: 'data' | 'end', fn: (d?: Buffer | string) => void): unknown;
    off(event: 'data' | 'end', fn: (d?: Buffer | string) => void): unknown;
    resume(): unknown;
    pause(): unknown;
  };
  output: { write(text: string): unknown };
  /** The terminal's width in columns, when it has one: the question's lines are cut into rows to fit. */
  columns?(): number | undefined;
  /** Sends the signal the terminal would have sent for Ctrl-C or Ctrl-\ (raw mode turns that off). */
  signal(sig: 'SIGINT' | 'SIGQUIT'): void;
  /** Stops the process as Ctrl-Z would. */
  suspend(): void;
  /** Subscribes to SIGCONT (after `fg`); returns the unsubscribe. */
  onContinue(fn: () => void): () => void;
  /** Subscribes to the process's exit; returns the unsubscribe. */
  onExit(fn: () => void): () => void;
  /** Resolves once input already waiting at the terminal has been delivered (and so discarded). */
  pendingDelivered(): Promise<void>;
}

// The process's own terminal: stdin in raw mode, the question on stderr, signals to ourselves.
export function processTerminal(input: NodeJS.ReadStream, output: NodeJS.WritableStream): Terminal {
  return {
    input,
    output,
    columns: () => (output as NodeJS.WriteStream).columns,
    signal: (sig) => process.kill(process.pid, sig),
    // The whole process group, as the terminal's own Ctrl-Z would (a wrapping npx stops too).
    suspend: () => process.kill(0, 'SIGTSTP'),
    onContinue: (fn) => {
      process.on('SIGCONT', fn);
      return () => process.removeListener('SIGCONT', fn);
    },
    onExit: (fn) => {
      process.on('exit', fn);
      return () => process.removeListener('exit', fn);
    },
    // Bytes waiting in the kernel are read in the next poll phase: the second check phase comes after it.
    pendingDelivered: () => new Promise((resolve) => setImmediate(() => setImmediate(resolve))),
  };
}

// Asks one question at a time on the terminal; each waits for the one before.
export function terminalAsker(t: Terminal): Asker {
  let queue: Promise<unknown> = Promise.resolve();
  return {
    choose(q, signal) {
      const next = queue.then(() => askOnce(t, q, signal));
      queue = next.catch(() => undefined);
      return next;
    },
  };
}

// One question: input typed before it showed is discarded; the terminal's mode is restored however it ends.
function askOnce(t: Terminal, q: TerminalQuestion, signal: AbortSignal): Promise<Choice | undefined> {
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    // Stryker disable next-line StringLiteral: StringDecoder reads '' as utf8, its default
    const decoder = new StringDecoder('utf8');
    let state = EMPTY_EDITOR;
    let accepting = false;
    let closed = false;
    // A stop of ours (Ctrl-Z) is owed a redraw when it ends.
    let stopped = false;
    const raw = (on: boolean): void => {
      try {
        // Stryker disable next-line OptionalChaining: a missing setRawMode throws into the catch, to the same end
        t.input.setRawMode?.(on);
      } catch {
        // a terminal that went away: nothing to restore
      }
    };
    // Shows the question, then ignores what arrives until the input waiting now has been delivered, and
    // only then draws the menu: what was typed before the prompt appeared never answers it.
    // Each line of the question in the rows the terminal shows (policy/prompts.ts: wrapRows).
    const rows = (line: string): string => wrapRows(line, t.columns?.()).join('\n');
    const show = (): void => {
      accepting = false;
      t.output.write(q.lines.map(rows).join('\n') + '\n');
      void t.pendingDelivered().then(() => {
        if (closed) return;
        accepting = true;
        t.output.write(rows(menu(q)) + state.line);
      });
    };
    const finish = (choice: Choice | undefined, note: string): void => {
      if (closed) return;
      closed = true;
      t.input.off('data', onData);
      t.input.off('end', onEnd);
      signal.removeEventListener('abort', onAbort);
      offContinue();
      offExit();
      raw(false);
      t.input.pause();
      t.output.write(note);
      resolve(choice);
    };
    const endOfInput = (): void => finish(q.eof, `^D → ${q.eof?.label ?? 'cancelled'}\n`);
    const onData = (d?: Buffer | string): void => {
      // The decoder passes a string through as it is.
      const text = d === undefined ? '' : decoder.write(d);
      if (!accepting || closed) return;
      const r = feedKeys(state, text);
      state = r.state;
      for (const a of r.actions) {
        if (a.type === 'echo') t.output.write(a.text);
        else if (a.type === 'submit') {
          const choice = matchAnswer(q, a.line);
          if (choice) return finish(choice, '\n');
          t.output.write('\n' + rows(hint(q, a.line)) + '\n' + rows(menu(q)));
        } else if (a.type === 'eof') return endOfInput();
        else if (a.type === 'signal') {
          t.output.write(a.signal === 'SIGINT' ? '^C' : '^\\');
          t.signal(a.signal);
        } else {
          // Ctrl-Z: the terminal's own mode while stopped; raw again, and the question redrawn, after `fg`.
          raw(false);
          t.output.write('^Z\n');
          accepting = false;
          stopped = true;
          t.suspend();
        }
      }
    };
    // In raw mode Ctrl-D is a key (above): the input ends only when the terminal went away (hung up), and
    // nobody answered. Nothing is written to a terminal that is gone (found by review: a hangup was the
    // person's reject once).
    const onEnd = (): void => finish(undefined, '');
    const onAbort = (): void => finish(undefined, closingLine(signal.reason));
    // The question is redrawn once per stop: `bg` (or `kill -CONT`) continues us in the background, where
    // setting the mode stops us again (SIGTTOU) until `fg` continues us once more, and that second SIGCONT
    // ends no stop of ours (found by review: the question was drawn for each). Raw mode is set again on any
    // continue: whoever stopped us, the shell may have taken the terminal back to its own mode.
    const offContinue = t.onContinue(() => {
      if (closed) return;
      raw(true);
      if (!stopped) return;
      stopped = false;
      show();
    });
    const offExit = t.onExit(() => raw(false));
    signal.addEventListener('abort', onAbort);
    t.input.on('data', onData);
    t.input.on('end', onEnd);
    raw(true);
    t.input.resume();
    show();
  });
}
