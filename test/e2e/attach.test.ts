// --attach: what the agent receives for text files and images, and the files refused before any spawn.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, makeAgentDir } from '../helpers/agent-path.js';
import { finish, startCli, tempDir } from '../helpers/cli.js';

const SJ = ['--output-format', 'stream-json'];
const agentPath = makeAgentDir(join(FIXTURES, 'scripted.mjs')).then((d) => join(d, 'cursor-agent'));
const PNG = Buffer.from([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52,
]);

const initialize = (promptCapabilities: object) => ({
  result: {
    protocolVersion: 1,
    agentCapabilities: { loadSession: false, promptCapabilities },
    authMethods: [],
  },
});

// Runs in a workspace holding the given files; returns the run and the session/prompt params received.
async function attachRun(files: Record<string, string | Buffer>, args: string[], caps: object = {}) {
  const dir = tempDir();
  const ws = join(dir, 'ws');
  mkdirSync(join(ws, 'docs'), { recursive: true });
  for (const [name, body] of Object.entries(files)) writeFileSync(join(ws, name), body);
  const recvLog = join(dir, 'recv');
  const r = await finish(
    startCli(['run', ...SJ, ...args], {
      agent: await agentPath,
      cwd: ws,
      cliConfig: { approvalMode: 'allowlist' },
      env: {
        RHO_SCRIPT: JSON.stringify({ initialize: initialize(caps), recvLog, pidFile: join(dir, 'pid') }),
      },
    }),
    true,
  );
  let received: Array<{ method?: string; params?: { prompt?: unknown[] } }> = [];
  try {
    received = readFileSync(recvLog, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { method?: string });
  } catch {
    // nothing was spawned
  }
  const prompt = received.find((m) => m.method === 'session/prompt')?.params?.prompt;
  return { r, prompt, received, spawned: received.length > 0 };
}

describe('--attach', () => {
  it('a text file goes inline after the prompt, headed by its path in the workspace', async () => {
    const { r, prompt } = await attachRun({ 'docs/notes.md': '# Notes\nuse tabs\n' }, [
      'review',
      '--attach',
      'docs/notes.md',
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(prompt).toEqual([{ type: 'text', text: 'review\n\ndocs/notes.md:\n```\n# Notes\nuse tabs\n```' }]);
  });

  // Found by review: a name that starts with two dots was taken for a path out of the workspace.
  it('a file whose name starts with two dots is headed by its path in the workspace', async () => {
    const { r, prompt } = await attachRun({ '..dots.txt': 'd\n' }, ['see', '--attach', '..dots.txt']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(prompt).toEqual([{ type: 'text', text: 'see\n\n..dots.txt:\n```\nd\n```' }]);
  });

  it('as an embedded resource where the agent advertises embeddedContext', async () => {
    const { r, prompt } = await attachRun({ 'a.txt': 'A' }, ['review', '--attach', 'a.txt'], {
      embeddedContext: true,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(prompt).toHaveLength(2);
    expect(prompt![1]).toMatchObject({ type: 'resource', resource: { mimeType: 'text/plain', text: 'A' } });
    expect((prompt![1] as { resource: { uri: string } }).resource.uri).toMatch(/^file:\/\/\/.*\/ws\/a\.txt$/);
  });

  it('an image, told by its content whatever its name, is an image block', async () => {
    const { r, prompt } = await attachRun({ 'shot.bin': PNG }, ['what is this', '--attach', 'shot.bin'], {
      image: true,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(prompt).toEqual([
      { type: 'text', text: 'what is this' },
      { type: 'image', mimeType: 'image/png', data: PNG.toString('base64') },
    ]);
  });

  it('an image for an agent that takes none is exit 2 once initialize said so, and no session is made', async () => {
    const { r, received } = await attachRun({ 'shot.png': PNG }, ['see', '--attach', 'shot.png']);
    expect(r.exitCode).toBe(2);
    expect(r.events.at(-1)).toMatchObject({ type: 'result', error: { code: 'capability_missing' } });
    expect(r.stderr).toMatch(/does not take images.*'shot.png'/);
    expect(received.map((m) => m.method)).toEqual(['initialize']);
  });

  it.each([
    ['missing.md', {}, /'--attach' cannot read 'missing.md' \(no such file\)/],
    ['bin.dat', { 'bin.dat': Buffer.from([1, 2, 0, 3]) }, /'bin.dat' is binary/],
    ['big.txt', { 'big.txt': 'x'.repeat(10 * 1024 * 1024 + 1) }, /up to 10 MiB: 'big.txt' is 10.0 MiB/],
    ['docs', {}, /takes a file: 'docs' is not one/],
  ])('%s is a usage error before anything is spawned', async (name, files, message) => {
    const { r, spawned } = await attachRun(files, ['go', '--attach', name]);
    expect(r.exitCode).toBe(2);
    expect(spawned).toBe(false);
    expect(r.events).toHaveLength(1);
    expect(r.events[0]).toMatchObject({ type: 'result', error: { code: 'usage' } });
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  // Found by review: 55 attachments of 10 MiB each ended as `internal` "Invalid string length" after the
  // agent was spawned (13 s, 650 MB): nothing bounded what they add up to.
  const MiB = 1024 * 1024;
  const image = (mib: number): Buffer => Buffer.concat([PNG, Buffer.alloc(mib * MiB)]);
  it.each([
    [
      'text files',
      {
        'a.txt': 'a'.repeat(9 * MiB),
        'b.txt': 'b'.repeat(9 * MiB),
        'c.txt': 'c'.repeat(9 * MiB),
        'd.txt': 'd'.repeat(9 * MiB),
      },
      ['go', '--attach', 'a.txt', '--attach', 'b.txt', '--attach', 'c.txt', '--attach', 'd.txt'],
      /at 'd.txt'/,
    ],
    // 25.5 MiB of images is 34 MiB as base64, which is what the agent is sent.
    [
      'images, counted as base64',
      { 'a.png': image(8.5), 'b.png': image(8.5), 'c.png': image(8.5) },
      ['go', '--attach', 'a.png', '--attach', 'b.png', '--attach', 'c.png'],
      /at 'c.png'/,
    ],
    [
      'the prompt with them',
      {
        'p.md': 'p'.repeat(9 * MiB),
        'a.txt': 'a'.repeat(9 * MiB),
        'b.txt': 'b'.repeat(9 * MiB),
        'c.txt': 'c'.repeat(6 * MiB),
      },
      ['-f', 'p.md', '--attach', 'a.txt', '--attach', 'b.txt', '--attach', 'c.txt'],
      /the prompt and its attachments come to 33 MiB: they may add up to 32 MiB/,
    ],
  ])(
    '%s past 32 MiB in all: a usage error naming the cap, before anything is spawned',
    async (_, files, args, where) => {
      const { r, spawned } = await attachRun(files, args, { image: true });
      expect(r.exitCode, r.stderr).toBe(2);
      expect(spawned).toBe(false);
      expect(r.events).toEqual([
        expect.objectContaining({ type: 'result', error: expect.objectContaining({ code: 'usage' }) }),
      ]);
      expect(r.stderr).toMatch(/32 MiB/);
      expect(r.stderr).toMatch(where);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    },
  );
});
