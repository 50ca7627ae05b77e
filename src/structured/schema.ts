// --output-schema: the user's JSON Schema (draft 2020-12 or draft-07), read and checked at load, and the
// words that ask the agent for a matching answer and, after a mismatch, for a corrected one. The run compiles
// and checks it in a worker its deadline and signals can stop (src/structured/checker.ts); the compile and the
// check themselves are src/structured/validator.ts. Refused at load, before anything recursive touches it: a
// schema nested deeper than MAX_SCHEMA_DEPTH, and one that loops on the same value.
import { RhoError } from '../errors.js';
import { FileRefused, readUntrusted } from '../files/untrusted.js';
import { selfLoop } from './recursion.js';
import { depthOver, MAX_DEPTH, type SchemaSource } from './validator.js';
import { fileErrorText, jsonErrorText } from '../file-errors.js';

export { depthOver, MAX_DEPTH };

// A usage error found inside the run says where to look, as one found before it does.
const HELP = { hint: 'see --help' };

/** The schema as read at load: what the prompt quotes, and what the check compiles. */
export interface SchemaFile extends SchemaSource {
  path: string;
  /** The schema's text as the user wrote it, for the prompt. */
  text: string;
}

/** The deepest schema taken (objects and arrays, as JSON nests them): ajv compiles and checks recursively. */
export const MAX_SCHEMA_DEPTH = 256;

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

// Reads the schema and refuses at load what cannot be one, or could not be checked within bounds; nothing
// here recurses over the schema, whatever its depth. Any problem is a usage error naming the file.
export function readOutputSchema(path: string): SchemaFile {
  const text = readSchemaText(path);
  let schema: unknown;
  try {
    // V8's JSON.parse does not recurse: any depth parses.
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
  // Iterative, and first: ajv's compile, its checks and JSON.stringify below all recurse once per level.
  if (depthOver(schema, MAX_SCHEMA_DEPTH))
    throw new RhoError(
      'usage',
      `option '--output-schema': ${path} is nested deeper than ${MAX_SCHEMA_DEPTH} levels (the most rho-cursor takes in a schema)`,
    );
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
  const patterns = JSON.stringify(schema).includes('"pattern');
  return { path, text, schema, draft07, patterns };
}

/** The usage error for a schema ajv refused. */
export function refusedSchema(path: string, detail: string): RhoError {
  return new RhoError('usage', `option '--output-schema': ${path}${detail}`);
}

// Added to the prompt: end the answer with one JSON value matching the schema.
export function schemaInstruction(schema: { text: string }): string {
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
