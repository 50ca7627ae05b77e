// While the spinner runs, what a person types at the terminal is read and dropped, not echoed into the
// spinner's line. Raw mode turns the terminal's own Ctrl-C, Ctrl-\ and Ctrl-Z off, so they are sent as it
// would have sent them. ora's discarder (stdin-discarder) was used before: it starts the stream reading only
// when it was paused, and a stdin never read is not paused but idle, so it never read a key and Ctrl-C did
// nothing for the whole handshake (found by review).
import type { Terminal } from '../policy/ask.js';

const CTRL_C = 0x03;
const CTRL_BACKSLASH = 0x1c;
const CTRL_Z = 0x1a;

// Starts dropping keys; returns the stop, which gives the terminal its mode back and stops reading.
export function discardKeys(t: Terminal, wasRaw: boolean): () => void {
  const raw = (on: boolean): void => {
    try {
      t.input.setRawMode?.(on);
    } catch {
      // a terminal that went away: nothing to set
    }
  };
  // A control byte is the key itself wherever it comes: no escape sequence or UTF-8 character holds one.
  const onData = (d?: Buffer | string): void => {
    const bytes = typeof d === 'string' ? Buffer.from(d) : d;
    if (bytes === undefined) return;
    if (bytes.includes(CTRL_C)) t.signal('SIGINT');
    else if (bytes.includes(CTRL_BACKSLASH)) t.signal('SIGQUIT');
    else if (bytes.includes(CTRL_Z)) {
      // The terminal's own mode while stopped; raw again after `fg`.
      raw(false);
      t.suspend();
    }
  };
  const offContinue = t.onContinue(() => raw(true));
  const offExit = t.onExit(() => raw(wasRaw));
  raw(true);
  t.input.on('data', onData);
  t.input.resume();
  let stopped = false;
  return () => {
    if (stopped) return;
    stopped = true;
    t.input.off('data', onData);
    offContinue();
    offExit();
    raw(wasRaw);
    t.input.pause();
  };
}
