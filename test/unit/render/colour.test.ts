import { describe, expect, it } from 'vitest';
import { colourEnabled } from '../../../src/render/index.js';

describe('colourEnabled', () => {
  it.each<[string, NodeJS.ProcessEnv, boolean, boolean]>([
    ['auto', {}, true, true],
    ['auto', {}, false, false],
    ['auto', { NO_COLOR: '1' }, true, false],
    ['auto', { NO_COLOR: '' }, true, true],
    ['auto', { TERM: 'dumb' }, true, false],
    ['auto', { FORCE_COLOR: '1' }, false, true],
    ['auto', { FORCE_COLOR: '1', NO_COLOR: '1' }, false, true],
    ['auto', { FORCE_COLOR: '0' }, true, false],
    ['auto', { FORCE_COLOR: 'false' }, true, false],
    ['always', { NO_COLOR: '1' }, false, true],
    ['never', { FORCE_COLOR: '1' }, true, false],
  ])('--color %s with %j on a terminal %s: %s', (mode, env, tty, want) => {
    expect(colourEnabled(mode as 'auto', env, tty)).toBe(want);
  });
});
