import { describe, expect, it } from 'vitest';
import { osLimitError } from '../../src/os-limits.js';

describe('osLimitError', () => {
  it.each([
    ['EMFILE', false, /too many open files in this process \(EMFILE\) while starting x/, /ulimit -n/],
    ['ENFILE', false, /table of open files is full \(ENFILE\) while starting x/, /fs.file-max/],
    ['ENOMEM', false, /out of memory \(ENOMEM\) while starting x/, /memory/],
    ['EAGAIN', true, /refused a new process \(EAGAIN\) while starting x/, /ulimit -u.*pids.max/],
  ])('%s (spawn: %s) is os_limit, exit 1, with a hint', (code, spawn, message, hint) => {
    const e = osLimitError({ code }, 'starting x', { spawn });
    expect(e).toMatchObject({ code: 'os_limit', exitCode: 1, message: expect.stringMatching(message) });
    expect(e?.hint).toMatch(hint);
  });

  it.each([
    [{ code: 'EAGAIN' }],
    [{ code: 'ENOENT' }],
    [{ code: 'EACCES' }],
    [new Error('no code')],
    [undefined],
  ])('%j outside a spawn is no OS limit', (e) => {
    expect(osLimitError(e, 'reading x')).toBeUndefined();
  });
});
