// Pure newline framing: append chunks, get whole lines back; a size cap bounds a runaway line.
import { StringDecoder } from 'node:string_decoder';

/** The longest line read: far under V8's longest string (2^29 - 24 characters in Node 20), which a line in
 * between would hit when joined ("Invalid string length": found by review), and the memory it may take. */
export const DEFAULT_MAX_LINE_CHARS = 256 * 1024 * 1024;

export class LineOverflowError extends Error {}

export class LineBuffer {
  // Each chunk is decoded once (a split multi-byte character waits in the decoder), then split as a string.
  // Stryker disable next-line StringLiteral: StringDecoder reads '' as utf8, its default
  private readonly decoder = new StringDecoder('utf8');
  private parts: string[] = [];
  private size = 0;
  /** No text read yet: a byte order mark that starts the stream is dropped. */
  private atStart = true;

  constructor(private readonly maxLineChars = DEFAULT_MAX_LINE_CHARS) {}

  // Splits a chunk into complete lines (without the newline or a trailing CR) and keeps the rest.
  push(chunk: Buffer, onLine: (line: string) => void): void {
    let text = this.decoder.write(chunk);
    // A UTF-8 byte order mark before the first line (what .NET's UTF-8 console writer emits) is no part of
    // it (found by review: the initialize answer after one was "not JSON"). The decoder holds a split one.
    if (this.atStart && text.length > 0) {
      this.atStart = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    let start = 0;
    let nl = text.indexOf('\n');
    while (nl !== -1) {
      let line = text.slice(start, nl);
      // Stryker disable next-line ConditionalExpression,EqualityOperator: no parts joined to it is the line
      if (this.parts.length > 0) {
        if (this.size + line.length > this.maxLineChars) {
          this.clear();
          throw new LineOverflowError(`a line longer than ${this.maxLineChars} characters`);
        }
        this.parts.push(line);
        line = this.parts.join('');
        this.parts = [];
        this.size = 0;
      }
      if (line.endsWith('\r')) line = line.slice(0, -1);
      if (line.length > 0) onLine(line);
      start = nl + 1;
      nl = text.indexOf('\n', start);
    }
    // Stryker disable next-line ConditionalExpression,EqualityOperator: an empty rest adds nothing
    if (start < text.length) {
      this.size += text.length - start;
      if (this.size > this.maxLineChars) {
        this.clear();
        throw new LineOverflowError(`a line longer than ${this.maxLineChars} characters`);
      }
      // Stryker disable next-line ConditionalExpression: slice(0) is the same text
      this.parts.push(start === 0 ? text : text.slice(start));
    }
  }

  // The text of an unfinished last line, for reporting what an agent left behind.
  pending(): string {
    return this.parts.join('');
  }

  clear(): void {
    this.parts = [];
    this.size = 0;
  }
}
