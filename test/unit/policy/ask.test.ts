import { EventEmitter } from 'node:events';
import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { processTerminal, terminalAsker, type Terminal } from '../../../src/policy/ask.js';
import { permissionQuestion, type TerminalQuestion } from '../../../src/policy/prompts.js';
import { readPermissionRequest } from '../../../src/policy/decide.js';

// A terminal whose input the test types, whose screen it reads, and whose "pending input delivered" it releases.
class FakeTerminal implements Terminal {
  readonly keys = new EventEmitter();
  readonly modes: boolean[] = [];
  readonly signals: string[] = [];
  screen = '';
  suspended = 0;
  paused = 0;
  /** Whatever the terminal delivers the moment its input resumes. */
  onResume: (() => void) | undefined;
  /** SIGCONT's listeners: others of the process may be there before the question's. */
  readonly conts = new EventEmitter();
  private releases: Array<() => void> = [];
  private exit: (() => void) | undefined;
  readonly input = {
    setRawMode: (raw: boolean) => this.modes.push(raw),
    on: (e: 'data' | 'end', f: (d?: Buffer | string) => void) => this.keys.on(e, f),
    off: (e: 'data' | 'end', f: (d?: Buffer | string) => void) => this.keys.off(e, f),
    resume: () => this.onResume?.(),
    pause: () => this.paused++,
  };
  readonly output = { write: (s: string) => (this.screen += s) };
  signal = (s: 'SIGINT' | 'SIGQUIT'): void => void this.signals.push(s);
  suspend = (): void => void this.suspended++;
  onContinue = (fn: () => void): (() => void) => {
    this.conts.on('cont', fn);
    return () => this.conts.off('cont', fn);
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
    this.conts.emit('cont');
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

  // Found by review: a terminal that hung up ended the input, which was taken for the person's Ctrl-D.
  it('answers nothing when the input ends (the terminal went away), writes nothing more, restores the mode', async () => {
    const { t, answer } = await setup();
    await t.release();
    const before = t.screen;
    t.keys.emit('end');
    expect(await answer).toBeUndefined();
    expect(t.screen).toBe(before);
    expect(t.raw).toBe(false);
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

const LINES =
  'Cursor asks permission to execute: `rm -rf build`\n  command: rm -rf build\n  reason: Shell allowlist is empty\n';
const MENU = '[a] allow once  [r] reject once > ';

describe('terminalAsker: how a question ends', () => {
  it('ends the line of an answer it takes', async () => {
    const { t, answer } = await setup();
    await t.release();
    t.type('a\r');
    await answer;
    expect(t.screen).toBe(LINES + MENU + 'a\n');
  });

  it('turns Ctrl-\\ into SIGQUIT, shown as ^\\', async () => {
    const { t, abort, answer } = await setup();
    await t.release();
    t.type('\x1c');
    expect(t.signals).toEqual(['SIGQUIT']);
    expect(t.screen).toBe(LINES + MENU + '^\\');
    abort.abort();
    await answer;
  });

  it('shows ^Z and a new line on Ctrl-Z', async () => {
    const { t, abort, answer } = await setup();
    await t.release();
    t.type('\x1a');
    expect(t.screen).toBe(LINES + MENU + '^Z\n');
    abort.abort();
    await answer;
  });

  it('ends a question with no reject choice cancelled on Ctrl-D', async () => {
    const t = new FakeTerminal();
    const q: TerminalQuestion = { ...question, choices: question.choices.slice(0, 1), eof: undefined };
    const answer = terminalAsker(t).choose(q, new AbortController().signal);
    await tick();
    await t.release();
    t.type('\x04');
    expect(await answer).toBeUndefined();
    expect(t.screen).toBe(LINES + '[a] allow once > ^D → cancelled\n');
  });

  it('leaves no listener behind on the input or on the request’s signal', async () => {
    const { t, abort, answer } = await setup();
    await t.release();
    expect(t.keys.listenerCount('data')).toBe(1);
    expect(getEventListeners(abort.signal, 'abort')).toHaveLength(1);
    t.type('a\r');
    await answer;
    expect(t.keys.listenerCount('data')).toBe(0);
    expect(t.keys.listenerCount('end')).toBe(0);
    expect(t.conts.listenerCount('cont')).toBe(0);
    expect(getEventListeners(abort.signal, 'abort')).toHaveLength(0);
  });

  it('draws no menu for a question that closed before its pending input was read', async () => {
    const { t, abort, answer } = await setup();
    abort.abort();
    await t.release();
    expect(await answer).toBeUndefined();
    expect(t.screen).toBe(LINES + '\n(cancelled)\n');
  });

  // It drew the question again once (found by review: that was the second drawing after Ctrl-Z, `bg`, `fg`).
  it('draws nothing again for a SIGCONT that ends no stop of its own, and stays raw', async () => {
    const { t, answer } = await setup();
    t.continued();
    expect(t.raw).toBe(true);
    await t.release();
    expect(t.screen).toBe(LINES + MENU);
    t.type('r\r');
    expect((await answer)?.value).toBe('reject-once');
  });

  // `bg` continues the process, setting the mode stops it again (SIGTTOU), and `fg` continues it once more.
  it('draws the question once after two continues in a row (Ctrl-Z, `bg`, `fg`)', async () => {
    const { t, answer } = await setup();
    await t.release();
    t.type('\x1a');
    const before = t.screen.length;
    t.continued();
    t.continued();
    await t.release();
    expect(t.screen.slice(before)).toBe(LINES + MENU);
    t.type('r\r');
    expect((await answer)?.value).toBe('reject-once');
  });

  it('closes once when the input ends because the request was withdrawn at that moment', async () => {
    const t = new FakeTerminal();
    const abort = new AbortController();
    t.keys.on('end', () => abort.abort());
    const answer = terminalAsker(t).choose(question, abort.signal);
    await tick();
    await t.release();
    t.keys.emit('end');
    expect(await answer).toBeUndefined();
    expect(t.screen).toBe(LINES + MENU + '\n(cancelled)\n');
    expect(t.paused).toBe(1);
  });

  it('stays closed, and the terminal cooked, when a SIGCONT listener before it withdraws the request', async () => {
    const t = new FakeTerminal();
    const abort = new AbortController();
    t.conts.on('cont', () => abort.abort());
    const answer = terminalAsker(t).choose(question, abort.signal);
    await tick();
    await t.release();
    t.continued();
    expect(await answer).toBeUndefined();
    expect(t.screen).toBe(LINES + MENU + '\n(cancelled)\n');
    expect(t.raw).toBe(false);
  });

  it('ignores what the terminal delivers the moment its input resumes', async () => {
    const t = new FakeTerminal();
    t.onResume = () => t.type('a\r');
    const answer = terminalAsker(t).choose(question, new AbortController().signal);
    await tick();
    await t.release();
    t.type('r\r');
    expect((await answer)?.value).toBe('reject-once');
  });

  it('types nothing for a data event without a chunk, and takes a string chunk as it is', async () => {
    const { t, answer } = await setup();
    await t.release();
    t.keys.emit('data');
    t.keys.emit('data', 'r');
    expect(t.screen).toBe(LINES + MENU + 'r');
    t.keys.emit('data', '\r');
    expect((await answer)?.value).toBe('reject-once');
  });
});

describe('processTerminal: the process’s own terminal', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  const streams = () => ({
    input: { on() {}, off() {} } as unknown as NodeJS.ReadStream,
    output: { write: () => true } as unknown as NodeJS.WritableStream,
  });

  it('uses the streams it is given', () => {
    const { input, output } = streams();
    const t = processTerminal(input, output);
    expect(t.input).toBe(input);
    expect(t.output).toBe(output);
  });

  it('sends Ctrl-C’s and Ctrl-\\’s signal to this process, and Ctrl-Z’s SIGTSTP to its group', () => {
    const kill = vi.spyOn(process, 'kill').mockImplementation(() => true);
    const { input, output } = streams();
    const t = processTerminal(input, output);
    t.signal('SIGINT');
    t.signal('SIGQUIT');
    t.suspend();
    expect(kill.mock.calls).toEqual([
      [process.pid, 'SIGINT'],
      [process.pid, 'SIGQUIT'],
      [0, 'SIGTSTP'],
    ]);
  });

  it.each([
    ['SIGCONT', 'onContinue'],
    ['exit', 'onExit'],
  ] as const)('subscribes to %s with %s until unsubscribed', (event, method) => {
    const { input, output } = streams();
    const t = processTerminal(input, output);
    const fn = (): void => {};
    const off = t[method](fn);
    const listeners = (): unknown[] => process.listeners(event as 'exit');
    expect(listeners()).toContain(fn);
    off();
    expect(listeners()).not.toContain(fn);
  });

  it('says pending input is delivered after a second check phase, not the first', async () => {
    const { input, output } = streams();
    const t = processTerminal(input, output);
    const order: string[] = [];
    const delivered = t.pendingDelivered().then(() => order.push('delivered'));
    setImmediate(() => order.push('first check phase'));
    const late = new Promise((r) => setTimeout(r, 200));
    await Promise.race([delivered, late]);
    expect(order).toEqual(['first check phase', 'delivered']);
  });
});
