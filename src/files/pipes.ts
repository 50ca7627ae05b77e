// Writes to a path that may be a FIFO or a pipe (`-o /dev/stdout` into a pipe, `--wire-log >(gzip >log)`, a
// `mkfifo` a script reads) without ever blocking the run. Opening a FIFO for writing blocks until something
// reads it, and a blocked open holds the main thread (or a threadpool thread the run then waits on) where
// neither --timeout nor a signal can end it. So a FIFO is opened non-blocking: with no reader that fails at
// once (ENXIO, said in words), and with one it is written through the event loop as stdout is (a pipe
// handle), so a reader that stops reading holds nothing but its own bytes. Any other path is left to the
// caller's usual write.
import { closeSync, constants, openSync, statSync, writeSync } from 'node:fs';
import { Socket } from 'node:net';
import type { Writable } from 'node:stream';

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

// Ends a stream (after `text`, if given) and resolves true once it has taken everything, or false once
// `giveUp` aborted first (a signal during teardown, or a timed-out run's grace spent on a reader that takes
// nothing): the stream is destroyed and the rest dropped, so such a reader holds the run no longer than a
// stdout reader would. Rejects on the stream's error (the reader went away).
export function endWithin(out: Writable, giveUp?: AbortSignal, text?: string | Buffer): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const onGiveUp = (): void => {
      out.destroy();
      resolve(false);
    };
    if (giveUp?.aborted) return onGiveUp();
    giveUp?.addEventListener('abort', onGiveUp, { once: true });
    const settle = (): void => giveUp?.removeEventListener('abort', onGiveUp);
    out.once('error', (e) => (settle(), reject(e)));
    const done = (): void => (settle(), resolve(true));
    if (text === undefined) out.end(done);
    else out.end(text, done);
  });
}

// Writes the whole text to a FIFO and closes it; rejects when nothing reads it, the reader goes away, or
// `giveUp` aborts first.
export async function writePipe(path: string, text: string | Buffer, giveUp?: AbortSignal): Promise<void> {
  if (!(await endWithin(pipeStream(openPipe(path)), giveUp, text)))
    throw new Error(`the reader of ${path} did not take it`);
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
