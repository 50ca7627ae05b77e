// --output-schema's compile and checks in their worker (the built dist/schema-worker.cjs): the same answers as
// in-process, and every check ends, whatever the schema and the value: at the worker's heap, at its time, or
// at once when the run's signal aborts.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RhoError } from '../../../src/errors.js';
import { SchemaChecker, type CheckLimits } from '../../../src/structured/checker.js';
import { MAX_SCHEMA_DEPTH, readOutputSchema } from '../../../src/structured/schema.js';
import { loadOutputSchema } from '../../helpers/output-schema.js';
import { MAX_DEPTH } from '../../../src/structured/validator.js';
import { REPO_ROOT } from '../../helpers/agent-path.js';

const WORKER = join(REPO_ROOT, 'dist', 'schema-worker.cjs');
const file = (schema: unknown): string => {
  const dir = mkdtempSync(join(tmpdir(), 'rho-checker-'));
  writeFileSync(join(dir, 's.json'), typeof schema === 'string' ? schema : JSON.stringify(schema));
  return join(dir, 's.json');
};

/** L levels of `keyword` over two refs to the next level, ending in a string, as the property `slow`: a value
 * of `slow` takes 2^L branches to check (ajv's 2020-12 anyOf tries every branch, even after one matched). */
export function exponentialSchema(levels: number, keyword: 'anyOf' | 'allOf' = 'anyOf'): object {
  const defs: Record<string, unknown> = {};
  for (let i = 0; i < levels; i++)
    defs[`a${i}`] = { [keyword]: [{ $ref: `#/$defs/a${i + 1}` }, { $ref: `#/$defs/a${i + 1}` }] };
  defs[`a${levels}`] = { type: 'string' };
  return { $defs: defs, properties: { slow: { $ref: '#/$defs/a0' } } };
}

const open: SchemaChecker[] = [];
async function checker(schema: unknown, limits: Partial<CheckLimits> = {}): Promise<SchemaChecker> {
  const c = new SchemaChecker(readOutputSchema(file(schema)), limits, WORKER);
  open.push(c);
  await c.start();
  return c;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

describe('SchemaChecker gives the answers the in-process check gives', () => {
  it.each([
    [
      'every error',
      { type: 'object', required: ['a'], properties: { b: { type: 'string' }, c: { type: 'integer' } } },
      { b: 1, c: 1.5 },
    ],
    [
      'a backtracking pattern',
      { properties: { s: { type: 'string', pattern: '^(a+)+$' } } },
      { s: 'a'.repeat(50_000) + '!' },
    ],
    ['a format', { properties: { e: { type: 'string', format: 'email' } } }, { e: 'not-an-email' }],
    ['a match', { type: 'number' }, 3],
    [
      'a recursive schema',
      { type: 'object', properties: { a: { $ref: '#' } }, additionalProperties: false },
      { a: { b: 1 } },
    ],
  ])('%s', async (_, schema, value) => {
    const inProcess = await loadOutputSchema(file(schema));
    expect(await (await checker(schema)).check(value)).toEqual(inProcess.validate(value));
  });

  it('a value nested past the limit is a mismatch, found before it is copied to the worker', async () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(await (await checker({})).check(deep)).toEqual([
      `(root) is nested deeper than ${MAX_DEPTH} levels: not checked, not a match`,
    ]);
  });

  it.each([
    ['{"type": "nothing"}', /is not a valid JSON Schema: schema is invalid: /],
    [
      '{"format": "no-such-format"}',
      /: unknown format "no-such-format" in schema at path "#"; rho-cursor enforces/,
    ],
    ['{"type": "string", "pattern": "^(?=a)a$"}', /cannot run in linear time/],
  ])('refuses at start what ajv refuses, as a usage error naming the file: %s', async (text, message) => {
    const path = file(text);
    const c = new SchemaChecker(readOutputSchema(path), {}, WORKER);
    open.push(c);
    const e = await c.start().catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RhoError);
    expect(e).toMatchObject({ code: 'usage' });
    const inProcess = await loadOutputSchema(path).catch((x: unknown) => x);
    expect((e as RhoError).message).toBe((inProcess as RhoError).message);
    expect((e as RhoError).message).toMatch(message);
  });
});

