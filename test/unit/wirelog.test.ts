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
});
