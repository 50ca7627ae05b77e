import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_LINE_CHARS, LineBuffer, LineOverflowError } from '../../../src/acp/framing.js';

// Feeds chunks through one buffer and returns every line it completed.
function linesOf(chunks: (string | Buffer)[], buffer = new LineBuffer()): string[] {
  const lines: string[] = [];
  for (const chunk of chunks) buffer.push(Buffer.from(chunk), (line) => lines.push(line));
  return lines;
}

describe('LineBuffer', () => {
  it('returns each complete line without its newline', () => {
    expect(linesOf(['{"a":1}\n{"b":2}\n'])).toEqual(['{"a":1}', '{"b":2}']);
  });

  // Found by review: a BOM before the first line made the initialize answer "not JSON".
  it('drops a byte order mark that starts the stream, even split across chunks, and no other', () => {
    expect(linesOf(['\ufeff{"a":1}\n\ufeff{"b":2}\n'])).toEqual(['{"a":1}', '\ufeff{"b":2}']);
    const bom = Buffer.from('\ufeff{"a":1}\n');
    expect(linesOf([bom.subarray(0, 1), bom.subarray(1, 2), bom.subarray(2)])).toEqual(['{"a":1}']);
    expect(linesOf(['{"a":1}\n', '\ufeff{"b":2}\n'])).toEqual(['{"a":1}', '\ufeff{"b":2}']);
  });

  it('holds an unfinished line until its newline arrives', () => {
    const buffer = new LineBuffer();
    expect(linesOf(['{"a":'], buffer)).toEqual([]);
    expect(buffer.pending()).toBe('{"a":');
    expect(linesOf(['1}\n{"b"'], buffer)).toEqual(['{"a":1}']);
    expect(buffer.pending()).toBe('{"b"');
  });

  it('reassembles lines split at every byte, inside multi-byte characters too', () => {
    const text = '{"t":"héllo 😀 日本"}\n{"u":"ü→ß"}\n';
    const bytes = Buffer.from(text);
    for (let at = 1; at < bytes.length; at++) {
      expect(linesOf([bytes.subarray(0, at), bytes.subarray(at)]), `split at byte ${at}`).toEqual([
        '{"t":"héllo 😀 日本"}',
        '{"u":"ü→ß"}',
      ]);
    }
  });

  it('reassembles a line fed one byte at a time', () => {
    const bytes = Buffer.from('{"emoji":"😀"}\n');
    const chunks = [...bytes].map((b) => Buffer.from([b]));
    expect(linesOf(chunks)).toEqual(['{"emoji":"😀"}']);
  });

  it.each([
    { name: 'CRLF endings', chunks: ['a\r\nb\r\n'], lines: ['a', 'b'] },
    { name: 'a CR and its LF in different chunks', chunks: ['a\r', '\nb\n'], lines: ['a', 'b'] },
    { name: 'empty and blank CRLF lines', chunks: ['\n\r\n\na\n\n'], lines: ['a'] },
    { name: 'a CR inside a line', chunks: ['a\rb\n'], lines: ['a\rb'] },
    { name: 'a newline alone in a chunk', chunks: ['ab', '\n', 'c\n'], lines: ['ab', 'c'] },
  ])('handles $name', ({ chunks, lines }) => {
    expect(linesOf(chunks)).toEqual(lines);
  });

  it('reassembles a 30 MiB line sent in 64 KiB chunks', () => {
    const big = '{"data":"' + 'x'.repeat(30 * 1024 * 1024) + '"}';
    const bytes = Buffer.from(big + '\n{"next":true}\n');
    const chunks: Buffer[] = [];
    for (let at = 0; at < bytes.length; at += 64 * 1024) chunks.push(bytes.subarray(at, at + 64 * 1024));
    const lines = linesOf(chunks);
    expect(lines).toHaveLength(2);
    expect(lines[0]?.length).toBe(big.length);
    expect(lines[0] === big).toBe(true);
    expect(lines[1]).toBe('{"next":true}');
  });

  it('throws LineOverflowError when an unfinished line passes the cap', () => {
    const buffer = new LineBuffer(8);
    linesOf(['1234'], buffer);
    expect(() => linesOf(['56789'], buffer)).toThrow(LineOverflowError);
    expect(() => linesOf(['56789'], new LineBuffer(8))).not.toThrow();
  });

  it('accepts a line of exactly the cap', () => {
    const buffer = new LineBuffer(8);
    expect(linesOf(['1234', '5678', '\n'], buffer)).toEqual(['12345678']);
  });

  it('counts the cap in decoded characters', () => {
    const buffer = new LineBuffer(4);
    linesOf(['éé'], buffer);
    linesOf(['éé'], buffer);
    expect(() => linesOf(['é'], buffer)).toThrow(LineOverflowError);
  });

  it('drops the overflowing line and keeps working', () => {
    const buffer = new LineBuffer(4);
    expect(() => linesOf(['123456'], buffer)).toThrow(LineOverflowError);
    expect(buffer.pending()).toBe('');
    expect(linesOf(['ok\n'], buffer)).toEqual(['ok']);
  });

  it('forgets an unfinished line on clear', () => {
    const buffer = new LineBuffer();
    linesOf(['{"half'], buffer);
    buffer.clear();
    expect(buffer.pending()).toBe('');
    expect(linesOf(['{"whole":1}\n'], buffer)).toEqual(['{"whole":1}']);
  });
});

describe('LineBuffer: the cap', () => {
  it('counts only the unfinished line, never the lines a chunk completed before it', () => {
    const buffer = new LineBuffer(4);
    expect(linesOf(['abcdefgh\n1234'], buffer)).toEqual(['abcdefgh']);
    expect(buffer.pending()).toBe('1234');
  });

  it('says how long a line may be', () => {
    expect(() => linesOf(['123456'], new LineBuffer(4))).toThrow('a line longer than 4 characters');
  });

  it('caps a line that a later chunk completes too, and holds nothing of it after', () => {
    // Found by review: a line just under the cap of its unfinished part, completed by its last chunk, was
    // joined past V8's longest string ("Invalid string length"), and its parts were kept for pending().
    const buffer = new LineBuffer(4);
    expect(() => linesOf(['123', '45\n'], buffer)).toThrow('a line longer than 4 characters');
    expect(buffer.pending()).toBe('');
    expect(linesOf(['ok\n'], buffer)).toEqual(['ok']);
  });

  it('keeps the default cap under the longest string V8 makes', () => {
    expect(DEFAULT_MAX_LINE_CHARS).toBeLessThan(2 ** 29 - 24);
  });

  it('starts counting again after each line', () => {
    const buffer = new LineBuffer(4);
    expect(linesOf(['123', '4\n12', '34\n'], buffer)).toEqual(['1234', '1234']);
  });
});
