import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { depthOver, MAX_DEPTH, RETRY_ERRORS_SHOWN, retryPrompt } from '../../../src/structured/schema.js';
import { loadOutputSchema } from '../../helpers/output-schema.js';

describe('retryPrompt', () => {
  it('lists the errors and asks again', () => {
    const p = retryPrompt(['/safe must be boolean']);
    expect(p).toContain('- /safe must be boolean');
    expect(p).toMatch(/Answer again: end with one ```json block/);
  });

  it('shows the first errors only, each cut short, and says how many more there were', () => {
    const errors = Array.from(
      { length: 500 },
      (_, i) => `/items/${i} must be string ${'x'.repeat(i === 0 ? 1000 : 0)}`,
    );
    const p = retryPrompt(errors);
    expect(p.split('\n').filter((l) => l.startsWith('- /items/'))).toHaveLength(RETRY_ERRORS_SHOWN);
    expect(p).toContain(`- and ${500 - RETRY_ERRORS_SHOWN} more`);
    expect(p.length).toBeLessThan(3000);
  });
});

describe('retryPrompt, exactly', () => {
  it('says what was wrong, a blank line, and how to answer again', () => {
    expect(retryPrompt(['/a must be string', '/b must be number'])).toBe(
      [
        'Your answer did not end with a JSON value matching the schema:',
        '- /a must be string',
        '- /b must be number',
        '',
        'Answer again: end with one ```json block holding a value that matches the schema, and nothing after it.',
      ].join('\n'),
    );
  });

  it('cuts an error over 300 characters to 299 and an ellipsis, and keeps one of 300 whole', () => {
    const at = 'x'.repeat(300);
    const over = 'y'.repeat(301);
    const lines = retryPrompt([at, over]).split('\n');
    expect(lines[1]).toBe(`- ${at}`);
    expect(lines[2]).toBe(`- ${'y'.repeat(299)}…`);
  });

  it('lists exactly RETRY_ERRORS_SHOWN errors with no "more", and says how many more past them', () => {
    const errors = (n: number): string[] => Array.from({ length: n }, (_, i) => `/${i} is wrong`);
    expect(retryPrompt(errors(RETRY_ERRORS_SHOWN))).not.toContain('more');
    const p = retryPrompt(errors(RETRY_ERRORS_SHOWN + 1));
    expect(p).toContain('- and 1 more\n');
    expect(p).not.toContain(`/${RETRY_ERRORS_SHOWN} is wrong`);
  });
});

describe('loadOutputSchema', () => {
  const file = (schema: object): string => {
    const dir = mkdtempSync(join(tmpdir(), 'rho-schema-'));
    writeFileSync(join(dir, 's.json'), JSON.stringify(schema));
    return join(dir, 's.json');
  };

  it.each([
    ['https://json-schema.org/draft/2020-12/schema', true],
    ['http://json-schema.org/draft-07/schema#', true],
    [undefined, true],
    ['https://json-schema.org/draft/2019-09/schema', false],
    ['http://json-schema.org/draft-04/schema#', false],
  ])('$schema %s taken: %s', async ($schema, taken) => {
    const p = loadOutputSchema(file({ ...($schema ? { $schema } : {}), type: 'object' }));
    if (taken) expect((await p).validate({})).toEqual([]);
    else await expect(p).rejects.toThrow(/takes draft 2020-12 or draft-07/);
  });
});

