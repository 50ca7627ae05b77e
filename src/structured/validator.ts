// The check itself, wherever it runs (the run's schema worker, src/structured/worker.ts; in-process for the
// unit tests): the schema compiled by ajv with every format enforced (ajv-formats) and `pattern` on a
// linear-time engine (re2js), and a value's errors as lines. Imports nothing of the run: the worker's bundle
// is this, ajv and re2js.
import type { ErrorObject, ValidateFunction } from 'ajv';
import { linearRegExp, type RegExpEngine } from './regexp.js';

/** The deepest value checked against the schema: ajv's validators recurse once per level. */
export const MAX_DEPTH = 512;

/** The most error lines one check gives; past it, one line says how many more there were. */
export const MAX_ERROR_LINES = 10_000;

/** A schema ajv will not take: `detail` follows the file's path in the usage error. */
export class SchemaRefused extends Error {
  constructor(readonly detail: string) {
    super(detail);
  }
}

type AjvLike = {
  compile(s: unknown): ValidateFunction;
};
type AjvClass = new (o: object) => AjvLike;

/** What compiling needs to know of a schema, as read at load (src/structured/schema.ts). */
export interface SchemaSource {
  schema: unknown;
  draft07: boolean;
  /** The schema has a pattern (or patternProperties): only then is the regex engine loaded. */
  patterns: boolean;
}

/** A compiled schema: a value's errors as lines, none when it matches. */
export type Check = (value: unknown) => string[];

// Compiles with formats enforced and ajv's own messages kept: an unknown format is refused, never a keyword
// silently ignored or a line on stderr without our prefix.
export async function compileSchema({ schema, draft07, patterns }: SchemaSource): Promise<Check> {
  // ajv's default export differs between its CommonJS and ESM shapes; take whichever is the class.
  const mod = draft07 ? await import('ajv') : await import('ajv/dist/2020.js');
  const Ajv = ((mod as { default?: unknown }).default ?? mod) as AjvClass;
  const formatsMod = await import('ajv-formats');
  const addFormats = ((formatsMod as { default?: unknown }).default ?? formatsMod) as (a: AjvLike) => void;
  // The regex engine is loaded only for a schema that has a pattern.
  const regExp: RegExpEngine | undefined = patterns ? linearRegExp((await import('re2js')).RE2JS) : undefined;
  const said: string[] = [];
  const logger = {
    log: () => {},
    warn: (...m: unknown[]) => said.push(m.join(' ')),
    error: (...m: unknown[]) => said.push(m.join(' ')),
  };
  let validate: ValidateFunction;
  try {
    const ajv = new Ajv({ allErrors: true, strict: false, logger, ...(regExp ? { code: { regExp } } : {}) });
    addFormats(ajv);
    validate = ajv.compile(schema);
  } catch (e) {
    throw new SchemaRefused(` is not a valid JSON Schema: ${(e as Error).message}`);
  }
  const unknown = said.find((m) => /unknown format/.test(m));
  if (unknown)
    throw new SchemaRefused(
      `: ${unknown.replace(/ ignored/, '')}; rho-cursor enforces every format it takes (those of ajv-formats) and ignores none`,
    );
  return (value) => check(validate, value);
}

/** The line for a value nested deeper than MAX_DEPTH. */
export const TOO_DEEP = `(root) is nested deeper than ${MAX_DEPTH} levels: not checked, not a match`;

// One check: the errors as lines (at most MAX_ERROR_LINES and one that counts the rest), or why the value
// could not be checked (too deep).
function check(validate: ValidateFunction, value: unknown): string[] {
  if (depthOver(value, MAX_DEPTH)) return [TOO_DEEP];
  try {
    if (validate(value)) return [];
    const errors = validate.errors ?? [];
    // Only the lines given are made: a schema whose check is exponential may collect millions of errors.
    const lines = errors.slice(0, MAX_ERROR_LINES).map(describeError);
    if (errors.length > MAX_ERROR_LINES)
      lines.push(`(root) and ${errors.length - MAX_ERROR_LINES} more errors, not listed`);
    return lines;
  } catch (e) {
    // A last guard: validation is bounded above, but a stack overflow must never end the run.
    if (e instanceof RangeError) return [`(root) could not be checked: ${e.message}`];
    throw e;
  }
}

// Pure: is the value nested deeper than max levels (objects and arrays)? Iterative: any depth is safe.
export function depthOver(value: unknown, max: number): boolean {
  const todo: Array<[unknown, number]> = [[value, 0]];
  while (todo.length > 0) {
    const [v, d] = todo.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (d >= max) return true;
    for (const x of Array.isArray(v) ? v : Object.values(v))
      if (typeof x === 'object' && x !== null) todo.push([x, d + 1]);
  }
  return false;
}

// One validation error as a line a person and the agent can act on.
function describeError(e: ErrorObject): string {
  return `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`;
}
