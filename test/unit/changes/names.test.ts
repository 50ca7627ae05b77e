// File names as bytes: decoded so a name that is not UTF-8 still reaches its file, and back.
import fc from 'fast-check';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { markOfSync } from '../../../src/changes/marks.js';
import { decodeName, fsPath } from '../../../src/changes/names.js';
import { walkFiles } from '../../../src/changes/walk.js';

const bytesOf = (p: string | Buffer): Buffer => (typeof p === 'string' ? Buffer.from(p, 'utf8') : p);

describe('decodeName and fsPath', () => {
  it('valid UTF-8 is decoded as it is, and used as the string', () => {
    expect(decodeName(Buffer.from('src/é 😀.ts'))).toBe('src/é 😀.ts');
    expect(fsPath('src/é 😀.ts')).toBe('src/é 😀.ts');
  });

  it('a byte that is not UTF-8 is kept as a lone surrogate, and given back as that byte', () => {
    const name = Buffer.from([0x6f, 0x6c, 0x64, 0xff, 0x2e, 0x74]);
    expect(decodeName(name)).toBe('old\udcff.t');
    expect(fsPath('old\udcff.t')).toEqual(name);
  });

  it.each([
    ['an overlong slash', [0xc0, 0xaf]],
    ['a UTF-16 surrogate', [0xed, 0xa0, 0x80]],
    ['past U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
    ['a cut sequence', [0xe2, 0x82]],
  ])('%s is kept byte by byte', (_, bytes) => {
    const s = decodeName(Buffer.from(bytes));
    expect([...s].every((c) => c.charCodeAt(0) >= 0xdc80 && c.charCodeAt(0) <= 0xdcff)).toBe(true);
    expect(bytesOf(fsPath(s))).toEqual(Buffer.from(bytes));
  });

  it('any bytes come back as they were', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (a) => {
        const b = Buffer.from(a);
        expect(bytesOf(fsPath(decodeName(b)))).toEqual(b);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('the ledger sees a file whose name is not UTF-8', () => {
  const root = mkdtempSync(join(tmpdir(), 'rho-names-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const name = Buffer.concat([Buffer.from(`${root}/old`), Buffer.of(0xff), Buffer.from('.txt')]);
  writeFileSync(name, 'x');

  it('walked, and its mark taken', async () => {
    expect(readdirSync(root)).toHaveLength(1);
    const walked = await walkFiles(root, 100);
    expect(walked.files).toEqual(['old\udcff.txt']);
    expect(markOfSync(join(root, walked.files[0]!))).not.toBeNull();
  });
});
