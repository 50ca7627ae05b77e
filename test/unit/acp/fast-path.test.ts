import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isPlainBody, textChunkEvent } from '../../../src/acp/fast-path.js';

// A session/update line exactly as Cursor (and JSON.stringify) writes it.
const chunkLine = (kind: string, text: unknown, extra = ''): string =>
  JSON.stringify({
    jsonrpc: '2.0',
    method: 'session/update',
    params: { sessionId: 's-1', update: { sessionUpdate: kind, content: { type: 'text', text } } },
  }).replace(/}}}}$/, `${extra}}}}}`);

describe('textChunkEvent', () => {
  it.each([
    ['agent_message_chunk', 'hello', 'message'],
    ['agent_thought_chunk', 'hmm', 'thought'],
    ['agent_message_chunk', 'quote " backslash \\ newline \n unicode é 🎉', 'message'],
    ['agent_message_chunk', 'ends with "}}}}', 'message'],
    ['agent_message_chunk', '', 'message'],
  ])('reads a %s line whole: %j', (kind, text, type) => {
    expect(textChunkEvent(chunkLine(kind, text))).toEqual({ type, text });
  });

  it.each([
    ['another update kind', chunkLine('tool_call', 'x')],
    ['an extra key after the text', chunkLine('agent_message_chunk', 'x', ',"annotations":{}')],
    ['a non-string text', chunkLine('agent_message_chunk', 42)],
    [
      'a request with an id',
      chunkLine('agent_message_chunk', 'x').replace('"jsonrpc":"2.0"', '"jsonrpc":"2.0","id":1'),
    ],
    ['image content', chunkLine('agent_message_chunk', 'x').replace('"type":"text"', '"type":"image"')],
    [
      'spaced JSON',
      JSON.stringify(JSON.parse(chunkLine('agent_message_chunk', 'x')), null, 1).replace(/\n/g, ''),
    ],
    ['not JSON at all', 'hello'],
    [
      'a text whose escape JSON refuses',
      chunkLine('agent_message_chunk', 'PLACEHOLDER').replace('PLACEHOLDER', 'a\\x'),
    ],
  ])('leaves %s to the general path', (_name, line) => {
    expect(textChunkEvent(line)).toBeUndefined();
  });

  it('agrees with a full parse on every line it accepts', () => {
    for (const text of ['a', 'b"c', '\\', '\u0000', 'x'.repeat(5000)]) {
      const line = chunkLine('agent_message_chunk', text);
      const full = JSON.parse(line).params.update.content.text;
      expect(textChunkEvent(line)).toEqual({ type: 'message', text: full });
    }
  });

  it('matches a full parse for any text, short plain ones (read without JSON.parse) included', () => {
    const short = fc.string({
      maxLength: 14,
      unit: fc.constantFrom('w', '1', ' ', '"', '\\', '\n', 'é', '\u0001'),
    });
    fc.assert(
      fc.property(fc.oneof(short, fc.string({ unit: 'grapheme' }), fc.string()), (text) => {
        const line = chunkLine('agent_message_chunk', text);
        expect(textChunkEvent(line)).toEqual({
          type: 'message',
          text: JSON.parse(line).params.update.content.text,
        });
      }),
      { numRuns: 2000 },
    );
  });

  it('never accepts a raw body that JSON would read differently', () => {
    const raw = fc.string({
      maxLength: 14,
      unit: fc.constantFrom('w', '"', '\\', 'u', '0', '\n', '\t', ','),
    });
    fc.assert(
      fc.property(raw, (body) => {
        const line = chunkLine('agent_message_chunk', 'PLACEHOLDER').replace('PLACEHOLDER', body);
        let full: unknown;
        try {
          const u = JSON.parse(line).params.update;
          full = Object.keys(u.content).length === 2 ? u.content.text : undefined;
        } catch {
          full = undefined;
        }
        const got = textChunkEvent(line);
        if (got !== undefined) expect(got.text).toBe(full);
      }),
      { numRuns: 3000 },
    );
  });

  it.each([
    ['w123 ', true],
    ['', true],
    ['a"b', false],
    ['a\\b', false],
    ['tab\there', false],
    ['é🎉', true],
  ])('isPlainBody(%j) is %s', (body, plain) => {
    expect(isPlainBody(body)).toBe(plain);
  });
});

describe('textChunkEvent with this run’s session', () => {
  const line = (sessionId: string): string =>
    `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"${sessionId}","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}`;

  it('reads a chunk of this session, and leaves another session’s to the general path', () => {
    expect(textChunkEvent(line('s1'), 's1')).toEqual({ type: 'message', text: 'hi' });
    expect(textChunkEvent(line('s2'), 's1')).toBeUndefined();
    // Before the session is known no chunk is this run's: the general path says so.
    expect(textChunkEvent(line('s2'), null)).toBeUndefined();
  });
});
