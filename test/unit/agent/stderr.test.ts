// The agent's stderr as one error line: the key is masked before the lines are cut and joined.
import { afterEach, describe, expect, it } from 'vitest';
import { stderrMessage } from '../../../src/agent/stderr.js';
import { useSecret } from '../../../src/sanitize/cut.js';

const KEY = 'sk-test-Zq7Xv9Lm2Pw4Rt6Yb8Nc3Hd5';

afterEach(() => useSecret(undefined));

describe('stderrMessage', () => {
  it('masks a key broken across lines, blanks around the breaks too', () => {
    useSecret(KEY);
    expect(stderrMessage(`fatal: key ${KEY.slice(0, 11)}\n${KEY.slice(11)}\n`)).toBe('fatal: key [redacted]');
    expect(stderrMessage(`a ${KEY.slice(0, 5)}  \r\n\n   ${KEY.slice(5, 9)}\n${KEY.slice(9)} b\n`)).toBe(
      'a [redacted] b',
    );
  });

  it('leaves lines alone that only share the key’s start', () => {
    useSecret(KEY);
    expect(stderrMessage('one sk-test\ntwo\n')).toBe('one sk-test | two');
  });

  it('with no key, the lines are joined as they are', () => {
    expect(stderrMessage(`fatal: key ${KEY.slice(0, 11)}\n${KEY.slice(11)}\n`)).toBe(
      `fatal: key ${KEY.slice(0, 11)} | ${KEY.slice(11)}`,
    );
  });
});
