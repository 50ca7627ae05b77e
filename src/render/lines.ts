// Pure: agent text on one stderr status line, bounded. Cut before it is made visible, so the work is only the
// part shown, however long the agent's text (a label of megabytes of newlines is not rewritten whole to be
// thrown away); the cut redacts first (sanitize/cut.ts).
import { cutMiddle } from '../sanitize/cut.js';
import { oneLine } from '../sanitize/terminal.js';

/** The longest agent-sent label (a title, a kind, a name, a todo) a status line shows whole; past it, its
 * first 170 characters and its last 60. stream-json and json carry every field whole; the answer, thoughts and
 * a plan's text are never cut. */
export const LABEL_MAX = 240;
/** The longest warning, error or reason line shown whole (rho-cursor's own sentences are shorter; the agent's
 * text inside one is what makes it longer); past it, its first 700 characters and its last 250. */
export const MESSAGE_MAX = 1000;

// Text for one status line: whole up to max characters, else its first head and last tail ones.
const clipped = (text: string, max: number, head: number, tail: number): string =>
  oneLine(text.length <= max ? text : cutMiddle(text, head + 1, tail + 1));

/** An agent-sent label on a status line: one line, made visible, at most about LABEL_MAX characters. */
export const label = (text: string): string => clipped(text, LABEL_MAX, 170, 60);
/** A warning, error or reason line (rho-cursor's words, maybe quoting the agent's): at most about MESSAGE_MAX. */
export const message = (text: string): string => clipped(text, MESSAGE_MAX, 700, 250);
