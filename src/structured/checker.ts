// --output-schema's compile and checks, off the main thread: in a worker (dist/schema-worker.cjs) with a heap
// of its own, which the run terminates at its deadline or a signal (the AbortSignal each wait takes) and when
// a check outlasts its time, and which V8 ends when it outgrows its heap. However exponential the schema's
// check (anyOf over refs, 2^L branches and errors), the main thread only waits: --timeout, signals and the
// run's end act at once. node:worker_threads is loaded only here, only by a run with --output-schema.
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { refusedSchema, type SchemaFile } from './schema.js';
import { depthOver, MAX_DEPTH, TOO_DEEP } from './validator.js';
import type { WorkerCheck, WorkerReply } from './worker.js';

export interface CheckLimits {
  /** The worker's heap (V8's old generation), MB: a compile or check that needs more is ended by V8. */
  heapMb: number;
  /** How long the schema's compile may take (a worker's start included). */
  compileMs: number;
  /** How long each check of an answer may take. */
  checkMs: number;
}

/** The product's limits: far above what any real schema and answer need (a check takes milliseconds). */
export const CHECK_LIMITS: Readonly<CheckLimits> = Object.freeze({
  heapMb: 256,
  compileMs: 15_000,
  checkMs: 15_000,
});

// How one wait on the worker ended: its reply, or why none came.
type Outcome<T> = { kind: 'reply'; reply: T } | { kind: 'memory' } | { kind: 'time' };

const seconds = (ms: number): string => `${ms / 1000} s`;

export class SchemaChecker {
  readonly path: string;
  readonly text: string;
  private worker: Worker | undefined;
  private ids = 0;
  private readonly limits: CheckLimits;

  constructor(
    private readonly file: SchemaFile,
    limits: Partial<CheckLimits> = {},
    // Next to the bundle's own file (dist/); a test of the source names the built one.
    private readonly workerFile: string = join(__dirname, 'schema-worker.cjs'),
  ) {
    this.path = file.path;
    this.text = file.text;
    this.limits = { ...CHECK_LIMITS, ...limits };
  }

  // Compiles the schema in a new worker; a schema ajv refuses, or whose compile outgrows the worker's time or
  // heap, is a usage error naming the file. Rejects with the signal's reason once it aborts.
  async start(signal?: AbortSignal): Promise<void> {
    const got = await this.spawn(signal);
    if (got.kind === 'reply' && got.reply.type === 'refused')
      throw refusedSchema(this.path, got.reply.detail);
    if (got.kind === 'reply') return;
    throw refusedSchema(
      this.path,
      got.kind === 'memory'
        ? ` could not be compiled within ${this.limits.heapMb} MB (the memory the schema's check is given)`
        : ` could not be compiled within ${seconds(this.limits.compileMs)} (the time the schema's compile is given)`,
    );
  }

  // One value's errors (none when it matches). A check that outgrows the worker's time or heap is a mismatch
  // whose one line says so (the worker is ended, and the next check starts another). Rejects with the
  // signal's reason once it aborts, the worker ended.
  async check(value: unknown, signal?: AbortSignal): Promise<string[]> {
    // Before the value is copied to the worker: the copy recurses once per level.
    if (depthOver(value, MAX_DEPTH)) return [TOO_DEEP];
    if (this.worker === undefined) {
      const got = await this.spawn(signal);
      if (got.kind !== 'reply' || got.reply.type !== 'ready') return [this.unfinished(got.kind)];
    }
    const worker = this.worker!;
    const id = ++this.ids;
    const got = await this.wait<string[]>(
      worker,
      (r) => (r.type === 'checked' && r.id === id ? r.errors : undefined),
      this.limits.checkMs,
      signal,
      () => worker.postMessage({ id, value } satisfies WorkerCheck),
    );
    return got.kind === 'reply' ? got.reply : [this.unfinished(got.kind)];
  }

  // Ends the worker (the run's teardown).
  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    if (w) await w.terminate();
  }

  private unfinished(kind: 'memory' | 'time' | 'reply'): string {
    return kind === 'time'
      ? `(root) could not be checked within ${seconds(this.limits.checkMs)} (the time one check is given): not a match`
      : `(root) could not be checked within ${this.limits.heapMb} MB (the memory one check is given): not a match`;
  }

  // A new worker, compiling the schema: its first word, or why none came.
  private async spawn(signal?: AbortSignal): Promise<Outcome<WorkerReply>> {
    signal?.throwIfAborted();
    const { Worker } = await import('node:worker_threads');
    const { schema, draft07, patterns } = this.file;
    const worker = new Worker(this.workerFile, {
      workerData: { schema, draft07, patterns },
      resourceLimits: { maxOldGenerationSizeMb: this.limits.heapMb },
      // Never on the run's own stdout and stderr (ajv's logger is ours; this is in case).
      stdout: true,
      stderr: true,
    });
    worker.stdout.resume();
    worker.stderr.resume();
    // An error while no wait listens (one racing a terminate) must not become the main thread's.
    worker.on('error', () => {});
    // An idle worker keeps nothing alive: each wait holds a timer of its own.
    worker.unref();
    this.worker = worker;
    return this.wait<WorkerReply>(
      worker,
      (r) => (r.type === 'checked' ? undefined : r),
      this.limits.compileMs,
      signal,
    );
  }

  // Waits for the reply pick() takes, at most `ms`; the worker is ended when the time is out, the signal
  // aborts (rejecting with its reason) or the worker dies (out of memory: `memory`; any other error rejects).
  private wait<T>(
    worker: Worker,
    pick: (r: WorkerReply) => T | undefined,
    ms: number,
    signal: AbortSignal | undefined,
    send?: () => void,
  ): Promise<Outcome<T>> {
    return new Promise<Outcome<T>>((resolve, reject) => {
      const end = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
      };
      const drop = (): void => {
        if (this.worker === worker) this.worker = undefined;
        void worker.terminate();
      };
      const onMessage = (r: WorkerReply): void => {
        const reply = pick(r);
        if (reply === undefined) return;
        end();
        resolve({ kind: 'reply', reply });
      };
      const onError = (e: Error & { code?: string }): void => {
        end();
        drop();
        if (e.code === 'ERR_WORKER_OUT_OF_MEMORY') resolve({ kind: 'memory' });
        else reject(e);
      };
      const onExit = (code: number): void => {
        end();
        drop();
        reject(new Error(`the schema check's worker exited (code ${code})`));
      };
      const onAbort = (): void => {
        end();
        drop();
        // The run's stop spine aborts with its RhoError, as every wait of the run rejects.
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
        reject(signal!.reason);
      };
      const timer = setTimeout(() => {
        end();
        drop();
        resolve({ kind: 'time' });
      }, ms);
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
      send?.();
    });
  }
}
