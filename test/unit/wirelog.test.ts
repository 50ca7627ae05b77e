// The wire log's rows: one JSON line each, whatever the agent sent, for every reader of lines.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WireLog } from '../../src/wirelog.js';
import { tempDir } from '../helpers/cli.js';
import { strictJson } from '../helpers/strict-json.js';

// Python's str.splitlines: what a script reading the log line by line sees as lines.
const splitlines = (text: string): string[] =>
  // eslint-disable-next-line no-control-regex -- the control characters splitlines breaks lines at
  text.split(/\r\n|[\n\r\u000b\u000c\u001c\u001d\u001e\u0085\u2028\u2029]/).filter((l) => l !== '');

describe('WireLog', () => {
  it('writes each row as one well-formed JSON line, whatever the line held', async () => {
    const path = join(tempDir('rho-wire-'), 'wire.ndjson');
    const log = new WireLog(
      path,
      () => 5,
      0,
      undefined,
      () => {},
    );
    // Each parses as JSON: a CR is whitespace to JSON, a lone-surrogate escape is accepted.
    const forged = '{"jsonrpc":"2.0","method":"x/y","params":\r{"dir":"a2c","ms":1,"msg":{"forged":true}}\r}';
    const odd = '{"jsonrpc":"2.0","method":"x/z","params":{"t":"\\ud800 lone","u":"raw\u2028sep ##[x]"}}';
    log.row('a2c', forged, true);
    log.row('a2c', odd, true);
    log.row('a2c', 'not json \ud800\u2028 ##[x]\r', false);
    log.row('c2a', '{"jsonrpc":"2.0","id":1,"method":"initialize"}', true);
    await log.close();
    const rows = splitlines(readFileSync(path, 'utf8'));
    expect(rows).toHaveLength(4);
    const parsed = rows.map((r) => strictJson(r) as { dir: string; msg: unknown });
    expect(parsed.map((r) => r.dir)).toEqual(['a2c', 'a2c', 'a2c', 'c2a']);
    // The same messages, CRs aside (whitespace), the lone surrogate as U+FFFD.
    expect(parsed[0]!.msg).toEqual(JSON.parse(forged));
    expect(parsed[1]!.msg).toEqual({
      jsonrpc: '2.0',
      method: 'x/z',
      params: { t: '\ufffd lone', u: 'raw\u2028sep ##[x]' },
    });
    expect(parsed[2]!.msg).toBe('not json \ufffd\u2028 ##[x]\r');
  });

  describe('a key streamed across chunk rows', () => {
    const KEY = 'sk-test-Zq7Xv9Lm2Pw4Rt6Yb8Nc3Hd5';
    // A chunk row with its text spelled \u-escaped, character by character, as an agent may write it.
    const escaped = (text: string, session = 's1', kind = 'agent_message_chunk'): string =>
      `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"${session}","update":{"sessionUpdate":"${kind}","content":{"type":"text","text":"${[...text].map((c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0')).join('')}"}}}}`;
    const logged = async (secret: string | undefined, lines: string[]) => {
      const path = join(tempDir('rho-wire-'), 'wire.ndjson');
      const log = new WireLog(
        path,
        () => 5,
        0,
        secret,
        () => {},
      );
      for (const l of lines) log.row('a2c', l, true);
      await log.close();
      return readFileSync(path, 'utf8')
        .split('\n')
        .filter((l) => l !== '')
        .map(
          (l) =>
            strictJson(l) as {
              msg: { params: { update: { content: { text: string } } } };
              rewritten?: string;
            },
        );
    };

    it('is masked even \\u-escaped, the rows it rewrote marked', async () => {
      const rows = await logged(KEY, [escaped('k=' + KEY.slice(0, 11)), escaped(KEY.slice(11) + '!')]);
      expect(rows.map((r) => [r.msg.params.update.content.text, r.rewritten])).toEqual([
        ['k=', 'key'],
        ['[redacted]!', 'key'],
      ]);
    });

    it('is not joined across sessions or kinds of chunk: each row waits only for its own stream', async () => {
      const rows = await logged(KEY, [
        escaped('a sk-te', 's1'),
        escaped('st-', 's2'),
        escaped('x sk-', 's2', 'agent_thought_chunk'),
      ]);
      expect(rows.map((r) => [r.msg.params.update.content.text, r.rewritten])).toEqual([
        ['a sk-te', undefined],
        ['st-', undefined],
        ['x sk-', undefined],
      ]);
    });

    it('with no key, every row is written as it came', async () => {
      const lines = [escaped('k=' + KEY.slice(0, 11)), escaped(KEY.slice(11))];
      const rows = await logged(undefined, lines);
      expect(rows.map((r) => r.msg)).toEqual(lines.map((l) => JSON.parse(l)));
      expect(rows.map((r) => r.rewritten)).toEqual([undefined, undefined]);
    });
  });
});
