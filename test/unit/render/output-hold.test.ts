// While a question holds the output, what is read from the agent is held, up to MAX_HELD_BYTES: past it the
// agent's reader is asked to pause, and goes on once no question waits (or the output closed).
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { MAX_HELD_BYTES, Output } from '../../../src/render/output.js';
import { planOutput } from '../../../src/render/plan.js';

async function output(): Promise<{ out: Output; stdout: PassThrough }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  stderr.resume();
  const out = new Output({
    plan: planOutput({ format: 'text' }),
    stdout: stdout as unknown as NodeJS.WriteStream,
    stderr: stderr as unknown as NodeJS.WriteStream,
    env: {},
  });
  await out.open();
  return { out, stdout };
}

const chunk = (text: string) => ({ type: 'message' as const, text });

describe('Output while a question waits', () => {
  it('asks the reader to pause only past MAX_HELD_BYTES read, and resumes it at the answer', async () => {
    const { out, stdout } = await output();
    let drawn = '';
    stdout.on('data', (d: Buffer) => (drawn += d.toString()));
    out.hold();
    out.emit(chunk('held '));
    expect(out.flush(MAX_HELD_BYTES)).toBe(true);
    expect(out.flush(1)).toBe(false);
    let resumed = 0;
    out.whenWritable(() => resumed++);
    expect(resumed).toBe(0);
    await new Promise((r) => setImmediate(r));
    expect(drawn).toBe('');
    out.resume();
    expect(resumed).toBe(1);
    // The count starts again at the next question.
    out.hold();
    expect(out.flush(MAX_HELD_BYTES)).toBe(true);
    out.resume();
    out.emit(chunk('then'));
    out.flush(0);
    await new Promise((r) => setImmediate(r));
    expect(drawn).toBe('held then');
  });

  it('counts nothing while no question waits', async () => {
    const { out, stdout } = await output();
    stdout.resume();
    expect(out.flush(MAX_HELD_BYTES * 2)).toBe(true);
    out.hold();
    expect(out.flush(MAX_HELD_BYTES)).toBe(true);
  });

  it('lets a paused reader go on once the output closes, the question still open', async () => {
    const { out, stdout } = await output();
    stdout.resume();
    out.hold();
    expect(out.flush(MAX_HELD_BYTES + 1)).toBe(false);
    let resumed = 0;
    out.whenWritable(() => resumed++);
    await out.close({ type: 'result', exitCode: 0, stopReason: null } as never);
    expect(resumed).toBe(1);
  });
});
