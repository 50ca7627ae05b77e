import { describe, expect, it } from 'vitest';
import {
  checkPromptTotal,
  PROMPT_TOTAL_CAP,
  asText,
  classifyAttachment,
  inlineFile,
  promptBlocks,
  promptCaps,
  shownPath,
  sniffImage,
  type Attachment,
} from '../../../src/prompt/attach.js';
import { fenceFor } from '../../../src/markdown.js';

const bytes = (...xs: number[]): Uint8Array => Uint8Array.from(xs);
const PNG = bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13);
const JPEG = bytes(0xff, 0xd8, 0xff, 0xe0, 0, 16);
const GIF = Uint8Array.from(Buffer.from('GIF89a\x01\x00', 'latin1'));
const WEBP = Uint8Array.from(Buffer.from('RIFF\x10\x00\x00\x00WEBPVP8 ', 'latin1'));
const text = (path: string, t: string): Attachment => classifyAttachment(path, `/w/${path}`, Buffer.from(t));

describe('sniffImage', () => {
  it.each([
    [PNG, 'image/png'],
    [JPEG, 'image/jpeg'],
    [GIF, 'image/gif'],
    [WEBP, 'image/webp'],
  ])('tells %s by its content', (b, mime) => expect(sniffImage(b)).toBe(mime));

  it('is not fooled by a name or a near miss', () => {
    expect(sniffImage(Buffer.from('GIF87'))).toBeUndefined();
    expect(sniffImage(Buffer.from('RIFF\x10\x00\x00\x00WAVE', 'latin1'))).toBeUndefined();
    expect(sniffImage(bytes(0x89, 0x50))).toBeUndefined();
    expect(sniffImage(Buffer.from('just text'))).toBeUndefined();
  });
});

describe('classifyAttachment', () => {
  it('an image becomes base64 data with its type', () => {
    const a = classifyAttachment('shot.dat', '/w/shot.dat', PNG);
    expect(a).toEqual({
      kind: 'image',
      path: 'shot.dat',
      mimeType: 'image/png',
      data: Buffer.from(PNG).toString('base64'),
    });
  });

  it('UTF-8 text is text; NUL bytes or invalid UTF-8 are binary, a usage error', () => {
    expect(text('a.md', 'héllo ✓\n')).toMatchObject({
      kind: 'text',
      text: 'héllo ✓\n',
      uri: 'file:///w/a.md',
    });
    expect(asText(bytes(0x61, 0, 0x62))).toBeUndefined();
    expect(asText(bytes(0xc3, 0x28))).toBeUndefined();
    expect(() => classifyAttachment('x.bin', '/w/x.bin', bytes(1, 2, 0, 3))).toThrow(
      /'--attach' takes text files and PNG, JPEG, GIF or WebP images: 'x.bin' is binary/,
    );
  });

  it('percent-encodes the resource URI', () => {
    expect(classifyAttachment('my notes#1.md', '/w/my notes#1.md', Buffer.from('x'))).toMatchObject({
      uri: 'file:///w/my%20notes%231.md',
    });
  });
});

describe('inline text files', () => {
  it('are fenced under their path, with a fence the content cannot close', () => {
    expect(fenceFor('no ticks')).toBe('```');
    expect(fenceFor('a ```` b')).toBe('`````');
    const a = text('src/x.ts', 'const a = "```";');
    expect(inlineFile(a as Extract<Attachment, { kind: 'text' }>)).toBe(
      'src/x.ts:\n````\nconst a = "```";\n````',
    );
  });
});

describe('promptBlocks', () => {
  const none = { image: false, embeddedContext: false };
  const img = classifyAttachment('a.png', '/w/a.png', PNG);
  const notes = text('notes.md', 'remember\n');

  it('without attachments is the one text block', () => {
    expect(promptBlocks('go', [], none)).toEqual([{ type: 'text', text: 'go' }]);
  });

  it('text files go inline after the prompt, in order', () => {
    const blocks = promptBlocks('review', [notes, text('b.txt', 'B')], none);
    expect(blocks).toEqual([
      { type: 'text', text: 'review\n\nnotes.md:\n```\nremember\n```\n\nb.txt:\n```\nB\n```' },
    ]);
  });

  it('as embedded resources where the agent takes them', () => {
    expect(promptBlocks('review', [notes], { image: false, embeddedContext: true })).toEqual([
      { type: 'text', text: 'review' },
      {
        type: 'resource',
        resource: { uri: 'file:///w/notes.md', mimeType: 'text/plain', text: 'remember\n' },
      },
    ]);
  });

  it('images are image blocks for an agent that takes them, and refused (exit 2) for one that does not', () => {
    expect(promptBlocks('see', [img], { image: true, embeddedContext: false })[1]).toMatchObject({
      type: 'image',
      mimeType: 'image/png',
    });
    expect(() => promptBlocks('see', [img], none)).toThrow(/does not take images.*'a.png'/);
    try {
      promptBlocks('see', [img], none);
    } catch (e) {
      expect((e as { exitCode: number; code: string }).exitCode).toBe(2);
      expect((e as { code: string }).code).toBe('capability_missing');
    }
  });

  it('reads the capabilities from initialize, absent meaning no', () => {
    expect(promptCaps({})).toEqual(none);
    expect(
      promptCaps({ agentCapabilities: { promptCapabilities: { image: true, embeddedContext: 'yes' } } }),
    ).toEqual({
      image: true,
      embeddedContext: false,
    });
  });
});

describe('checkPromptTotal', () => {
  const textOf = (n: number): Attachment => ({
    kind: 'text',
    path: 'a',
    uri: 'file:///a',
    text: 'x'.repeat(n),
  });
  const image = (base64: number): Attachment => ({
    kind: 'image',
    path: 'i.png',
    mimeType: 'image/png',
    data: 'A'.repeat(base64),
  });

  it('takes up to the cap, counting the prompt in UTF-8 bytes and an image as its base64', () => {
    expect(() => checkPromptTotal('é', [textOf(PROMPT_TOTAL_CAP - 4), image(2)])).not.toThrow();
    expect(() => checkPromptTotal('é', [textOf(PROMPT_TOTAL_CAP - 4), image(3)])).toThrow(
      /come to 32\.1 MiB: they may add up to 32 MiB/,
    );
  });
});

describe('shownPath', () => {
  it('is relative inside the workspace, whole outside it; a name starting with two dots is inside', () => {
    expect(shownPath('/w/src/a.ts', '/w')).toBe('src/a.ts');
    expect(shownPath('/w/..dots.txt', '/w')).toBe('..dots.txt');
    expect(shownPath('/w/...', '/w')).toBe('...');
    expect(shownPath('/x.txt', '/w')).toBe('/x.txt');
    expect(shownPath('/w', '/w/sub')).toBe('/w');
  });
});
