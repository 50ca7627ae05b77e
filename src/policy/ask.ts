// The only terminal I/O of the policy: ask the person at the terminal to pick one of a few choices.
import { createInterface } from 'node:readline';

export interface Choice {
  key: string;
  label: string;
}

export interface Asker {
  /** Shows the lines and the choices; resolves with the chosen key, or undefined when aborted. */
  choose(lines: string[], choices: Choice[], signal: AbortSignal): Promise<string | undefined>;
}

// Asks on the given streams one question at a time; a blank or unknown answer asks again.
export function terminalAsker(input: NodeJS.ReadableStream, output: NodeJS.WritableStream): Asker {
  let queue: Promise<unknown> = Promise.resolve();
  return {
    choose(lines, choices, signal) {
      const next = queue.then(() => askOnce(input, output, lines, choices, signal));
      queue = next.catch(() => undefined);
      return next;
    },
  };
}

function askOnce(
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
  lines: string[],
  choices: Choice[],
  signal: AbortSignal,
): Promise<string | undefined> {
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const rl = createInterface({ input, output, terminal: true });
    const menu = choices.map((c) => `[${c.key}] ${c.label}`).join('  ');
    output.write('\n' + lines.join('\n') + '\n');
    const done = (value: string | undefined): void => {
      signal.removeEventListener('abort', onAbort);
      rl.close();
      resolve(value);
    };
    const onAbort = (): void => {
      output.write('\n(cancelled)\n');
      done(undefined);
    };
    signal.addEventListener('abort', onAbort);
    // readline swallows Ctrl-C while it owns the terminal: hand it back as the signal the run handles.
    rl.on('SIGINT', () => process.kill(process.pid, 'SIGINT'));
    const prompt = (): void => {
      rl.question(menu + ' > ', (answer) => {
        const key = answer.trim().toLowerCase();
        const hit = choices.find((c) => c.key.toLowerCase() === key);
        if (hit) done(hit.key);
        else prompt();
      });
    };
    prompt();
  });
}
