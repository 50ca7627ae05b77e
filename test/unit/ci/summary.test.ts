import { micromark } from 'micromark';
import { gfm, gfmHtml } from 'micromark-extension-gfm';
import { describe, expect, it } from 'vitest';
import { ANSWER_MAX_BYTES, cutBytes, SUMMARY_MAX_BYTES, summaryMarkdown } from '../../../src/ci/summary.js';
import { RunFacts } from '../../../src/events/facts.js';
import type { Event, ResultEvent } from '../../../src/events/types.js';

const result = (over: Partial<ResultEvent> = {}): ResultEvent => ({
  type: 'result',
  stopReason: 'end_turn',
  exitCode: 0,
  sessionId: 's1',
  model: 'composer-2.5[fast=true]',
  mode: 'agent',
  title: null,
  durationMs: 1234,
  timings: { initializeMs: 1, sessionNewMs: 2, promptMs: 3 },
  usage: null,
  structured: null,
  ...over,
});

const facts = (events: Event[]): RunFacts => {
  const f = new RunFacts(true);
  // The run says a tool event is a new call when the tool store made a new entry: the first of its id.
  const seen = new Set<string>();
  for (const e of events) {
    const isNew = e.type === 'tool' && !seen.has(e.toolCallId);
    if (e.type === 'tool') seen.add(e.toolCallId);
    f.add(e, isNew);
  }
  return f;
};

const tool = (toolCallId: string, title: string, status: 'completed' | 'rejected' = 'completed'): Event => ({
  type: 'tool',
  toolCallId,
  kind: 'execute',
  title,
  status,
  input: {},
  output: null,
  locations: [],
});

describe('cutBytes', () => {
  it('leaves text within the limit alone', () => {
    expect(cutBytes('héllo', 6)).toEqual({ text: 'héllo', cut: false });
  });

  it('cuts at the byte limit, never inside a character', () => {
    expect(cutBytes('abcdef', 4)).toEqual({ text: 'abcd', cut: true });
    expect(cutBytes('aéé', 4)).toEqual({ text: 'aé', cut: true });
    expect(cutBytes('a😀b', 3)).toEqual({ text: 'a', cut: true });
  });
});

