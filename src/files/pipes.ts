// Writes to a path that may be a FIFO or a pipe (`-o /dev/stdout` into a pipe, `--wire-log >(gzip >log)`, a
// `mkfifo` a script reads) without ever blocking the run. Opening a FIFO for writing blocks until something
// reads it, and a blocked open holds the main thread (or a threadpool thread the run then waits on) where
// neither --timeout nor a signal can end it. So a FIFO is opened non-blocking: with no reader that fails at
// once (ENXIO, said in words), and with one it is written through the event loop as stdout is (a pipe
// handle), so a reader that stops reading holds nothing but its own bytes. Any other path is left to the
// caller's usual write.
import { closeSync, constants, openSync, statSync, writeSync } from 'node:fs';
import { Socket } from 'node:net';

const WRITE_FLAGS = constants.O_WRONLY | constants.O_NONBLOCK | constants.O_NOCTTY;

/** Is the path (links followed) a FIFO or a pipe? False for anything else, and for nothing there. */
export function isPipe(path: string): boolean {
  try {
    return statSync(path).isFIFO();
  } catch {
    return false;
  }
}

// Opens a FIFO for writing without waiting for a reader: the fd, or an Error saying that nothing reads it.
export function openPipe(path: string): number {
  try {
    return openSync(path, WRITE_FLAGS);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENXIO')
      throw new Error(`nothing is reading the FIFO ${path}`, { cause: e });
    throw e;
  }
}

// A stream onto a FIFO opened by openPipe: writes go through the event loop, never blocking it.
export function pipeStream(fd: number): Socket {
  return new Socket({ fd, readable: false, writable: true });
}

// Writes the whole text to a FIFO and closes it; rejects when nothing reads it, the reader goes away, or
// `giveUp` aborts first (a signal during teardown, or a timed-out run's grace spent on a reader that takes
// nothing): a reader that never reads holds the run no longer than stdout's would.
export function writePipe(path: string, text: string | Buffer, giveUp?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const out = pipeStream(openPipe(path));
    const onGiveUp = (): void => {
      out.destroy();
      reject(new Error(`the reader of ${path} did not take it`));
    };
    if (giveUp?.aborted) return onGiveUp();
    giveUp?.addEventListener('abort', onGiveUp, { once: true });
    out.once('error', (e) => {
      giveUp?.removeEventListener('abort', onGiveUp);
      reject(e);
    });
    out.end(text, () => {
      giveUp?.removeEventListener('abort', onGiveUp);
      resolve();
    });
  });
}

// The same for the last words of a run that never started (a usage error's reports): a few hundred bytes
// written at once, or an Error; never a wait. A pipe too full to take them is an error (EAGAIN).
export function writePipeSync(path: string, text: string): void {
  const fd = openPipe(path);
  try {
    const buf = Buffer.from(text);
    for (let off = 0; off < buf.length;) off += writeSync(fd, buf, off);
  } finally {
    closeSync(fd);
  }
}
