import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  describeRefusal,
  FILE_CAPS,
  FileRefused,
  fmtBytes,
  readUntrusted,
  type Refusal,
} from '../../../src/files/untrusted.js';

const dir = (): string => mkdtempSync(join(tmpdir(), 'rho-untrusted-'));

// What readUntrusted threw for the path (a FileRefused's refusal), or the bytes it read.
function outcome(path: string, kind: keyof typeof FILE_CAPS = 'config'): Refusal | string {
  try {
    return readUntrusted(path, kind).toString('utf8');
  } catch (e) {
    if (e instanceof FileRefused) return e.refusal;
    throw e;
  }
}

describe('readUntrusted', () => {
  it('reads a regular file, also through a symlink', () => {
    const d = dir();
    writeFileSync(join(d, 'a.json'), '{"x":1}');
    symlinkSync(join(d, 'a.json'), join(d, 'link.json'));
    expect(outcome(join(d, 'a.json'))).toBe('{"x":1}');
    expect(outcome(join(d, 'link.json'))).toBe('{"x":1}');
  });

  it('says a missing file is missing', () => {
    expect(outcome(join(dir(), 'none.json'))).toEqual({ reason: 'missing' });
    expect(outcome(join(dir(), 'none', 'deeper.json'))).toEqual({ reason: 'missing' });
  });

  it('refuses a FIFO without blocking on it (nobody ever writes to this one)', () => {
    const fifo = join(dir(), 'cli-config.json');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    expect(outcome(fifo)).toEqual({ reason: 'not-regular', what: 'a FIFO (named pipe)' });
  });

  it('refuses a symlink to /dev/zero without reading it', () => {
    const link = join(dir(), 'cli.json');
    symlinkSync('/dev/zero', link);
    expect(outcome(link)).toEqual({ reason: 'not-regular', what: 'a character device' });
  });

  it('refuses a directory', () => {
    const d = join(dir(), 'sub');
    mkdirSync(d);
    expect(outcome(d)).toEqual({ reason: 'not-regular', what: 'a directory' });
  });

  it('refuses a socket', async () => {
    const sock = join(dir(), 's.sock');
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(sock, resolve));
    try {
      expect(outcome(sock)).toEqual({ reason: 'not-regular', what: 'a socket' });
    } finally {
      server.close();
    }
  });

  it.each(Object.entries(FILE_CAPS))(
    'caps %s files at %i bytes: the cap is read, one byte more is refused',
    (kind, cap) => {
      const d = dir();
      writeFileSync(join(d, 'at'), Buffer.alloc(cap, 0x61));
      writeFileSync(join(d, 'over'), Buffer.alloc(cap + 1, 0x61));
      expect(outcome(join(d, 'at'), kind as keyof typeof FILE_CAPS)).toHaveLength(cap);
      expect(outcome(join(d, 'over'), kind as keyof typeof FILE_CAPS)).toEqual({
        reason: 'too-large',
        size: cap + 1,
        cap,
      });
    },
  );
});

describe('describeRefusal', () => {
  it.each<[Refusal, string]>([
    [{ reason: 'missing' }, 'does not exist'],
    [
      { reason: 'not-regular', what: 'a FIFO (named pipe)' },
      'is a FIFO (named pipe), not a regular file: rho-cursor reads only regular files here',
    ],
    [
      { reason: 'too-large', size: 2 * 1048576, cap: 1048576 },
      'is over 1 MiB (the cap for this file), at 2 MiB or more',
    ],
    [{ reason: 'unreadable', code: 'EACCES' }, 'cannot be read (EACCES)'],
  ])('%j: %s', (r, text) => {
    expect(describeRefusal(r)).toBe(text);
  });

  it.each([
    [812, '812 bytes'],
    [1536, '1.5 KiB'],
    [10 * 1048576, '10 MiB'],
    // Rounded up: a size past a cap never reads as the cap itself (found by review: "over 10 MiB, at 10 MiB").
    [10 * 1048576 + 1, '10.1 MiB'],
    [1025, '1.1 KiB'],
  ])('%i bytes read as %s', (n, text) => {
    expect(fmtBytes(n)).toBe(text);
  });
});