describe('summaryMarkdown', () => {
  it('a success: the outcome table, the answer, the tools, the decisions and the warnings', () => {
    const md = summaryMarkdown({
      result: result(),
      fence: 'no-shell',
      facts: facts([
        { type: 'message', text: 'All done.\n' },
        tool('t1', 'ls | wc'),
        tool('t2', 'rm -rf /', 'rejected'),
        {
          type: 'permission',
          toolCallId: 't2',
          title: 'rm -rf /',
          kind: 'execute',
          options: [],
          // The agent names its options: the row says what rho-cursor chose, by kind, not this label.
          decision: { optionId: 'allowed', kind: 'reject_once' },
          reason: '--fence no-shell',
          agentReason: null,
          decidedBy: 'policy',
        },
        { type: 'warning', code: 'stdin-ignored', message: 'standard input is not read' },
      ]),
    });
    expect(md).toBe(
      [
        '### rho-cursor: succeeded',
        '',
        '| stopReason | exit code | duration | model | fence |',
        '| --- | --- | --- | --- | --- |',
        '| end_turn | 0 | 1.2 s | composer-2.5\\[fast=true\\] | no-shell |',
        '',
        '#### Answer',
        '',
        '```',
        'All done.',
        '```',
        '',
        '#### Tools (2)',
        '',
        '| kind | title | status |',
        '| --- | --- | --- |',
        '| execute | ls \\| wc | completed |',
        '| execute | rm -rf / | rejected |',
        '',
        '#### Permission decisions',
        '',
        '| kind | title | decision | reason |',
        '| --- | --- | --- | --- |',
        '| execute | rm -rf / | rejected once | --fence no-shell |',
        '',
        '#### Warnings',
        '',
        '- `stdin-ignored`: standard input is not read',
        '',
        '',
      ].join('\n'),
    );
  });

  it('a failure: no stopReason, the error, no empty sections', () => {
    const md = summaryMarkdown({
      result: result({
        stopReason: null,
        exitCode: 127,
        model: null,
        error: { code: 'agent_not_found', message: 'cursor-agent is not on PATH' },
      }),
      fence: 'none',
      facts: facts([]),
    });
    expect(md).toContain('### rho-cursor: failed\n');
    // Issue 23: a model never known is `unknown`, not `default`.
    expect(md).toContain('| none | 127 | 1.2 s | unknown | none |');
    expect(md).toContain('**Error** (`agent_not_found`): cursor-agent is not on PATH\n');
    expect(md).not.toMatch(/#### (Answer|Tools|Permission|Warnings)/);
  });

  it('a fence read from argv before it was checked (a usage error) is an escaped cell too', () => {
    // Found by review: the early path passes `--fence` as typed, and the cell wrote it raw.
    const md = summaryMarkdown({
      result: result({ stopReason: null, exitCode: 2 }),
      fence: '<img src=https://evil.example/p.png>|x',
      facts: facts([]),
    });
    expect(md).toContain('| &lt;img src=https&#58;//evil.example/p.png&gt;\\|x |');
    expect(md).not.toContain('<img');
  });

  it('an answer holding a fence gets a longer one', () => {
    const md = summaryMarkdown({
      result: result(),
      fence: 'none',
      facts: facts([{ type: 'message', text: 'Run:\n```sh\nls\n```' }]),
    });
    expect(md).toContain('````\nRun:\n```sh\nls\n```\n````\n');
  });

  it('cuts an answer over 64 KiB and says so', () => {
    const md = summaryMarkdown({
      result: result(),
      fence: 'none',
      facts: facts([{ type: 'message', text: 'x'.repeat(ANSWER_MAX_BYTES) + 'TAIL' }]),
    });
    expect(md).toContain('x'.repeat(ANSWER_MAX_BYTES) + '\n```\n\n_The answer was cut at 64 KiB._\n');
    expect(md).not.toContain('TAIL');
  });

  it('an answer of exactly 64 KiB is whole', () => {
    const md = summaryMarkdown({
      result: result(),
      fence: 'none',
      facts: facts([{ type: 'message', text: 'x'.repeat(ANSWER_MAX_BYTES) }]),
    });
    expect(md).not.toContain('was cut');
  });

  it('keeps a table cell on one line and short, and a warning whole', () => {
    const long = 'w'.repeat(300);
    const md = summaryMarkdown({
      result: result(),
      fence: 'none',
      facts: facts([
        tool('t', `a\nb|${'t'.repeat(300)}`),
        { type: 'warning', code: 'c', message: `m\n${long}` },
      ]),
    });
    const row = md.split('\n').find((l) => l.startsWith('| execute | a b'))!;
    expect(row).toBe(`| execute | a b\\|${'t'.repeat(195)}… | completed |`);
    expect(md).toContain(`- \`c\`: m ${long}\n`);
  });

  it('shows each changed file as the one name it is, as the text line does: spaces at its ends kept', () => {
    // Found by review: GFM trims a cell, so `a.txt ` rendered as `a.txt`, another file; a tab passed raw.
    const added = ['a.txt', 'a.txt ', ' a.txt', '\tb', 'c\nd', 'e, f', 'x|y'];
    const changes = { added, modified: [], deleted: [], unaccounted: [], truncated: false };
    const md = summaryMarkdown({ result: result({ changes }), fence: 'none', facts: facts([]) });
    expect(md).not.toContain('\t');
    const html = micromark(md, { extensions: [gfm()], htmlExtensions: [gfmHtml()] });
    const body = html.slice(html.indexOf('<tbody>', html.indexOf('Changes (7)')));
    const names = [...body.matchAll(/<tr>\n<td>([^<]*)<\/td>/g)]
      .slice(0, added.length)
      .map((m) => m[1]!.replace(/&quot;/g, '"'));
    expect(names).toEqual(['"\u2409b"', '" a.txt"', 'a.txt', '"a.txt "', '"c\u240ad"', '"e, f"', 'x|y']);
  });

  it('lists at most 500 tools and says how many more', () => {
    const md = summaryMarkdown({
      result: result(),
      fence: 'none',
      facts: facts(Array.from({ length: 502 }, (_, i) => tool(`t${i}`, `tool ${i}`))),
    });
    expect(md).toContain('#### Tools (502)');
    expect(md).toContain('| execute | tool 499 | completed |');
    expect(md).not.toContain('| execute | tool 500 |');
    expect(md).toContain('_2 more tools not listed._');
  });

  it('stays under 1 MiB, and says when it was cut', () => {
    const warnings: Event[] = Array.from({ length: 500 }, (_, i) => ({
      type: 'warning',
      code: `w${i}`,
      message: '€'.repeat(3000),
    }));
    const md = summaryMarkdown({ result: result(), fence: 'none', facts: facts(warnings) });
    expect(Buffer.byteLength(md)).toBeLessThanOrEqual(SUMMARY_MAX_BYTES);
    expect(md.endsWith('\n\n_The summary was cut at 1 MiB._\n')).toBe(true);
    expect(md).not.toContain('\uFFFD');
  });
});
