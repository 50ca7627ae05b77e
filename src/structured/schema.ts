// --output-schema: the user's JSON Schema (draft 2020-12 or draft-07), compiled once by ajv, and the
// words that ask the agent for a matching answer and, after a mismatch, for a corrected one.
// Bounded whatever the schema: `pattern` runs on a linear-time engine (re2js), a schema that loops on the
// same value is refused at load, `format` is enforced (ajv-formats), and a value nested deeper than
// MAX_DEPTH is a mismatch, never a stack overflow.
import type { ErrorObject, ValidateFunction } from 'ajv';
import { RhoError } from '../errors.js';
import { FileRefused, readUntrusted } from '../files/untrusted.js';
import { linearRegExp, type RegExpEngine } from './regexp.js';
import { selfLoop } from './recursion.js';
import { fileErrorText, jsonErrorText } from '../file-errors.js';

// A usage error found inside the run says where to look, as one found before it does.
const HELP = { hint: 'see --help' };

export interface OutputSchema {
  path: string;
  /** The schema's text as the user wrote it, for the prompt. */
  text: string;
  validate(value: unknown): string[];
}

/** The deepest value checked against the schema: ajv's validators recurse once per level. */
export const MAX_DEPTH = 512;

type AjvLike = {
  compile(s: unknown): ValidateFunction;
};
type AjvClass = new (o: object) => AjvLike;

// The schema file's text, within bounds (a regular file, at most 1 MiB); anything else is a usage error.
function readSchemaText(path: string): string {
  try {
    return readUntrusted(path, 'schema').toString('utf8');
  } catch (e) {
    if (!(e instanceof FileRefused)) throw e;
    const r = e.refusal;
    const why = r.reason === 'missing' ? 'ENOENT' : r.reason === 'unreadable' ? r.code : undefined;
    throw new RhoError(
      'usage',
      why
        ? `option '--output-schema' cannot read '${path}' (${fileErrorText({ code: why })})`
        : `option '--output-schema': ${e.message}`,
      HELP,
    );
  }
}

// Reads and compiles the schema; any problem is a usage error naming the file.
export async function loadOutputSchema(path: string): Promise<OutputSchema> {
  const text = readSchemaText(path);
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch (e) {
    throw new RhoError(
      'usage',
      `option '--output-schema': ${path} is not valid JSON (${jsonErrorText(e)})`,
      HELP,
    );
  }
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    if (typeof schema !== 'boolean')
      throw new RhoError('usage', `option '--output-schema': ${path} must hold a JSON Schema object`);
  }
  const $schema =
    typeof schema === 'object' && schema !== null ? (schema as { $schema?: unknown }).$schema : undefined;
  const draft07 = typeof $schema === 'string' && /draft-07/.test($schema);
  // Other drafts would fail deep in ajv with "no schema with key or ref": say which ones are taken.
  if (typeof $schema === 'string' && !draft07 && !/\/2020-12\//.test($schema))
    throw new RhoError(
      'usage',
      `option '--output-schema': ${path} declares $schema ${$schema}; rho-cursor takes draft 2020-12 or draft-07 (or no $schema, read as 2020-12)`,
    );
  const loop = selfLoop(schema);
  if (loop !== undefined)
    throw new RhoError(
      'usage',
      `option '--output-schema': ${path} refers to itself at ${loop} without moving into a property or an item: validation would never end`,
    );
  // Looked for in the parsed schema: the text may spell a key with escapes ("\u0070attern").
  const validate = await compile(path, schema, draft07, JSON.stringify(schema).includes('"pattern'));
  return {
    path,
    text,
    validate: (value) => check(validate, value),
  };
}

// Compiles with formats enforced and ajv's own messages kept: an unknown format is a usage error, never a
// keyword silently ignored or a line on stderr without our prefix.
async function compile(
  path: string,
  schema: unknown,
  draft07: boolean,
  patterns: boolean,
): Promise<ValidateFunction> {
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
    throw new RhoError(
      'usage',
      `option '--output-schema': ${path} is not a valid JSON Schema: ${(e as Error).message}`,
    );
  }
  const unknown = said.find((m) => /unknown format/.test(m));
  if (unknown)
    throw new RhoError(
      'usage',
      `option '--output-schema': ${path}: ${unknown.replace(/ ignored/, '')}; rho-cursor enforces every format it takes (those of ajv-formats) and ignores none`,
    );
  return validate;
}

// One check: the errors as lines, or why the value could not be checked (too deep).
function check(validate: ValidateFunction, value: unknown): string[] {
  if (depthOver(value, MAX_DEPTH))
    return [`(root) is nested deeper than ${MAX_DEPTH} levels: not checked, not a match`];
  try {
    return validate(value) ? [] : (validate.errors ?? []).map(describeError);
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

// Added to the prompt: end the answer with one JSON value matching the schema.
export function schemaInstruction(schema: OutputSchema): string {
  return [
    '',
    'End your answer with one JSON value that matches this JSON Schema, as a fenced ```json block,',
    'and put nothing after it:',
    '',
    '```json',
    schema.text.trim(),
    '```',
  ].join('\n');
}

// The follow-up prompt after a mismatch.
/** How many validation errors a follow-up prompt lists. */
export const RETRY_ERRORS_SHOWN = 20;

export function retryPrompt(errors: string[]): string {
  // A large invalid array can give thousands of errors: the first ones say enough to correct it.
  const shown = errors
    .slice(0, RETRY_ERRORS_SHOWN)
    .map((e) => `- ${e.length > 300 ? e.slice(0, 299) + '…' : e}`);
  if (errors.length > RETRY_ERRORS_SHOWN) shown.push(`- and ${errors.length - RETRY_ERRORS_SHOWN} more`);
  return [
    'Your answer did not end with a JSON value matching the schema:',
    ...shown,
    '',
    'Answer again: end with one ```json block holding a value that matches the schema, and nothing after it.',
  ].join('\n');
}
