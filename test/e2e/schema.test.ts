// Every stream-json line of every recording's run is an event the published schema accepts, result last.
import { describe, expect, it } from 'vitest';
import { Event, JsonOutput } from '../../src/events/schema.js';
import { finish, runCli, startCli } from '../helpers/cli.js';

const ALLOWLIST = {
  version: 1,
  approvalMode: 'allowlist',
  permissions: { deny: ['Read(**)', 'WebFetch(*)'] },
};
const CASES: Array<[string, string[], object?]> = [
  ['tools.jsonl', []],
  ['permission-reject.jsonl', ['--permissions', 'reject']],
  ['permission-allow.jsonl', ['--permissions', 'allow']],
  ['plan-mode.jsonl', ['--plan', '--permissions', 'reject']],
  ['deny-read-fetch.jsonl', ['--allow', 'fetch'], ALLOWLIST],
  ['update-todos.jsonl', ['--plan']],
  ['auth-required.jsonl', []],
  ['plan-refused.jsonl', ['--plan']],
  ['refusal.jsonl', []],
  ['max-tokens.jsonl', []],
  ['extensions.jsonl', []],
  ['retriable-error.jsonl', []],
];

describe('the event schema holds for every run', () => {
  it.each(CASES)('%s', async (recording, flags, cliConfig) => {
    const r = await runCli(['run', '--output-format', 'stream-json', ...flags, 'go'], {
      recording,
      cliConfig,
    });
    expect(r.events.length).toBeGreaterThan(0);
    for (const e of r.events) {
      const parsed = Event.safeParse(e);
      expect(parsed.success, JSON.stringify(e).slice(0, 300)).toBe(true);
    }
    expect(r.events.filter((e) => e.type === 'result')).toHaveLength(1);
    expect(r.events.at(-1)!.type).toBe('result');
    expect(r.events.at(-1)!.exitCode).toBe(r.exitCode);
  });

  it('the cancelled run too', async () => {
    const r = await finish(
      startCli(['run', '--output-format', 'stream-json', '--timeout', '400ms', 'go'], {
        recording: 'cancel.jsonl',
      }),
      true,
    );
    for (const e of r.events) expect(Event.safeParse(e).success).toBe(true);
  });

  it('and the json output matches its schema', async () => {
    const r = await runCli(['run', '--output-format', 'json', '--permissions', 'reject', 'go'], {
      recording: 'extensions.jsonl',
    });
    const parsed = JsonOutput.safeParse(JSON.parse(r.stdout));
    expect(parsed.success, JSON.stringify(parsed.error?.issues?.slice(0, 3))).toBe(true);
  });
});