describe('every check ends, whatever the schema and the value', () => {
  it('a check that collects 2^L errors (anyOf over refs, a mismatch) ends at the worker heap: a mismatch that says so', async () => {
    const c = await checker(exponentialSchema(40), { heapMb: 32, checkMs: 60_000 });
    const t0 = Date.now();
    expect(await c.check({ slow: 42 })).toEqual([
      '(root) could not be checked within 32 MB (the memory one check is given): not a match',
    ]);
    expect(Date.now() - t0).toBeLessThan(30_000);
    // The next check gets a new worker.
    expect(await c.check({ fast: 1 })).toEqual([]);
  });

  it('a check of 2^L steps that collects nothing (allOf over refs, a match) ends at its time: a mismatch that says so', async () => {
    // The next check needs a new worker: its start and compile have the compile's own time, not the check's.
    const c = await checker(exponentialSchema(40, 'allOf'), { checkMs: 300 });
    const t0 = Date.now();
    expect(await c.check({ slow: 'x' })).toEqual([
      '(root) could not be checked within 0.3 s (the time one check is given): not a match',
    ]);
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(await c.check({})).toEqual([]);
  });

  it("the compile has a time of its own: a check's short time does not fail the schema's compile", async () => {
    // 1 ms is less than any worker takes to start and compile: were the compile given the check's time, the
    // schema would be refused at start().
    const c = await checker(exponentialSchema(40, 'allOf'), { checkMs: 1, compileMs: 15_000 });
    expect(await c.check({ slow: 'x' })).toEqual([
      '(root) could not be checked within 0.001 s (the time one check is given): not a match',
    ]);
  });

  it('a compile past its own time refuses the schema, naming that time', async () => {
    const e = await checker({ type: 'object' }, { compileMs: 1, checkMs: 15_000 }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RhoError);
    expect((e as RhoError).message).toMatch(
      /could not be compiled within 0\.001 s \(the time the schema's compile is given\)/,
    );
  });

  it('the run stopping (its signal aborted) ends the check at once, with the signal reason', async () => {
    const c = await checker(exponentialSchema(40), { checkMs: 60_000 });
    const stop = new AbortController();
    const reason = new RhoError('run_timeout', 'the run exceeded --timeout 1s');
    setTimeout(() => stop.abort(reason), 300);
    const t0 = Date.now();
    await expect(c.check({ slow: 42 }, stop.signal)).rejects.toBe(reason);
    expect(Date.now() - t0).toBeLessThan(1500);
    // A signal already aborted rejects before any work.
    await expect(c.check({ fast: 1 }, stop.signal)).rejects.toBe(reason);
  });

  it('the compile is stopped by the signal too', async () => {
    const c = new SchemaChecker(readOutputSchema(file({ type: 'string' })), {}, WORKER);
    open.push(c);
    const stop = new AbortController();
    stop.abort(new Error('stopped'));
    await expect(c.start(stop.signal)).rejects.toThrow('stopped');
  });
});

describe('a schema nested deeper than MAX_SCHEMA_DEPTH is refused at load, before anything recursive', () => {
  // levels+1 objects, each inside the last: nested deeper than MAX_SCHEMA_DEPTH from levels = the limit on.
  const nested = (levels: number): string => '{"items":'.repeat(levels) + '{}' + '}'.repeat(levels);

  it.each([5_000, 60_000])('%i levels: a one-line usage error naming the file and the limit', (n) => {
    const path = file(nested(n));
    expect(() => readOutputSchema(path)).toThrow(
      new RhoError(
        'usage',
        `option '--output-schema': ${path} is nested deeper than ${MAX_SCHEMA_DEPTH} levels (the most rho-cursor takes in a schema)`,
      ),
    );
  });

  it('a schema exactly at the limit is taken, compiled and checked (in the worker and in-process)', async () => {
    const path = file(nested(MAX_SCHEMA_DEPTH - 1));
    expect(() => readOutputSchema(file(nested(MAX_SCHEMA_DEPTH)))).toThrow(/nested deeper/);
    let value: unknown = 1;
    for (let i = 0; i < MAX_SCHEMA_DEPTH - 2; i++) value = [value];
    const c = new SchemaChecker(readOutputSchema(path), {}, WORKER);
    open.push(c);
    await c.start();
    expect(await c.check(value)).toEqual([]);
    expect((await loadOutputSchema(path)).validate(value)).toEqual([]);
  });
});
