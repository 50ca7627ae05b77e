// A text chunk that carries nothing but its extra (an empty chunk: Claude's adapter sends them; or one whose
// one character waits for the rest of its surrogate pair) is still written in stream-json, for that extra;
// text mode and json draw nothing for it, as before.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { Event } from '../../../src/events/types.js';
import { Output } from '../../../src/render/output.js';
import { planOutput } from '../../../src/render/plan.js';
import type { Format } from '../../../src/options.js';

async function output(format: Format): Promise<{ out: Output; written: () => string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  stderr.resume();
  let text = '';
  stdout.on('data', (d: Buffer) => (text += d.toString()));
  const out = new Output({
    plan: planOutput({ format }),
    stdout: stdout as unknown as NodeJS.WriteStream,
    stderr: stderr as unknown as NodeJS.WriteStream,
    env: {},
  });
  await out.open();
  return {
    out,
    written: () => {
      out.flush(0);
      return text;
    },
  };
}

const HIGH = '\ud83d';
const LOW = '\ude00';
const chunk = (text: string, messageId?: string): Event => ({
  type: 'message',
  text,
  ...(messageId === undefined ? {} : { extra: { messageId } }),
});

describe('a chunk with no text but an extra', () => {
  it('is written in stream-json with its extra: an empty chunk (marker 9)', async () => {
    const { out, written } = await output('stream-json');
    expect(out.emit(chunk('', 'LOST-9'))).toEqual({
      type: 'message',
      text: '',
      extra: { messageId: 'LOST-9' },
    });
    await new Promise((r) => setImmediate(r));
    expect(written()).toBe('{"type":"message","text":"","extra":{"messageId":"LOST-9"}}\n');
  });

  it('and a chunk that only held half a surrogate pair, the half going out with the next (marker 10)', async () => {
    const { out, written } = await output('stream-json');
    out.emit(chunk(HIGH, 'LOST-10'));
    out.emit(chunk(`${LOW} ok`, 'KEPT-11'));
    await new Promise((r) => setImmediate(r));
    expect(
      written()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as unknown),
    ).toEqual([
      { type: 'message', text: '', extra: { messageId: 'LOST-10' } },
      { type: 'message', text: '😀 ok', extra: { messageId: 'KEPT-11' } },
    ]);
  });

  it('is still dropped without an extra', async () => {
    const { out, written } = await output('stream-json');
    expect(out.emit(chunk(''))).toBeUndefined();
    expect(out.emit(chunk(HIGH))).toBeUndefined();
    await new Promise((r) => setImmediate(r));
    expect(written()).toBe('');
  });

  it.each(['text', 'json'] as const)('draws nothing in %s, which shows no extra', async (format) => {
    const { out, written } = await output(format);
    expect(out.emit(chunk('', 'LOST-9'))).toBeUndefined();
    expect(out.emit(chunk(HIGH, 'LOST-10'))).toBeUndefined();
    await new Promise((r) => setImmediate(r));
    expect(written()).toBe('');
  });
});
