import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { terminalAsker, type Terminal } from '../../../src/policy/ask.js';
import { permissionQuestion } from '../../../src/policy/prompts.js';
import { readPermissionRequest } from '../../../src/policy/decide.js';

// A terminal whose input the test types, whose screen it reads, and whose "pending input delivered" it releases.
class FakeTerminal implements Terminal {
  readonly keys = new EventEmitter();
  readonly modes: boolean[] = [];
  readonly signals: string[] = [];
  screen = '';
  suspended = 0;
  paused = 0;
  private releases: Array<() => void> = [];
  private cont: (() => void) | undefined;
  private exit: (() => void) | undefined;
  readonly input = {
    setRawMode: (raw: boolean) => this.modes.push(raw),
    on: (e: 'data' | 'end', f: (d?: Buffer | string) => void) => this.keys.on(e, f),
    off: (e: 'data' | 'end', f: (d?: Buffer | string) => void) => this.keys.off(e, f),
    resume: () => {},
    pause: () => this.paused++,
  };
  readonly output = { write: (s: string) => (this.screen += s) };
  signal = (s: 'SIGINT' | 'SIGQUIT'): void => void this.signals.push(s);
  suspend = (): void => void this.suspended++;
  onContinue = (fn: () => void): (() => void) => {
    this.cont = fn;
    return () => (this.cont = undefined);
  };
  onExit = (fn: () => void): (() => void) => {
    this.exit = fn;
    return () => (this.exit = undefined);
  };
  pendingDelivered = (): Promise<void> => new Promise((r) => this.releases.push(r));

  type(s: string): void {
    this.keys.emit('data', Buffer.from(s));
  }
  // The input that was waiting has been read: from now on keys count.
  async release(): Promise<void> {
    for (const r of this.releases.splice(0)) r();
    await new Promise((r) => setImmediate(r));
  }
  continued(): void {
    this.cont?.();
  }
  exited(): void {
    this.exit?.();
  }
  get raw(): boolean | undefined {
    return this.modes.at(-1);
  }
}

const req = readPermissionRequest({
  toolCall: {
    toolCallId: 't',
    title: '`rm -rf build`',
    kind: 'execute',
    content: [{ type: 'content', content: { type: 'text', text: 'Shell allowlist is empty' } }],
  },
  options: [
    { optionId: 'allow-once', name: 'Allow once', kind: 'allow_once' },
    { optionId: 'reject-once', name: 'Reject', kind: 'reject_once' },
  ],
});
const question = permissionQuestion(req, { command: 'rm -rf build' });

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

// A question on a fake terminal, shown (questions wait their turn, so it shows a tick later).
async function setup() {
  const t = new FakeTerminal();
  const abort = new AbortController();
  const answer = terminalAsker(t).choose(question, abort.signal);
  await tick();
  return { t, abort, answer };
}

describe('terminalAsker', () => {
  it('shows the question in raw mode, the menu once pending input is read, and takes a key', async () => {
    const { t, answer } = await setup();
    expect(t.screen).toBe(
      'Cursor asks permission to execute: `rm -rf build`\n  command: rm -rf build\n  reason: Shell allowlist is empty\n',
    );
    await t.release();
    expect(t.screen).toBe(
      'Cursor asks permission to execute: `rm -rf build`\n  command: rm -rf build\n  reason: Shell allowlist is empty\n[a] allow once  [r] reject once > ',
    );
    expect(t.raw).toBe(true);
    t.type('a\r');
    expect((await answer)?.value).toBe('allow-once');
    expect(t.raw).toBe(false);
    expect(t.paused).toBe(1);
  });

  it('discards what was typed before the question showed', async () => {
    const { t, answer } = await setup();
    t.type('a\r');
    t.type('a');
    await t.release();
    t.type('r\r');
    expect((await answer)?.value).toBe('reject-once');
    expect(t.screen).not.toMatch(/> a/);
  });

  it('takes an option label', async () => {
    const { t, answer } = await setup();
    await t.release();
    t.type('Reject Once\r');
    expect((await answer)?.value).toBe('reject-once');
  });

  it('asks again with a hint of what it takes after an answer it cannot read', async () => {
    const { t, answer } = await setup();
    await t.release();
    t.type('yes\r');
    expect(t.screen).toContain(
      "> yes\n  'yes' is not an answer: type a or r (or an option's name) and Enter; Ctrl-D: reject once\n[a] allow once  [r] reject once > ",
    );
    t.type('\r');
    expect(t.screen).toMatch(/\n {2}type a or r/);
    t.type('r\r');
    expect((await answer)?.value).toBe('reject-once');
  });

  it('answers reject once on Ctrl-D and restores the terminal', async () => {
    const { t, answer } = await setup();
    await t.release();
    t.type('\x04');
    expect((await answer)?.value).toBe('reject-once');
    expect(t.screen).toMatch(/\^D → reject once\n$/);
    expect(t.raw).toBe(false);
  });

  it('answers reject once when the input ends', async () => {
    const { t, answer } = await setup();
    await t.release();
    t.keys.emit('end');
    expect((await answer)?.value).toBe('reject-once');
  });

  it('turns Ctrl-C into SIGINT, and an abort ends the question cancelled with the mode restored', async () => {
    const { t, abort, answer } = await setup();
    await t.release();
    t.type('\x03');
    expect(t.signals).toEqual(['SIGINT']);
    abort.abort();
    expect(await answer).toBeUndefined();
    expect(t.screen).toMatch(/\^C\n\(cancelled\)\n$/);
    expect(t.raw).toBe(false);
  });

  it('on Ctrl-Z restores the mode and stops; after fg it is raw again, redrawn, and working', async () => {
    const { t, answer } = await setup();
    await t.release();
    t.type('x\x1a');
    expect(t.modes).toEqual([true, false]);
    expect(t.suspended).toBe(1);
    t.type('a\r'); // typed while stopped: never an answer
    const before = t.screen.length;
    t.continued();
    expect(t.raw).toBe(true);
    t.type('a\r'); // typed before the redraw was read
    await t.release();
    expect(t.screen.slice(before)).toBe(
      'Cursor asks permission to execute: `rm -rf build`\n  command: rm -rf build\n  reason: Shell allowlist is empty\n[a] allow once  [r] reject once > x',
    );
    t.type('\x7fr\r');
    expect((await answer)?.value).toBe('reject-once');
    expect(t.raw).toBe(false);
  });

  it('restores the mode if the process exits at the question', async () => {
    const { t } = await setup();
    t.exited();
    expect(t.raw).toBe(false);
  });

  it('does not touch the terminal for a request already cancelled', async () => {
    const t = new FakeTerminal();
    const abort = new AbortController();
    abort.abort();
    expect(await terminalAsker(t).choose(question, abort.signal)).toBeUndefined();
    expect(t.screen).toBe('');
    expect(t.modes).toEqual([]);
  });

  it('asks one question at a time', async () => {
    const t = new FakeTerminal();
    const asker = terminalAsker(t);
    const first = asker.choose(question, new AbortController().signal);
    const second = asker.choose(question, new AbortController().signal);
    await tick();
    expect(t.screen.match(/Cursor asks/g)).toHaveLength(1);
    await t.release();
    t.type('a\r');
    expect((await first)?.value).toBe('allow-once');
    await tick();
    expect(t.screen.match(/Cursor asks/g)).toHaveLength(2);
    t.type('r\r'); // before the second question's pending input was read: ignored
    await t.release();
    t.type('r\r');
    expect((await second)?.value).toBe('reject-once');
  });
});