describe('loadOutputSchema is bounded whatever the schema', () => {
  const file = (schema: unknown): string => {
    const dir = mkdtempSync(join(tmpdir(), 'rho-schema-'));
    writeFileSync(join(dir, 's.json'), JSON.stringify(schema));
    return join(dir, 's.json');
  };

  it('runs a pattern that backtracks in JavaScript on a linear-time engine: a long near-match is a mismatch', async () => {
    const s = await loadOutputSchema(file({ properties: { s: { type: 'string', pattern: '^(a+)+$' } } }));
    expect(s.validate({ s: 'a'.repeat(50_000) + '!' })).toEqual(['/s must match pattern "^(a+)+$"']);
    expect(s.validate({ s: 'aaaa' })).toEqual([]);
  });

  it('keeps each pattern its own (patternProperties and pattern side by side)', async () => {
    const s = await loadOutputSchema(
      file({
        properties: { id: { type: 'string', pattern: '^[a-z]+$' } },
        patternProperties: { '^n\\d+$': { type: 'number' } },
      }),
    );
    expect(s.validate({ id: 'abc', n1: 1, other: 'x' })).toEqual([]);
    expect(s.validate({ id: 'ABC', n2: 'x' })).toEqual([
      '/id must match pattern "^[a-z]+$"',
      '/n2 must be number',
    ]);
  });

  it('refuses at load a pattern the linear-time engine cannot run (lookahead)', async () => {
    await expect(loadOutputSchema(file({ type: 'string', pattern: '^(?=a)a$' }))).rejects.toMatchObject({
      code: 'usage',
      message: expect.stringMatching(/cannot run in linear time/),
    });
  });

  it.each([
    [{ $ref: '#' }, '#'],
    [{ allOf: [{ $ref: '#/$defs/a' }], $defs: { a: { anyOf: [{ $ref: '#' }] } } }, '#'],
    [
      {
        $defs: { a: { $ref: '#/$defs/b' }, b: { not: { $ref: '#/$defs/a' } } },
        properties: { x: { $ref: '#/$defs/a' } },
      },
      '#/\\$defs/[ab]',
    ],
    [{ $id: 'https://example.com/s', $ref: 'https://example.com/s' }, '#'],
    [{ $defs: { a: { $anchor: 'here', allOf: [{ $ref: '#here' }] } } }, '#/\\$defs/a'],
  ])('refuses at load a schema that refers to itself on the same value: %j', async (schema, at) => {
    await expect(loadOutputSchema(file(schema))).rejects.toMatchObject({
      code: 'usage',
      message: expect.stringMatching(
        new RegExp(`refers to itself at ${at} without moving into a property or an item`),
      ),
    });
  });

  it('takes a recursive schema that moves into the value, and checks a value nested past the limit as a mismatch', async () => {
    const s = await loadOutputSchema(
      file({ type: 'object', properties: { a: { $ref: '#' } }, additionalProperties: false }),
    );
    expect(s.validate({ a: { a: {} } })).toEqual([]);
    expect(s.validate({ a: { b: 1 } })).toEqual(['/a must NOT have additional properties']);
    let deep: unknown = {};
    for (let i = 0; i < 100_000; i++) deep = { a: deep };
    expect(s.validate(deep)).toEqual([
      `(root) is nested deeper than ${MAX_DEPTH} levels: not checked, not a match`,
    ]);
  });

  it('enforces format keywords (ajv-formats)', async () => {
    const s = await loadOutputSchema(file({ properties: { e: { type: 'string', format: 'email' } } }));
    expect(s.validate({ e: 'not-an-email' })).toEqual(['/e must match format "email"']);
    expect(s.validate({ e: 'a@example.com' })).toEqual([]);
  });

  it('refuses an unknown format at load, and ajv writes nothing to the console', async () => {
    const said: unknown[] = [];
    const spies = (['log', 'warn', 'error'] as const).map((k) =>
      vi.spyOn(console, k).mockImplementation((...m) => void said.push(m)),
    );
    try {
      await expect(loadOutputSchema(file({ format: 'no-such-format' }))).rejects.toMatchObject({
        code: 'usage',
        message: expect.stringMatching(/unknown format "no-such-format".*enforces every format/),
      });
    } finally {
      for (const s of spies) s.mockRestore();
    }
    expect(said).toEqual([]);
  });
});

describe('depthOver', () => {
  it.each([
    [1, 0, false],
    [{}, 0, true],
    [{}, 1, false],
    [[[[]]], 2, true],
    [[[[]]], 3, false],
    [{ a: [1, { b: {} }] }, 4, false],
    [{ a: [1, { b: {} }] }, 3, true],
    [null, 0, false],
    [[null, 'x', 1], 1, false],
  ])('%j over %i levels: %s', (value, max, over) => {
    expect(depthOver(value, max)).toBe(over);
  });
});
