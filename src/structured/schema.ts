// --output-schema: the user's JSON Schema (draft 2020-12 or draft-07), compiled once by ajv, and the
// words that ask the agent for a matching answer and, after a mismatch, for a corrected one.
import { readFileSync } from 'node:fs';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { RhoError } from '../errors.js';
import { fileErrorText, jsonErrorText } from '../file-errors.js';

// A usage error found inside the run says where to look, as one found before it does.
const HELP = { hint: 'see --help' };

export interface OutputSchema {
  path: string;
  /** The schema's text as the user wrote it, for the prompt. */
  text: string;
  validate(value: unknown): string[];
}

// Reads and compiles the schema; any problem is a usage error naming the file.
export async function loadOutputSchema(path: string): Promise<OutputSchema> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new RhoError('usage', `option '--output-schema' cannot read '${path}' (${fileErrorText(e)})`, HELP);
  }
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
  // ajv's default export differs between its CommonJS and ESM shapes; take whichever is the class.
  const mod = draft07 ? await import('ajv') : await import('ajv/dist/2020.js');
  const Ajv = ((mod as { default?: unknown }).default ?? mod) as new (o: object) => {
    compile(s: unknown): ValidateFunction;
  };
  let validate: ValidateFunction;
  try {
    validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
  } catch (e) {
    throw new RhoError(
      'usage',
      `option '--output-schema': ${path} is not a valid JSON Schema: ${(e as Error).message}`,
    );
  }
  return {
    path,
    text,
    validate: (value) => (validate(value) ? [] : (validate.errors ?? []).map(describeError)),
  };
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
