// GitHub Actions: annotations escaped as the runner requires; JSON made inert to the legacy `##[` syntax.
import { describe, expect, it } from 'vitest';
import { errorAnnotation, warningAnnotation } from '../../../src/ci/github.js';
import {
  escapeData,
  escapeProperty,
  GuardState,
  guardToken,
  inertJson,
} from '../../../src/sanitize/workflow.js';

describe('escapeData and escapeProperty', () => {
  it.each([
    ['percent', '100%', '100%25', '100%25'],
    ['newline starts no command', 'a\n::add-mask::x', 'a%0A::add-mask::x', 'a%0A%3A%3Aadd-mask%3A%3Ax'],
    ['CR', 'a\r::error::b', 'a%0D::error::b', 'a%0D%3A%3Aerror%3A%3Ab'],
    ['comma and colon', 'title=a,b:c', 'title=a,b:c', 'title=a%2Cb%3Ac'],
    ['an escape already written', '%0A', '%250A', '%250A'],
  ])('%s', (_name, input, data, property) => {
    expect(escapeData(input)).toBe(data);
    expect(escapeProperty(input)).toBe(property);
  });

  it('keeps an annotation on one line whatever the message', () => {
    const a = errorAnnotation('boom\n::error title=Deploy::forged\r\n::stop-commands::x');
    expect(a.split('\n')).toEqual([
      '::error title=rho-cursor::boom\u240a::error title=Deploy::forged\u240d\u240a::stop-commands::x',
      '',
    ]);
    expect(warningAnnotation('a,b', 'x\ny').split('\n')).toHaveLength(2);
  });
});

describe('GuardState', () => {
  it('stops commands with a random token and resumes them once', () => {
    const g = new GuardState('tok');
    expect(g.close()).toBe('');
    expect(g.open()).toBe('::stop-commands::tok\n');
    expect(g.close()).toBe('::tok::\n');
    expect(g.close()).toBe('');
  });

  it('draws a different, long token each run', () => {
    const a = guardToken();
    expect(a).toMatch(/^rho-[0-9a-f]{32}$/);
    expect(guardToken()).not.toBe(a);
  });
});

describe('inertJson', () => {
  it.each([
    ['{"text":"##[error]boom"}', '{"text":"##\\u005berror]boom"}'],
    ['{"text":"no command"}', '{"text":"no command"}'],
    ['{"a":"##[add-mask]x","b":"##["}', '{"a":"##\\u005badd-mask]x","b":"##\\u005b"}'],
  ])('%s', (line, inert) => {
    expect(inertJson(line)).toBe(inert);
    expect(JSON.parse(inertJson(line))).toEqual(JSON.parse(line));
  });
});
