import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RhoError } from '../../../src/errors.js';
import { schemaInstruction } from '../../../src/structured/schema.js';
import { loadOutputSchema } from '../../helpers/output-schema.js';

const dir = (): string => mkdtempSync(join(tmpdir(), 'rho-schema-'));
const fileWith = (text: string): string => {
  const path = join(dir(), 's.json');
  writeFileSync(path, text);
  return path;
};

// The usage error loading the schema ends with, or a failure naming what loaded instead.
async function refusal(path: string): Promise<RhoError> {
  try {
    await loadOutputSchema(path);
  } catch (e) {
    if (e instanceof RhoError) return e;
    throw e;
  }
  throw new Error(`${path} loaded`);
}

describe('loadOutputSchema refuses what is not a schema file, naming it', () => {
  it('a missing file', async () => {
    const path = join(dir(), 'none.json');
    const e = await refusal(path);
    expect(e.code).toBe('usage');
    expect(e.message).toBe(`option '--output-schema' cannot read '${path}' (no such file)`);
    expect(e.hint).toBe('see --help');
  });

  it('a directory', async () => {
    const path = join(dir(), 'd');
    mkdirSync(path);
    const e = await refusal(path);
    expect(e.code).toBe('usage');
    expect(e.message).toBe(
      `option '--output-schema': ${path} is a directory, not a regular file: rho-cursor reads only regular files here`,
    );
    expect(e.hint).toBe('see --help');
  });

  it('a file over 1 MiB', async () => {
    const e = await refusal(fileWith(`{"description": "${'x'.repeat(1024 * 1024)}"}`));
    expect(e.message).toMatch(/^option '--output-schema': \S+ is over 1 MiB \(the cap for this file\)/);
  });

  it('text that is not JSON', async () => {
    const path = fileWith('{"type": ');
    const e = await refusal(path);
    expect(e.code).toBe('usage');
    expect(e.message).toMatch(
      new RegExp(`^option '--output-schema': ${path} is not valid JSON \\(Unexpected end of JSON input\\)$`),
    );
    expect(e.hint).toBe('see --help');
  });

  it.each(['[]', '1', '"object"', 'null'])('JSON that is not a schema: %s', async (text) => {
    const path = fileWith(text);
    const e = await refusal(path);
    expect(e.code).toBe('usage');
    expect(e.message).toBe(`option '--output-schema': ${path} must hold a JSON Schema object`);
  });

  it('a schema ajv cannot compile', async () => {
    const path = fileWith('{"type": "nothing"}');
    const e = await refusal(path);
    expect(e.code).toBe('usage');
    expect(e.message).toMatch(
      new RegExp(`^option '--output-schema': ${path} is not a valid JSON Schema: schema is invalid: `),
    );
  });

  it('an unknown format, said without ajv\'s "ignored"', async () => {
    const path = fileWith('{"format": "no-such-format"}');
    const e = await refusal(path);
    expect(e.message).toBe(
      `option '--output-schema': ${path}: unknown format "no-such-format" in schema at path "#"; rho-cursor enforces every format it takes (those of ajv-formats) and ignores none`,
    );
  });

  it('names the $schema it does not take', async () => {
    const path = fileWith('{"$schema": "https://json-schema.org/draft/2019-09/schema"}');
    expect((await refusal(path)).message).toBe(
      `option '--output-schema': ${path} declares $schema https://json-schema.org/draft/2019-09/schema; rho-cursor takes draft 2020-12 or draft-07 (or no $schema, read as 2020-12)`,
    );
  });
});

describe('loadOutputSchema takes', () => {
  it.each([
    ['true', { anything: 1 }, []],
    ['false', 1, ['(root) boolean schema is false']],
  ])('the boolean schema %s', async (text, value, errors) => {
    expect((await loadOutputSchema(fileWith(text))).validate(value)).toEqual(errors);
  });

  it('keeps the path and the text as written', async () => {
    const text = '{ "type": "number" }\n';
    const path = fileWith(text);
    const s = await loadOutputSchema(path);
    expect(s.path).toBe(path);
    expect(s.text).toBe(text);
  });

  it('reads draft-07 as draft-07: items as an array is a tuple, not prefixItems', async () => {
    const tuple = { items: [{ type: 'string' }, { type: 'number' }] };
    const d7 = await loadOutputSchema(
      fileWith(JSON.stringify({ $schema: 'http://json-schema.org/draft-07/schema#', ...tuple })),
    );
    expect(d7.validate(['a', 1])).toEqual([]);
    expect(d7.validate([1, 'a'])).toEqual(['/0 must be string', '/1 must be number']);
    // In 2020-12 an array-valued items is not a schema at all.
    await expect(loadOutputSchema(fileWith(JSON.stringify(tuple)))).rejects.toThrow(
      /not a valid JSON Schema/,
    );
  });

  it('lists every error (allErrors), each with where it is', async () => {
    const s = await loadOutputSchema(
      fileWith(
        JSON.stringify({
          type: 'object',
          required: ['a'],
          properties: { b: { type: 'string' }, c: { type: 'integer' } },
        }),
      ),
    );
    expect(s.validate({ b: 1, c: 1.5 })).toEqual([
      "(root) must have required property 'a'",
      '/b must be string',
      '/c must be integer',
    ]);
  });

  it('checks a value nested exactly to the limit, and not one level more', async () => {
    const s = await loadOutputSchema(fileWith('{}'));
    const nest = (n: number): unknown => {
      let v: unknown = 1;
      for (let i = 0; i < n; i++) v = [v];
      return v;
    };
    expect(s.validate(nest(512))).toEqual([]);
    expect(s.validate(nest(513))).toEqual([
      '(root) is nested deeper than 512 levels: not checked, not a match',
    ]);
  });
});

describe('schemaInstruction', () => {
  it('asks for one fenced json value matching the schema, its text trimmed, and nothing after it', async () => {
    const s = await loadOutputSchema(fileWith('\n  {"type": "number"}  \n'));
    expect(schemaInstruction(s)).toBe(
      [
        '',
        'End your answer with one JSON value that matches this JSON Schema, as a fenced ```json block,',
        'and put nothing after it:',
        '',
        '```json',
        '{"type": "number"}',
        '```',
      ].join('\n'),
    );
  });
});

describe('loadOutputSchema runs every pattern on the linear-time engine, however the schema spells its keys', () => {
  it.each([
    ['"pattern"', '{"type": "string", "pattern": "^(?=a)a$"}'],
    ['"\\u0070attern"', '{"type": "string", "\\u0070attern": "^(?=a)a$"}'],
    ['"p\\u0061tternProperties"', '{"p\\u0061tternProperties": {"^(?=a)": {}}}'],
  ])('%s', async (_, text) => {
    await expect(loadOutputSchema(fileWith(text))).rejects.toMatchObject({
      code: 'usage',
      message: expect.stringMatching(/cannot run in linear time/),
    });
  });
});
