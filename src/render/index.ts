// Picks the renderer for an output format, and decides colour; chalk is loaded only for text.
import type { ColorMode, Format } from '../options.js';
import { JsonRenderer } from './json.js';
import { StreamJsonRenderer } from './stream-json.js';
import type { Renderer, Writer } from './writer.js';
import { cutEnd } from '../sanitize/cut.js';
import { oneLine } from '../sanitize/terminal.js';

/** How text mode looks: colour on stderr, and whether only the answer, warnings and errors show. */
export interface Style {
  color: ColorMode;
  quiet: boolean;
}

const DEFAULT_STYLE: Style = { color: 'auto', quiet: false };

// Colour on stderr: --color wins; under auto, FORCE_COLOR, then NO_COLOR (https://no-color.org), then a terminal.
export function colourEnabled(mode: ColorMode, env: NodeJS.ProcessEnv, isTTY: boolean): boolean {
  if (mode !== 'auto') return mode === 'always';
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== '') return force !== '0' && force !== 'false';
  if (env.NO_COLOR) return false;
  return isTTY && env.TERM !== 'dumb';
}

export async function makeRenderer(
  format: Format,
  out: Writer,
  err: Writer,
  env: NodeJS.ProcessEnv,
  style: Style = DEFAULT_STYLE,
  readBytes?: () => number,
): Promise<Renderer> {
  if (format === 'stream-json') return new StreamJsonRenderer(out, readBytes);
  if (format === 'json') return new JsonRenderer(out);
  const [{ Chalk }, { TextRenderer }] = await Promise.all([import('chalk'), import('./text.js')]);
  const level = colourEnabled(style.color, env, err.isTTY) ? 1 : 0;
  return new TextRenderer(out, err, new Chalk({ level }), { quiet: style.quiet });
}

export interface Spinner {
  text(t: string): void;
  stop(): void;
  /** Drawn and redrawn in place (ora's own test: a terminal, and no CI variable); else it printed one line. */
  live: boolean;
}

const NO_SPINNER: Spinner = { text: () => {}, stop: () => {}, live: false };

// The spinner's text may name what the agent chose (`loading session <id>`): one visible line, short enough
// for one row.
const shown = (text: string): string => cutEnd(oneLine(text), 100);

// An ora spinner on a terminal's stderr during the handshake; none under --quiet, uncoloured without colour.
export async function startSpinner(
  stream: NodeJS.WritableStream,
  text: string,
  env: NodeJS.ProcessEnv = process.env,
  style: Style = DEFAULT_STYLE,
  /** A person types at this terminal: keys typed meanwhile are not echoed into the spinner (Ctrl-C still works). */
  discardInput = false,
): Promise<Spinner> {
  if (style.quiet || env.TERM === 'dumb') return NO_SPINNER;
  const { default: ora } = await import('ora');
  const color = colourEnabled(style.color, env, true) ? 'cyan' : false;
  const stopDiscarding = discardInput ? await discarding(stream) : () => {};
  const s = ora({ text: shown(text), stream, color, discardStdin: false, hideCursor: false }).start();
  return {
    live: s.isEnabled,
    text: (t) => {
      s.text = shown(t);
    },
    stop: () => {
      s.stop();
      stopDiscarding();
    },
  };
}

// The keys typed at the process's terminal, dropped while the spinner runs (render/discard-keys.ts).
async function discarding(stream: NodeJS.WritableStream): Promise<() => void> {
  const [{ processTerminal }, { discardKeys }] = await Promise.all([
    import('../policy/ask.js'),
    import('./discard-keys.js'),
  ]);
  return discardKeys(processTerminal(process.stdin, stream), process.stdin.isRaw);
}
