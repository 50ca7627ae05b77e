// The schema worker (dist/schema-worker.cjs): a thread of its own, with a heap of its own, that compiles the
// --output-schema it is started with and then checks each value it is sent. The run terminates it at its
// deadline or a signal, and whenever a check outlasts its time; V8 ends it when it outgrows its heap
// (src/structured/checker.ts). Nothing here needs to be bounded: all of it can be stopped from outside.
import { parentPort, workerData } from 'node:worker_threads';
import { compileSchema, SchemaRefused, type Check, type SchemaSource } from './validator.js';

/** What the worker says: compiled, refused (the schema is not one ajv takes), or one check's errors. */
export type WorkerReply =
  { type: 'ready' } | { type: 'refused'; detail: string } | { type: 'checked'; id: number; errors: string[] };

/** What the run sends: one value to check. */
export interface WorkerCheck {
  id: number;
  value: unknown;
}

async function serve(): Promise<void> {
  const port = parentPort!;
  const say = (r: WorkerReply): void => port.postMessage(r);
  let check: Check;
  try {
    check = await compileSchema(workerData as SchemaSource);
  } catch (e) {
    // Anything else is the worker's error event, which the run reports.
    if (e instanceof SchemaRefused) return say({ type: 'refused', detail: e.detail });
    throw e;
  }
  port.on('message', (m: WorkerCheck) => say({ type: 'checked', id: m.id, errors: check(m.value) }));
  say({ type: 'ready' });
}

void serve();
