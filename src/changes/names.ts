// File names as the kernel has them: bytes, not always UTF-8. A name that is not valid UTF-8 (an agent can
// make one: `old\xff.txt`) decoded as UTF-8 would become U+FFFD, a name no file has, and the ledger would
// never see the file. Each byte that is not part of valid UTF-8 is kept instead as a lone surrogate
// U+DC80-U+DCFF (Python's "surrogateescape"), which no valid UTF-8 name decodes to, and fsPath turns it back
// into the bytes for the file system. In output, a lone surrogate is shown as U+FFFD.
import { isUtf8 } from 'node:buffer';

// Pure: bytes as a string, valid UTF-8 decoded, every other byte b as the lone surrogate 0xDC00 + b.
export function decodeName(bytes: Buffer): string {
  if (isUtf8(bytes)) return bytes.toString('utf8');
  let out = '';
  let i = 0;
  while (i < bytes.length) {
    const n = sequenceLength(bytes, i);
    if (n > 0) {
      out += bytes.toString('utf8', i, i + n);
      i += n;
    } else {
      out += String.fromCharCode(0xdc00 + bytes[i]!);
      i += 1;
    }
  }
  return out;
}

// The length of the valid UTF-8 sequence at i (1-4), or 0 when the byte there starts none.
function sequenceLength(b: Buffer, i: number): number {
  const c = b[i]!;
  if (c < 0x80) return 1;
  const cont = (k: number, lo = 0x80, hi = 0xbf): boolean =>
    i + k < b.length && b[i + k]! >= lo && b[i + k]! <= hi;
  if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0;
  if (c === 0xe0) return cont(1, 0xa0) && cont(2) ? 3 : 0;
  // 0xED: no UTF-16 surrogate is valid UTF-8.
  if (c === 0xed) return cont(1, 0x80, 0x9f) && cont(2) ? 3 : 0;
  if (c >= 0xe1 && c <= 0xef) return cont(1) && cont(2) ? 3 : 0;
  if (c === 0xf0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (c >= 0xf1 && c <= 0xf3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (c === 0xf4) return cont(1, 0x80, 0x8f) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}

const ESCAPED = /[\udc80-\udcff]/;

// Pure: the path for the file system: the string itself, or, when it holds a byte decodeName kept, its bytes.
export function fsPath(path: string): string | Buffer {
  if (!ESCAPED.test(path)) return path;
  const parts: Buffer[] = [];
  for (const ch of path) {
    const u = ch.charCodeAt(0);
    parts.push(
      ch.length === 1 && u >= 0xdc80 && u <= 0xdcff ? Buffer.of(u - 0xdc00) : Buffer.from(ch, 'utf8'),
    );
  }
  return Buffer.concat(parts);
}
