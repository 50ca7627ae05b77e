// Pure newline framing: append chunks, get whole lines back; a size cap bounds a runaway line.
export const DEFAULT_MAX_LINE_BYTES = 512 * 1024 * 1024;

export class LineOverflowError extends Error {}

export class LineBuffer {
  private parts: Buffer[] = [];
  private size = 0;

  constructor(private readonly maxLineBytes = DEFAULT_MAX_LINE_BYTES) {}

  // Splits a chunk into complete lines (without the newline or a trailing CR) and keeps the rest.
  push(chunk: Buffer, onLine: (line: string) => void): void {
    let start = 0;
    let nl = chunk.indexOf(10, start);
    while (nl !== -1) {
      let line: string;
      if (this.parts.length === 0) {
        line = chunk.toString('utf8', start, nl);
      } else {
        this.parts.push(chunk.subarray(start, nl));
        line = Buffer.concat(this.parts).toString('utf8');
        this.parts = [];
        this.size = 0;
      }
      if (line.endsWith('\r')) line = line.slice(0, -1);
      if (line.length > 0) onLine(line);
      start = nl + 1;
      nl = chunk.indexOf(10, start);
    }
    if (start < chunk.length) {
      this.size += chunk.length - start;
      if (this.size > this.maxLineBytes) {
        this.clear();
        throw new LineOverflowError(`a line longer than ${this.maxLineBytes} bytes`);
      }
      this.parts.push(start === 0 ? chunk : chunk.subarray(start));
    }
  }

  // The bytes of an unfinished last line, for reporting what an agent left behind.
  pending(): string {
    return Buffer.concat(this.parts).toString('utf8');
  }

  clear(): void {
    this.parts = [];
    this.size = 0;
  }
}
