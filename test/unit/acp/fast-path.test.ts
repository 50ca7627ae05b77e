import { describe, expect, it } from 'vitest';
import { textChunkEvent } from '../../../src/acp/fast-path.js';

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
});

describe('textChunkEvent with this run’s session', () => {
  const line = (sessionId: string): string =>
    `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"${sessionId}","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}`;

  it('reads a chunk of this session, and leaves another session’s to the general path', () => {
    expect(textChunkEvent(line('s1'), 's1')).toEqual({ type: 'message', text: 'hi' });
    expect(textChunkEvent(line('s2'), 's1')).toBeUndefined();
    expect(textChunkEvent(line('s2'), null)).toEqual({ type: 'message', text: 'hi' });
  });
});
