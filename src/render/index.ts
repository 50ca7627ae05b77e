// Picks the renderer for an output format; chalk is loaded only for text.
import type { Format } from '../options.js';
import { JsonRenderer } from './json.js';
import { StreamJsonRenderer } from './stream-json.js';
import type { Renderer, Writer } from './writer.js';

export async function makeRenderer(
  format: Format,
  out: Writer,
  err: Writer,
  env: NodeJS.ProcessEnv,
): Promise<Renderer> {
  if (format === 'stream-json') return new StreamJsonRenderer(out);
  if (format === 'json') return new JsonRenderer(out);
  const [{ Chalk }, { TextRenderer }] = await Promise.all([import('chalk'), import('./text.js')]);
  // Colour only on a terminal, and never when NO_COLOR is set (https://no-color.org).
  const colour = err.isTTY && !env.NO_COLOR && env.TERM !== 'dumb';
  return new TextRenderer(out, err, new Chalk({ level: colour ? 1 : 0 }));
}

export interface Spinner {
  text(t: string): void;
  stop(): void;
}

// An ora spinner on a terminal's stderr during the handshake.
export async function startSpinner(stream: NodeJS.WritableStream, text: string): Promise<Spinner> {
  const { default: ora } = await import('ora');
  const s = ora({ text, stream, discardStdin: false, hideCursor: false }).start();
  return {
    text: (t) => {
      s.text = t;
    },
    stop: () => s.stop(),
  };
}
