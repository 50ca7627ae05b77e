// The --output-schema compile in the test's own thread: the reference the worker's answers are compared
// with, and the way the unit tests reach validator.ts through a schema file. The run itself compiles and
// checks in a worker (src/structured/checker.ts), which maps a refusal to the same usage error.
import { readOutputSchema, refusedSchema } from '../../src/structured/schema.js';
import { compileSchema, SchemaRefused } from '../../src/structured/validator.js';

export interface OutputSchema {
  path: string;
  text: string;
  validate(value: unknown): string[];
}

// Reads and compiles the schema; any problem is a usage error naming the file, as at a run's load.
export async function loadOutputSchema(path: string): Promise<OutputSchema> {
  const file = readOutputSchema(path);
  let validate;
  try {
    validate = await compileSchema(file);
  } catch (e) {
    if (e instanceof SchemaRefused) throw refusedSchema(path, e.detail);
    throw e;
  }
  return { path, text: file.text, validate };
}
