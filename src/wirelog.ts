// --wire-log: every wire message of a run in the spike's {dir, ms, msg} rows, and a closing summary row.
import { createWriteStream, openSync, type WriteStream } from 'node:fs';
import { RhoError } from './errors.js';

export class WireLog {
  private readonly stream: WriteStream;

  constructor(
    path: string,
    private readonly now: () => number,
    private readonly t0: number,
    private readonly secret: string | undefined,
  ) {
    let fd: number;
    try {
      fd = openSync(path, 'w', 0o600);
    } catch (err) {
      throw new RhoError('usage', `option '--wire-log' cannot open ${path}: ${(err as Error).message}`);
    }
    this.stream = createWriteStream('', { fd });
  }

  // Writes one row; a2c lines are embedded as they arrived when they are JSON, else as a JSON string.
  row(dir: 'c2a' | 'a2c', line: string, isJson = true): void {
    const ms = Math.round(this.now() - this.t0);
    const msg = isJson ? line : JSON.stringify(line);
    this.write(`{"dir":"${dir}","ms":${ms},"msg":${msg}}\n`);
  }

  summary(fields: Record<string, unknown>): void {
    const ms = Math.round(this.now() - this.t0);
    this.write(JSON.stringify({ dir: 'summary', ms, msg: fields }) + '\n');
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.stream.end(resolve));
  }

  // A key never reaches the log, even if the agent echoes it.
  private write(text: string): void {
    this.stream.write(
      this.secret && text.includes(this.secret) ? text.split(this.secret).join('[redacted]') : text,
    );
  }
}
