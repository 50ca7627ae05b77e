// What a run hands to scripts and CI, end to end against fake agents: --output-schema (extraction, retries
// in the same session, exit 6), -o, the Markdown summary, GitHub's annotations and step outputs, --strict
// and --max-tool-calls. Every stream-json line must pass the JSON Schema `rho-cursor schema` prints.
import { markdownInline } from '../../src/sanitize/markdown.js';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { execa } from 'execa';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, FIXTURES, makeAgentDir } from '../helpers/agent-path.js';
import { runCli, tempDir, type CliOptions, type CliRun } from '../helpers/cli.js';
import { userRepo } from '../helpers/repo.js';

const SJ = ['--output-format', 'stream-json'];
/** Cursor's allowlist mode: one short config warning (read and edit never ask) instead of the long one. */
const QUIET_CONFIG = { version: 1, approvalMode: 'allowlist' };
const SCHEMA = {
  type: 'object',
  properties: { n: { type: 'number' }, tags: { type: 'array', items: { type: 'string' } } },
  required: ['n'],
};

let answers: string;
let scripted: string;
let validateEvent: ValidateFunction;

beforeAll(async () => {
  const [a, s, printed] = await Promise.all([
    makeAgentDir(join(FIXTURES, 'answers.mjs')),
    makeAgentDir(join(FIXTURES, 'scripted.mjs')),
    execa(BIN, ['schema']),
  ]);
  answers = join(a, 'cursor-agent');
  scripted = join(s, 'cursor-agent');
  validateEvent = new Ajv2020({ allErrors: true, strict: false }).compile(JSON.parse(printed.stdout));
});

interface Fake {
  /** Answer texts, one per prompt turn (RHO_ANSWERS). */
  answers?: string[];
  tools?: number;
  ask?: boolean;
  /** The turn waits until it is cancelled (RHO_HANG). */
  hang?: boolean;
}

interface Run extends CliRun {
  /** The prompt texts the agent received, in order. */
  prompts: string[];
  dir: string;
}

// One run of the built CLI against the answers fixture; `dir` is a scratch directory for the files a test reads.
async function run(args: string[], fake: Fake = {}, o: CliOptions & { dir?: string } = {}): Promise<Run> {
  const dir = o.dir ?? tempDir('rho-reports-');
  const promptsLog = join(dir, 'prompts.log');
  const r = await runCli(['run', ...args], {
    agent: answers,
    cliConfig: QUIET_CONFIG,
    ...o,
    env: {
      RHO_ANSWERS: JSON.stringify(fake.answers ?? ['ok']),
      RHO_TOOLS: String(fake.tools ?? 0),
      RHO_ASK: fake.ask ? '1' : undefined,
      RHO_HANG: fake.hang ? '1' : undefined,
      RHO_PROMPTS_LOG: promptsLog,
      GITHUB_ACTIONS: undefined,
      GITHUB_STEP_SUMMARY: undefined,
      GITHUB_OUTPUT: undefined,
      ...o.env,
    },
  });
  const prompts = existsSync(promptsLog)
    ? readFileSync(promptsLog, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as string)
    : [];
  if (args.includes('stream-json')) checkStream(r);
  return { ...r, prompts, dir };
}

// Every line passes the published JSON Schema; one `result`, last, with the process's exit code.
function checkStream(r: CliRun): void {
  for (const e of r.events) {
    const ok = validateEvent(e);
    expect(
      ok,
      `${JSON.stringify(e).slice(0, 300)}\n${JSON.stringify(validateEvent.errors?.slice(0, 3))}`,
    ).toBe(true);
  }
  expect(r.events.filter((e) => e.type === 'result')).toHaveLength(1);
  expect(r.events.at(-1)).toMatchObject({ type: 'result', exitCode: r.exitCode });
}

const result = (r: CliRun): Record<string, unknown> => r.events.at(-1)!;
const ofType = (r: CliRun, type: string): Array<Record<string, unknown>> =>
  r.events.filter((e) => e.type === type);
const noStack = (stderr: string): void => expect(stderr).not.toMatch(/\n\s+at .*:\d+:\d+|\bat async\b/);
const lines = (text: string): string[] => text.split('\n').filter((l) => l !== '');
/** stderr without the config warnings every run under `reject` carries (read and edit never ask). */
const errorLines = (stderr: string): string[] =>
  lines(stderr).filter((l) => !l.startsWith('rho-cursor: warning:'));

// Writes a file in dir and returns its path.
function file(dir: string, name: string, content: string | object): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

// For each line, whether it is behind a stop-commands line whose token has not been resumed yet.
function guarded(rows: string[]): boolean[] {
  let open: string | undefined;
  return rows.map((l) => {
    const stop = /^::stop-commands::(rho-[0-9a-f]{32})$/.exec(l);
    if (stop && open === undefined) open = stop[1];
    else if (open !== undefined && l === `::${open}::`) open = undefined;
    return open !== undefined;
  });
}

// Reads $GITHUB_OUTPUT as the runner does: name=value lines and name<<DELIM ... DELIM blocks.
function githubOutputs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const rows = text.split('\n');
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    if (row === '') continue;
    const heredoc = /^([^=<]+)<<(.+)$/.exec(row);
    if (heredoc) {
      const end = rows.indexOf(heredoc[2]!, i + 1);
      expect(end, `no closing delimiter for ${heredoc[1]}`).toBeGreaterThan(i);
      out[heredoc[1]!] = rows.slice(i + 1, end).join('\n');
      i = end;
    } else {
      const eq = row.indexOf('=');
      expect(eq, `not an output line: ${row}`).toBeGreaterThan(0);
      out[row.slice(0, eq)] = row.slice(eq + 1);
    }
  }
  return out;
}

// The rows of a --wire-log file.
const wireRows = (path: string): Array<{ dir: string; msg: Record<string, unknown> }> =>
  lines(readFileSync(path, 'utf8')).map(
    (l) => JSON.parse(l) as { dir: string; msg: Record<string, unknown> },
  );

describe.concurrent('--output-schema', () => {
  it('takes a whole answer that is JSON: exit 0, one valid validation event, result.structured', async () => {
    const dir = tempDir('rho-reports-');
    const schema = file(dir, 'schema.json', SCHEMA);
    const r = await run(
      [...SJ, '--output-schema', schema, 'count'],
      { answers: ['{"n": 1, "tags": ["a"]}'] },
      { dir },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(ofType(r, 'validation')).toEqual([{ type: 'validation', attempt: 1, valid: true, errors: [] }]);
    expect(r.events.findIndex((e) => e.type === 'validation')).toBe(r.events.length - 2);
    expect(result(r)).toMatchObject({ stopReason: 'end_turn', structured: { n: 1, tags: ['a'] } });
    expect(result(r).error).toBeUndefined();
    // The prompt asked for a value matching the schema, and carried the schema itself.
    expect(r.prompts).toHaveLength(1);
    expect(r.prompts[0]).toMatch(/^count\n/);
    expect(r.prompts[0]).toContain(JSON.stringify(SCHEMA));
    expect(errorLines(r.stderr)).toEqual([]);
  });

  it('text mode: the value alone as one JSON line on stdout, the answer text on stderr', async () => {
    const dir = tempDir('rho-reports-');
    const schema = file(dir, 'schema.json', SCHEMA);
    const answer = 'Sure, here it is.\n```json\n{ "n": 2,\n  "tags": [] }\n```';
    const r = await run(['--output-schema', schema, 'count'], { answers: [answer] }, { dir });
    expect(r.exitCode, r.stderr).toBe(0);
    // (execa drops the final newline.)
    expect(r.stdout).toBe('{"n":2,"tags":[]}');
    expect(r.stderr).toContain(answer + '\n');
    // A stderr line never continues the answer's unfinished line: the verdict is a line of its own.
    expect(r.stderr.split('\n')).toContain('schema answer 1 matches --output-schema');
    expect(r.stderr.trim().split('\n').at(-1)).toBe('stopReason: end_turn');
  });

  it('-q: the value alone on stdout, and the answer text nowhere', async () => {
    const dir = tempDir('rho-reports-');
    const schema = file(dir, 'schema.json', SCHEMA);
    const answer = 'Sure, here it is.\n```json\n{ "n": 2,\n  "tags": [] }\n```';
    const r = await run(['-q', '--output-schema', schema, 'count'], { answers: [answer] }, { dir });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('{"n":2,"tags":[]}');
    expect(r.stderr).not.toContain('Sure, here it is.');
    expect(lines(r.stderr).filter((l) => !l.startsWith('warning: '))).toEqual([]);
  });

  it("a schema that is not JSON is one line, without the file's content", async () => {
    const dir = tempDir('rho-reports-');
    const schema = file(dir, 'schema.json', 'hello\nworld');
    const r = await run(['--output-schema', schema, 'count']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      `rho-cursor: option '--output-schema': ${schema} is not valid JSON (Unexpected token 'h') (see --help)`,
    ]);
    const missing = await run(['--output-schema', join(dir, 'nope.json'), 'count']);
    expect(missing.stderr.trim()).toBe(
      `rho-cursor: option '--output-schema' cannot read '${join(dir, 'nope.json')}' (no such file) (see --help)`,
    );
  });

  it('takes the last fenced json block, not a block in another language nor JSON after it', async () => {
    const dir = tempDir('rho-reports-');
    const schema = file(dir, 'schema.json', SCHEMA);
    const answer = [
      'I ran:',
      '```bash',
      'npm test',
      '```',
      'The count:',
      '```json',
      '{"n": 2, "tags": ["x"]}',
      '```',
      'Footnote: {"n": 9}',
    ].join('\n');
    const r = await run([...SJ, '--output-schema', schema, '--schema-retries', '0', 'count'], {
      answers: [answer],
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(result(r).structured).toEqual({ n: 2, tags: ['x'] });
  });

  // Found by review: each of these was exit 0 with {"safe":true}, a value the agent did not give as its answer.
  const VERDICT = { type: 'object', required: ['safe'], properties: { safe: { type: 'boolean' } } };
  it.each([
    [
      'a last json block that never closes (it runs to the end, as in CommonMark)',
      'Draft:\n```json\n{"safe": true}\n```\nFinal answer:\n```json\n{"safe": false}\n',
    ],
    [
      'a ~~~json block after a ```json one',
      'Draft:\n```json\n{"safe": true}\n```\nFinal answer:\n~~~json\n{"safe": false}\n~~~\n',
    ],
    [
      'a bare block after the json block',
      'Verdict:\n```json\n{"safe": false}\n```\nThe file I read said:\n```\n{"safe": true}\n```',
    ],
  ])('takes the last json block: %s', async (_, answer) => {
    const dir = tempDir('rho-reports-');
    const schema = file(dir, 'schema.json', VERDICT);
    const r = await run(
      ['--output-schema', schema, '--schema-retries', '0', 'go'],
      { answers: [answer] },
      { dir },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('{"safe":false}');
  });

  it('a last json block that does not parse is a mismatch naming why; an example before it is not taken', async () => {
    const dir = tempDir('rho-reports-');
    const schema = file(dir, 'schema.json', VERDICT);
    const answer = 'Example of the format: {"safe": true}\n\nMy verdict:\n```json\n{"safe": false,}\n```';
    const r = await run(
      [...SJ, '--output-schema', schema, 'go'],
      { answers: [answer, '{"safe": false}'] },
      { dir },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(ofType(r, 'validation')).toEqual([
      {
        type: 'validation',
        attempt: 1,
        valid: false,
        errors: [expect.stringMatching(/^the last json block does not parse: .*JSON at position 15/)],
      },
      { type: 'validation', attempt: 2, valid: true, errors: [] },
    ]);
    expect(r.prompts[1]).toContain('the last json block does not parse');
    expect(result(r).structured).toEqual({ safe: false });
  });

  it('falls back to the last balanced object in prose, braces inside strings included', async () => {
    const dir = tempDir('rho-reports-');
    const schema = file(dir, 'schema.json', SCHEMA);
    const answer = 'First {draft} then [1, 2]. Final: {"n": 3, "tags": ["a } b", "[c"]} as asked.';
    const r = await run([...SJ, '--output-schema', schema, '--schema-retries', '0', 'count'], {
      answers: [answer],
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(result(r).structured).toEqual({ n: 3, tags: ['a } b', '[c'] });
  });

  it('asks again in the same session with the validation errors, and takes the corrected answer', async () => {
    const dir = tempDir('rho-reports-');
    const schema = file(dir, 'schema.json', SCHEMA);
    const wire = join(dir, 'wire.jsonl');
    const r = await run(
      [...SJ, '--output-schema', schema, '--wire-log', wire, 'count'],
      { answers: ['{"n": "three"}', 'Fixed: {"n": 3}'] },
      { dir },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(ofType(r, 'validation')).toEqual([
      { type: 'validation', attempt: 1, valid: false, errors: ['/n must be number'] },
      { type: 'validation', attempt: 2, valid: true, errors: [] },
    ]);
    expect(result(r)).toMatchObject({ exitCode: 0, structured: { n: 3 } });
    expect(r.prompts).toHaveLength(2);
    expect(r.prompts[1]).toContain('/n must be number');
    expect(r.prompts[1]).not.toContain('count');
    // Both prompts went to the one session the run created.
    const sent = wireRows(wire).filter((row) => row.dir === 'c2a');
    expect(sent.filter((row) => row.msg.method === 'session/new')).toHaveLength(1);
    const prompts = sent.filter((row) => row.msg.method === 'session/prompt');
    expect(prompts.map((p) => (p.msg.params as { sessionId: string }).sessionId)).toEqual([
      'fixture-session-0001',
      'fixture-session-0001',
    ]);
  });

  it('exits 6 (schema_mismatch) with the last errors once --schema-retries is spent', async () => {
    const dir = tempDir('rho-reports-');
    const schema = file(dir, 'schema.json', SCHEMA);
    const r = await run([...SJ, '--output-schema', schema, '--schema-retries', '1', 'count'], {
      answers: ['no JSON at all', '{"n": "x"}', '{"n": 1}'],
    });
    expect(r.exitCode).toBe(6);
    expect(r.prompts).toHaveLength(2);
    expect(ofType(r, 'validation').map((v) => v.valid)).toEqual([false, false]);
    expect(result(r)).toMatchObject({
      stopReason: 'end_turn',
      exitCode: 6,
      structured: null,
      error: { code: 'schema_mismatch', message: expect.stringContaining('/n must be number') },
    });
    expect(errorLines(r.stderr)).toEqual([
      expect.stringMatching(/^rho-cursor: the answer did not match .*schema\.json/),
    ]);
  });

  it('--schema-retries 0: one prompt, one check, exit 6', async () => {
    const dir = tempDir('rho-reports-');
    const schema = file(dir, 'schema.json', SCHEMA);
    const r = await run([...SJ, '--output-schema', schema, '--schema-retries', '0', 'count'], {
      answers: ['{"tags": []}', '{"n": 1}'],
    });
    expect(r.exitCode).toBe(6);
    expect(r.prompts).toHaveLength(1);
    expect(ofType(r, 'validation')).toEqual([
      { type: 'validation', attempt: 1, valid: false, errors: ["(root) must have required property 'n'"] },
    ]);
    expect(result(r)).toMatchObject({ error: { code: 'schema_mismatch' } });
  });

  // Found by review: JSON.parse read 1e400 as Infinity, which ajv took as a number and JSON.stringify wrote
  // as null (exit 0, stdout {"n":null}); 12345678901234567890 came out as 12345678901234567000.
  it.each([
    ['past a double', SCHEMA, '```json\n{"n": 1e400}\n```', '1e400'],
    ['past a double, an integer schema', { type: 'integer', minimum: 10 }, '1e400', '1e400'],
    ['read as another integer', SCHEMA, '{"n": 12345678901234567890}', '12345678901234567890'],
    ['read as 0', SCHEMA, '{"n": 1e-400}', '1e-400'],
  ])(
    'a number %s is a mismatch naming it: asked again, then exit 6, no value on stdout or in -o',
    async (_, s, answer, token) => {
      const dir = tempDir('rho-reports-');
      const schema = file(dir, 'schema.json', s);
      const last = join(dir, 'last.json');
      const r = await run(
        ['--output-schema', schema, '--schema-retries', '1', '-o', last, 'count'],
        {
          answers: [answer, answer],
        },
        { dir },
      );
      expect(r.exitCode, r.stderr).toBe(6);
      expect(r.prompts).toHaveLength(2);
      expect(r.prompts[1]).toContain(`the number ${token} `);
      expect(r.stdout).toBe('');
      expect(errorLines(r.stderr).at(-1)).toMatch(
        new RegExp(`^rho-cursor: the answer did not match .*the number ${token} `),
      );
      // -o holds the last answer's text, as for any mismatch, not a value.
      expect(readFileSync(last, 'utf8')).toBe(answer);
    },
  );

  it('a number a double does not hold, corrected when asked again: the corrected value', async () => {
    const dir = tempDir('rho-reports-');
    const schema = file(dir, 'schema.json', SCHEMA);
    const r = await run([...SJ, '--output-schema', schema, 'count'], {
      answers: ['{"n": 1e400}', '{"n": 0.1}'],
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(ofType(r, 'validation').map((v) => v.valid)).toEqual([false, true]);
    expect(result(r).structured).toEqual({ n: 0.1 });
  });

  it('json output carries structured with the text', async () => {
    const dir = tempDir('rho-reports-');
    const schema = file(dir, 'schema.json', SCHEMA);
    const r = await run(['--output-format', 'json', '--output-schema', schema, 'count'], {
      answers: ['{"n": 4}'],
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(lines(r.stdout)).toHaveLength(1);
    const o = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(o).toMatchObject({ type: 'result', exitCode: 0, structured: { n: 4 }, text: '{"n": 4}' });
  });

  it('a draft-07 schema is validated as draft-07', async () => {
    const dir = tempDir('rho-reports-');
    const schema = file(dir, 'schema.json', {
      $schema: 'http://json-schema.org/draft-07/schema#',
      definitions: { pos: { type: 'integer', minimum: 1 } },
      type: 'object',
      properties: { n: { $ref: '#/definitions/pos' } },
      required: ['n'],
    });
    const r = await run([...SJ, '--output-schema', schema, '--schema-retries', '0', 'count'], {
      answers: ['{"n": 0}'],
    });
    expect(r.exitCode).toBe(6);
    expect(ofType(r, 'validation')[0]!.errors).toEqual(['/n must be >= 1']);
  });

  it('a valid null is still the value: "null" on stdout and in -o', async () => {
    const dir = tempDir('rho-reports-');
    const schema = file(dir, 'schema.json', { type: 'null' });
    const last = join(dir, 'last.json');
    const r = await run(['--output-schema', schema, '-o', last, 'nothing'], { answers: ['null'] }, { dir });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('null');
    expect(readFileSync(last, 'utf8')).toBe('null\n');
  });

  it.each([
    ['missing', null, /cannot read .*schema\.json/],
    ['not JSON', '{"type": "object",', /schema\.json is not valid JSON/],
    ['not a JSON Schema', '{"type": "nope"}', /schema\.json is not a valid JSON Schema/],
    ['not an object', '[1, 2]', /schema\.json must hold a JSON Schema object/],
  ])('a schema file %s is exit 2 with one line, before anything is spawned', async (_, content, message) => {
    const dir = tempDir('rho-reports-');
    const schema = join(dir, 'schema.json');
    if (content !== null) writeFileSync(schema, content);
    const pidFile = join(dir, 'agent.pid');
    const text = await run(
      ['--output-schema', schema, 'count'],
      {},
      {
        agent: scripted,
        env: { RHO_SCRIPT: JSON.stringify({ pidFile }) },
      },
    );
    expect(text.exitCode).toBe(2);
    expect(text.stdout).toBe('');
    expect(lines(text.stderr)).toEqual([expect.stringMatching(/^rho-cursor: option '--output-schema'/)]);
    expect(text.stderr).toMatch(message);
    noStack(text.stderr);
    expect(existsSync(pidFile)).toBe(false);
  });

  it('in stream-json, a bad schema file is the one result event, error usage, and one stderr line', async () => {
    const dir = tempDir('rho-reports-');
    const schema = file(dir, 'schema.json', '{"type": 5}');
    const sj = await run([...SJ, '--output-schema', schema, 'count']);
    expect(sj.exitCode).toBe(2);
    expect(sj.events).toHaveLength(1);
    expect(result(sj)).toMatchObject({
      stopReason: null,
      structured: null,
      error: { code: 'usage', message: expect.stringContaining('is not a valid JSON Schema') },
    });
    expect(lines(sj.stderr)).toHaveLength(1);
    noStack(sj.stderr);
  });
});

// Found by review: a link the agent put at the path of -o or --summary-file during the run was followed, and the
// report written outside the workspace, wherever the agent chose. Where each path leads is taken before the
// agent starts; a path that leads elsewhere by the end is written nowhere.
describe.concurrent('-o and the summary where the agent put a link', () => {
  // A workspace, and a victim file beside it that the agent would have rho-cursor write.
  function setup(): { dir: string; ws: string; victim: string } {
    const dir = tempDir('rho-reports-');
    const ws = join(dir, 'ws');
    mkdirSync(ws);
    const victim = file(dir, 'victim.txt', 'mine\n');
    return { dir, ws, victim };
  }
  // One run of the scripted agent in ws, which runs `sh` there during the turn.
  const agentRuns = (args: string[], ws: string, sh: string): Promise<Run> =>
    run(
      [...SJ, ...args, 'go'],
      {},
      {
        agent: scripted,
        cwd: ws,
        env: { RHO_SCRIPT: JSON.stringify({ before: [{ effect: { sh } }] }) },
      },
    );
  const replaced = (path: string, now: string): RegExp =>
    new RegExp(`${escape(path)} was replaced during the run and now leads to ${escape(now)}`);
  const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

  it('a link the agent made at the -o path: written nowhere, exit 1 (write_failed), the result still written', async () => {
    const { dir, ws, victim } = setup();
    const summary = join(dir, 'summary.md');
    const r = await agentRuns(
      ['-o', 'answer.md', '--summary-file', summary],
      ws,
      `ln -s '${victim}' answer.md`,
    );
    expect(r.exitCode, r.stderr).toBe(1);
    expect(result(r)).toMatchObject({ stopReason: 'end_turn', exitCode: 1, error: { code: 'write_failed' } });
    const message = String((result(r).error as { message: string }).message);
    const answer = join(ws, 'answer.md');
    expect(message).toBe(
      `cannot write the last message to ${answer}: ${answer} was replaced during the run and now leads to ${victim}`,
    );
    expect(readFileSync(victim, 'utf8')).toBe('mine\n');
    expect(readlinkSync(join(ws, 'answer.md'))).toBe(victim);
    expect(readdirSync(dir).sort()).toEqual(['summary.md', 'victim.txt', 'ws']);
    expect(readdirSync(ws)).toEqual(['answer.md']);
    // Every other report is still written.
    expect(readFileSync(summary, 'utf8')).toContain('### rho-cursor');
    expect(errorLines(r.stderr)).toEqual([`rho-cursor: ${message}`]);
  });

  it('a link the agent made at the summary path: nothing appended anywhere', async () => {
    const { ws, victim } = setup();
    const r = await agentRuns(['--summary-file', 'summary.md'], ws, `ln -s '${victim}' summary.md`);
    expect(r.exitCode, r.stderr).toBe(1);
    expect(result(r)).toMatchObject({
      stopReason: 'end_turn',
      error: {
        code: 'write_failed',
        message: expect.stringMatching(replaced(join(ws, 'summary.md'), victim)),
      },
    });
    expect(readFileSync(victim, 'utf8')).toBe('mine\n');
  });

  it("a user's own link the agent pointed elsewhere, and a folder it replaced with a link: written nowhere", async () => {
    const { dir, ws, victim } = setup();
    const mine = file(ws, 'mine.md', 'an older answer');
    symlinkSync('mine.md', join(ws, 'answer.md'));
    const elsewhere = join(dir, 'elsewhere');
    mkdirSync(elsewhere);
    mkdirSync(join(ws, 'out'));
    const sh = `ln -sfn '${victim}' answer.md && mv out out.old && ln -s '${elsewhere}' out`;
    const r = await agentRuns(['-o', 'answer.md', '--summary-file', 'out/summary.md'], ws, sh);
    expect(r.exitCode, r.stderr).toBe(1);
    const message = String((result(r).error as { message: string }).message);
    expect(message).toContain(
      `${join(ws, 'answer.md')} was replaced during the run and now leads to ${victim} (it led to ${mine} when the run started)`,
    );
    expect(message).toMatch(replaced(join(ws, 'out', 'summary.md'), join(elsewhere, 'summary.md')));
    expect(readFileSync(victim, 'utf8')).toBe('mine\n');
    expect(readFileSync(mine, 'utf8')).toBe('an older answer');
    expect(readdirSync(elsewhere)).toEqual([]);
    expect(readdirSync(join(ws, 'out.old'))).toEqual([]);
  });

  it("a user's own link left alone is followed: its target replaced (the link kept), the summary appended there", async () => {
    const { dir, ws } = setup();
    const mine = file(dir, 'mine.md', 'an older answer');
    const log = file(dir, 'log.md', 'earlier\n');
    symlinkSync(mine, join(ws, 'answer.md'));
    symlinkSync(log, join(ws, 'summary.md'));
    // The agent writes a file of its own meanwhile: nothing the reports lead to.
    const r = await agentRuns(['-o', 'answer.md', '--summary-file', 'summary.md'], ws, 'echo x > other.txt');
    expect(r.exitCode, r.stderr).toBe(0);
    expect(readFileSync(mine, 'utf8')).toBe('');
    expect(lstatSync(join(ws, 'answer.md')).isSymbolicLink()).toBe(true);
    expect(readFileSync(log, 'utf8')).toMatch(/^earlier\n### rho-cursor: succeeded/);
  });
});

describe.concurrent('-o, --output-last-message', () => {
  it('holds the answer text, written whole', async () => {
    const dir = tempDir('rho-reports-');
    const last = join(dir, 'last.txt');
    file(dir, 'last.txt', 'an older answer');
    const r = await run(['-o', last, 'hello'], { answers: ['Hello,\nworld'] }, { dir });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(readFileSync(last, 'utf8')).toBe('Hello,\nworld');
    expect(r.stdout).toBe('Hello,\nworld');
  });

  it('holds the structured value as JSON with --output-schema', async () => {
    const dir = tempDir('rho-reports-');
    const schema = file(dir, 'schema.json', SCHEMA);
    const last = join(dir, 'last.json');
    const r = await run(['--output-last-message', last, '--output-schema', schema, 'count'], {
      answers: ['Done: ```json\n{"n": 5}\n```'],
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(readFileSync(last, 'utf8'))).toEqual({ n: 5 });
  });

  it('is written when the turn ended but the run failed: schema mismatch, --strict, --max-tool-calls', async () => {
    const dir = tempDir('rho-reports-');
    const schema = file(dir, 'schema.json', SCHEMA);
    const [mismatch, strict, bounded] = [join(dir, 'a.txt'), join(dir, 'b.txt'), join(dir, 'c.txt')];
    const [r1, r2, r3] = await Promise.all([
      run([...SJ, '-o', mismatch, '--output-schema', schema, '--schema-retries', '1', 'count'], {
        answers: ['none', 'still none'],
      }),
      run([...SJ, '-o', strict, '--strict', 'go'], { answers: ['I tried.'], ask: true }),
      run([...SJ, '-o', bounded, '--max-tool-calls', '1', 'go'], { tools: 3, hang: true }),
    ]);
    expect([r1.exitCode, r2.exitCode, r3.exitCode]).toEqual([6, 7, 4]);
    // The last message of the last turn: the one that failed the check.
    expect(readFileSync(mismatch, 'utf8')).toBe('still none');
    expect(readFileSync(strict, 'utf8')).toBe('I tried.');
    // A cancelled turn ended too: its answer, empty here, is the final one.
    expect(result(r3).stopReason).toBe('cancelled');
    expect(readFileSync(bounded, 'utf8')).toBe('');
  });

  it('is left untouched when no turn ended', async () => {
    const dir = tempDir('rho-reports-');
    const last = file(dir, 'last.txt', 'keep me');
    const crashed = await run(
      [...SJ, '-o', last, 'go'],
      {},
      {
        agent: scripted,
        env: { RHO_SCRIPT: JSON.stringify({ crash: 'boom' }) },
      },
    );
    expect(crashed.exitCode).toBe(1);
    expect(result(crashed)).toMatchObject({ stopReason: null, error: { code: 'agent_exited' } });
    const badSchema = await run(['-o', last, '--output-schema', join(dir, 'missing.json'), 'go']);
    expect(badSchema.exitCode).toBe(2);
    expect(readFileSync(last, 'utf8')).toBe('keep me');
  });

  // Issue 23: a path whose folder is missing is now exit 2 before anything is spawned (test/e2e/newcomer.test.ts);
  // a file that fails only when written (a full device) is still exit 1, write_failed, once the turn ended.
  it.skipIf(!existsSync('/dev/full'))(
    'an unwritable path is exit 1, write_failed, one stderr line',
    async () => {
      const last = '/dev/full';
      const sj = await run([...SJ, '-o', last, 'go'], { answers: ['fine'] });
      expect(sj.exitCode).toBe(1);
      expect(result(sj)).toMatchObject({
        stopReason: 'end_turn',
        exitCode: 1,
        error: { code: 'write_failed', message: expect.stringContaining(last) },
      });
      expect(errorLines(sj.stderr)).toEqual([
        expect.stringMatching(/^rho-cursor: cannot write the last message to /),
      ]);
      noStack(sj.stderr);
      const text = await run(['-o', last, 'go'], { answers: ['fine'] });
      expect(text.exitCode).toBe(1);
      expect(text.stdout).toBe('fine');
      expect(lines(text.stderr).filter((l) => l.includes('cannot write'))).toHaveLength(1);
      noStack(text.stderr);
    },
  );
});

describe.concurrent('the CI summary', () => {
  it('--summary-file appends the outcome, the answer, the tools, the permissions and the warnings', async () => {
    const dir = tempDir('rho-reports-');
    const summary = file(dir, 'summary.md', '# Earlier step\n');
    // The user's default config: Cursor asks nothing, so the run warns that reject fences nothing.
    const r = await run(
      ['--summary-file', summary, '--permissions', 'reject', 'go'],
      { answers: ['All | done'], tools: 2, ask: true },
      { dir, cliConfig: { version: 1 } },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const md = readFileSync(summary, 'utf8');
    // Appended after what the file held.
    expect(md.startsWith('# Earlier step\n### rho-cursor: succeeded\n')).toBe(true);
    expect(md).toContain('| stopReason | exit code | duration | model | fence |');
    expect(md).toMatch(/\| end_turn \| 0 \| \d+\.\d s \| fixture-model \| none \|/);
    expect(md).toContain('#### Answer\n\n```\nAll | done\n```\n');
    expect(md).toContain('#### Tools (3)');
    expect(md).toContain('| execute | ls 0 | completed |');
    expect(md).toContain('| execute | ls 1 | completed |');
    // Contract v3: Markdown characters of agent text are escaped in cells.
    expect(md).toContain('| execute | \\`rm -rf /\\` | rejected |');
    expect(md).toContain('#### Permission decisions');
    expect(md).toContain('| execute | \\`rm -rf /\\` | rejected once | --permissions reject |');
    expect(md).toContain('#### Warnings');
    // A warning is listed whole, not cut at a table cell's length.
    const warning = lines(r.stderr).find((l) => l.startsWith('warning: approvalMode is unrestricted'))!;
    expect(md).toContain(
      `- \`policy-fences-nothing\`: ${markdownInline(warning.slice('warning: '.length))}\n`,
    );
  });

  it('a failed run says so, with the error', async () => {
    const dir = tempDir('rho-reports-');
    const summary = join(dir, 'summary.md');
    const schema = file(dir, 'schema.json', SCHEMA);
    const r = await run(
      ['--summary-file', summary, '--output-schema', schema, '--schema-retries', '0', 'go'],
      {
        answers: ['nothing'],
      },
    );
    expect(r.exitCode).toBe(6);
    const md = readFileSync(summary, 'utf8');
    expect(md).toMatch(/^### rho-cursor: failed\n/);
    expect(md).toMatch(/\| end_turn \| 6 \|/);
    expect(md).toContain('**Error** (`schema_mismatch`): the answer did not match');
  });

  it('cuts an answer over 64 KiB and says so', async () => {
    const dir = tempDir('rho-reports-');
    const summary = join(dir, 'summary.md');
    const answer = 'é'.repeat(20 * 1024) + 'x'.repeat(40 * 1024) + 'THE-END';
    const r = await run(['--summary-file', summary, 'go'], { answers: [answer] });
    expect(r.exitCode, r.stderr).toBe(0);
    const md = readFileSync(summary, 'utf8');
    expect(md).toContain('_The answer was cut at 64 KiB._');
    expect(md).not.toContain('THE-END');
    const block = /#### Answer\n\n```\n([\s\S]*?)\n```\n/.exec(md)![1]!;
    expect(Buffer.byteLength(block)).toBeLessThanOrEqual(64 * 1024);
    expect(Buffer.byteLength(block)).toBeGreaterThan(63 * 1024);
    expect(block).not.toContain('\uFFFD');
  });

  it('under GitHub Actions goes to $GITHUB_STEP_SUMMARY, unless --no-summary', async () => {
    const dir = tempDir('rho-reports-');
    const [step, off, chosen] = [join(dir, 'step.md'), join(dir, 'off.md'), join(dir, 'chosen.md')];
    const gh = (path: string): CliOptions => ({ env: { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: path } });
    const [on, noSummary, explicit, outside] = await Promise.all([
      run(['go'], { answers: ['on'] }, gh(step)),
      run(['--no-summary', 'go'], { answers: ['off'] }, gh(off)),
      run(['--summary-file', chosen, 'go'], { answers: ['chosen'] }, gh(join(dir, 'unused.md'))),
      run(['go'], { answers: ['outside'] }, { env: { GITHUB_STEP_SUMMARY: join(dir, 'outside.md') } }),
    ]);
    for (const r of [on, noSummary, explicit, outside]) expect(r.exitCode, r.stderr).toBe(0);
    expect(readFileSync(step, 'utf8')).toContain('```\non\n```');
    expect(existsSync(off)).toBe(false);
    expect(readFileSync(chosen, 'utf8')).toContain('```\nchosen\n```');
    expect(existsSync(join(dir, 'unused.md'))).toBe(false);
    expect(existsSync(join(dir, 'outside.md'))).toBe(false);
  });
});

describe.concurrent('GitHub Actions', () => {
  it('writes each warning as a ::warning annotation and a failure as ::error on stderr', async () => {
    const dir = tempDir('rho-reports-');
    const schema = file(dir, 'schema.json', SCHEMA);
    const args = [...SJ, '--output-schema', schema, '--schema-retries', '0', 'go'];
    const o = (env: Record<string, string>): CliOptions => ({ cliConfig: { version: 1 }, env });
    const [gh, plain] = await Promise.all([
      run(args, { answers: ['no value'] }, o({ GITHUB_ACTIONS: 'true' })),
      run(args, { answers: ['no value'] }, o({})),
    ]);
    expect(gh.exitCode).toBe(6);
    const warning = ofType(gh, 'warning')[0]!;
    expect(warning.code).toBe('policy-fences-nothing');
    expect(lines(gh.stderr)).toContain(
      `::warning title=rho-cursor policy-fences-nothing::${String(warning.message)}`,
    );
    const error = (result(gh).error as { message: string }).message;
    expect(lines(gh.stderr)).toContain(`::error title=rho-cursor::${error}`);
    expect(lines(gh.stderr).at(-1)).toBe(`::error title=rho-cursor::${error}`);
    expect(plain.stderr).not.toContain('::');
  });

  // A notice update from the agent, which rho-cursor reports as a warning.
  const notice = (i: number) => ({
    jsonrpc: '2.0',
    method: 'session/update',
    params: {
      sessionId: 'fixture-session-0001',
      update: { sessionUpdate: 'notice', severity: 'warning', title: `n${i} ${'t'.repeat(3000)}` },
    },
  });

  it('keeps twenty warning annotations, each cut, and says how many more there were', async () => {
    // Found by review: every warning's annotation was held to the end (8k notices of 20 KB: 533 MB).
    const r = await run(
      [...SJ, '--permissions', 'allow', 'go'],
      {},
      {
        agent: scripted,
        env: {
          GITHUB_ACTIONS: 'true',
          RHO_SCRIPT: JSON.stringify({ before: Array.from({ length: 30 }, (_, i) => notice(i)) }),
        },
      },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const annotations = lines(r.stderr).filter((l) => l.startsWith('::warning '));
    expect(annotations).toHaveLength(21);
    for (const a of annotations) expect(a.length).toBeLessThan(2200);
    expect(annotations.filter((a) => a.includes('n19 '))).toHaveLength(1);
    expect(annotations.filter((a) => a.includes('n20 '))).toHaveLength(0);
    expect(annotations.at(-1)).toMatch(
      /^::warning title=rho-cursor warnings::10 more warnings: each is a line of the log$/,
    );
    // Every warning is still an event, and those past the annotations are lines of the log (found by review).
    expect(ofType(r, 'warning').length).toBeGreaterThanOrEqual(30);
    const logged = lines(r.stderr).filter((l) => l.startsWith('rho-cursor: warning: the agent reports'));
    expect(logged.map((l) => /: (n\d+) t/.exec(l)?.[1])).toEqual(
      Array.from({ length: 10 }, (_, i) => `n${20 + i}`),
    );
  });

  it('text mode: the warnings past the twenty annotations are warning lines of the log', async () => {
    const r = await run(
      ['--permissions', 'allow', 'go'],
      {},
      {
        agent: scripted,
        env: {
          GITHUB_ACTIONS: 'true',
          RHO_SCRIPT: JSON.stringify({ before: Array.from({ length: 30 }, (_, i) => notice(i)) }),
        },
      },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(lines(r.stderr).filter((l) => l.startsWith('::warning '))).toHaveLength(21);
    const logged = lines(r.stderr).filter((l) => /^warning: .*\bn\d+ t/.test(l));
    expect(logged.map((l) => /\b(n\d+) t/.exec(l)?.[1])).toEqual(
      Array.from({ length: 10 }, (_, i) => `n${20 + i}`),
    );
  });

  it('fills $GITHUB_OUTPUT with exit-code, stop-reason, session-id and structured, after what was there', async () => {
    const dir = tempDir('rho-reports-');
    const schema = file(dir, 'schema.json', SCHEMA);
    const [withSchema, without, mismatch] = [join(dir, 'a'), join(dir, 'b'), join(dir, 'c')];
    writeFileSync(withSchema, 'earlier=1\n');
    const env = (path: string): CliOptions => ({ env: { GITHUB_ACTIONS: 'true', GITHUB_OUTPUT: path } });
    const [r1, r2, r3] = await Promise.all([
      run(
        ['--output-schema', schema, 'go'],
        { answers: ['{"n": 1, "tags": ["multi\\nline"]}'] },
        env(withSchema),
      ),
      run(['go'], { answers: ['plain'] }, env(without)),
      run(['--output-schema', schema, '--schema-retries', '0', 'go'], { answers: ['no'] }, env(mismatch)),
    ]);
    expect([r1.exitCode, r2.exitCode, r3.exitCode]).toEqual([0, 0, 6]);
    const o1 = githubOutputs(readFileSync(withSchema, 'utf8'));
    expect(o1).toMatchObject({
      earlier: '1',
      'exit-code': '0',
      'stop-reason': 'end_turn',
      'session-id': 'fixture-session-0001',
    });
    expect(JSON.parse(o1.structured!)).toEqual({ n: 1, tags: ['multi\nline'] });
    expect(githubOutputs(readFileSync(without, 'utf8'))).toEqual({
      'exit-code': '0',
      'stop-reason': 'end_turn',
      'session-id': 'fixture-session-0001',
    });
    expect(githubOutputs(readFileSync(mismatch, 'utf8'))).toMatchObject({ 'exit-code': '6', structured: '' });
  });

  it('under GitHub Actions the text-mode value is one inert JSON line on stdout, unguarded, as jq reads it', async () => {
    // Found by review: the value went through stdout's guard, so stdout was the stop-commands line, the value
    // and the resume line, and `| jq -e .safe` (the README's example) failed. A JSON line cannot start a
    // command; `##[` inside its strings is made inert as stream-json's are.
    const dir = tempDir('rho-reports-');
    const schema = file(dir, 'schema.json', SCHEMA);
    const value = { n: 1, tags: ['##[error]legacy', '::error::x'] };
    const r = await run(
      ['--output-schema', schema, 'go'],
      { answers: ['Done.\n```json\n' + JSON.stringify(value) + '\n```'] },
      { env: { GITHUB_ACTIONS: 'true' } },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('{"n":1,"tags":["##\\u005berror]legacy","::error::x"]}');
    expect(JSON.parse(r.stdout)).toEqual(value);
    const jq = await execa('jq', ['-e', '.n'], { input: r.stdout + '\n', reject: false });
    expect(jq.exitCode, jq.stderr).toBe(0);
    // The answer's text on stderr is still behind the guard.
    expect(lines(r.stderr)[0]).toMatch(/^::stop-commands::rho-[0-9a-f]{32}$/);
  });

  it('under GitHub Actions a report written to our own stderr is guarded as the console is', async () => {
    // Found by review: -o /dev/stderr (and --summary-file, --wire-log there) wrote the answer's
    // ::error and ::stop-commands lines raw, outside every guard.
    const answer =
      'Summary ##[add-mask]x\n::error file=src/app.js,line=1,title=Security::Forged\n::stop-commands::attacker\n';
    // The runner reads a pipe (execa's stdio are sockets, which /dev/stderr cannot open): both streams into
    // one, as the runner's log shows them.
    const dir = tempDir('rho-reports-');
    const bin = join(dir, 'rho-through-a-pipe');
    writeFileSync(bin, `#!/bin/bash\nset -o pipefail\n'${BIN}' "$@" 2>&1 | cat\n`);
    chmodSync(bin, 0o755);
    const r = await run(
      ['--output-format', 'json', '-o', '/dev/stderr', '--wire-log', '/dev/stderr', 'go'],
      { answers: [answer] },
      { bin, env: { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: '/dev/stderr' } },
    );
    expect(r.exitCode, r.stdout).toBe(0);
    const rows = r.stdout.split('\n');
    // Each line the agent wrote is behind a stop-commands line whose token has not been resumed yet.
    const guardedAt = guarded(rows);
    const forged = rows.flatMap((l, i) => (/^(::error file=|::stop-commands::attacker)/.test(l) ? [i] : []));
    expect(forged.length).toBeGreaterThanOrEqual(4); // -o and the summary's answer, two lines each
    for (const i of forged) expect(guardedAt[i], rows[i]).toBe(true);
    // The wire log's rows, one JSON line each, carry the legacy ##[ form escaped.
    const wire = rows.filter((l) => l.startsWith('{"dir"'));
    expect(wire.length).toBeGreaterThan(3);
    for (const l of wire) expect(l).not.toContain('##[');
    expect(wire.some((l) => l.includes('##\\u005badd-mask]x'))).toBe(true);
  });

  it('under GitHub Actions a --patch written to our own stderr is guarded, and the key masked', async () => {
    // Found by review: --patch /dev/stderr wrote the agent's file contents raw: `+##[set-output ...]` is a
    // line the runner's legacy parser takes as a command wherever `##[` stands, and no guard was open
    // (json mode writes nothing to stderr before it). The key the agent wrote into a file went out too.
    const key = 'crsr_patch_key_0123456789';
    const forged = '##[set-output name=verdict;]approved\n::error title=Deploy::forged\n';
    const dir = tempDir('rho-reports-');
    const bin = join(dir, 'rho-through-a-pipe');
    writeFileSync(bin, `#!/bin/bash\nset -o pipefail\n'${BIN}' "$@" 2>&1 | cat\n`);
    chmodSync(bin, 0o755);
    const script = {
      before: [
        { effect: { write: 'notes.txt', text: forged } },
        { effect: { sh: 'printf "k=%s\\n" "$CURSOR_API_KEY" > k.txt' } },
      ],
    };
    const r = await run(
      ['--output-format', 'json', '--worktree', '--patch', '/dev/stderr', 'go'],
      {},
      {
        bin,
        agent: scripted,
        cwd: userRepo(),
        env: {
          GITHUB_ACTIONS: 'true',
          CURSOR_API_KEY: key,
          RHO_SCRIPT: JSON.stringify(script),
        },
      },
    );
    expect(r.exitCode, r.stdout).toBe(0);
    const rows = r.stdout.split('\n');
    const guardedAt = guarded(rows);
    const patchLines = rows.flatMap((l, i) => (/##\[set-output|::error title=Deploy/.test(l) ? [i] : []));
    expect(patchLines).toHaveLength(2);
    for (const i of patchLines) expect(guardedAt[i], rows[i]).toBe(true);
    expect(r.stdout).not.toContain(key);
    expect(r.stdout).toContain('+k=[redacted]');
  });

  it("the runner's file commands are rho-cursor's: the agent is not told where they are, and what it writes there is put back", async () => {
    const dir = tempDir('rho-reports-');
    const files = {
      GITHUB_ENV: join(dir, 'set_env'),
      GITHUB_PATH: join(dir, 'add_path'),
      GITHUB_OUTPUT: join(dir, 'set_output'),
      GITHUB_STATE: join(dir, 'save_state'),
      GITHUB_STEP_SUMMARY: join(dir, 'step_summary'),
    };
    // As the runner makes them for a step: empty, and one holding an earlier line of this step's.
    for (const f of Object.values(files)) writeFileSync(f, '');
    writeFileSync(files.GITHUB_STATE, 'kept=1\n');
    const seen = join(dir, 'seen');
    const sh = [
      `env | grep '^GITHUB_[A-Z_]*=' | sort > '${seen}'`,
      `echo 'NODE_OPTIONS=--require /tmp/evil.js' >> '${files.GITHUB_ENV}'`,
      `echo /tmp/evil-bin >> '${files.GITHUB_PATH}'`,
      `echo 'verdict=approved' >> '${files.GITHUB_OUTPUT}'`,
      `: > '${files.GITHUB_STATE}'`,
      `echo '<img src=https://evil.example/x>' >> '${files.GITHUB_STEP_SUMMARY}'`,
    ].join(' && ');
    const r = await run(
      [...SJ, 'go'],
      {},
      {
        agent: scripted,
        env: {
          GITHUB_ACTIONS: 'true',
          ...files,
          RHO_SCRIPT: JSON.stringify({ before: [{ effect: { sh } }] }),
        },
      },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    // The agent ran without their names (the shell effect wrote what it saw).
    expect(readFileSync(seen, 'utf8')).not.toMatch(/GITHUB_(ENV|PATH|OUTPUT|STATE|STEP_SUMMARY)=/);
    expect(readFileSync(files.GITHUB_ENV, 'utf8')).toBe('');
    expect(readFileSync(files.GITHUB_PATH, 'utf8')).toBe('');
    expect(readFileSync(files.GITHUB_STATE, 'utf8')).toBe('kept=1\n');
    // rho-cursor's own outputs and summary, and nothing of the agent's.
    expect(githubOutputs(readFileSync(files.GITHUB_OUTPUT, 'utf8'))).not.toHaveProperty('verdict');
    expect(githubOutputs(readFileSync(files.GITHUB_OUTPUT, 'utf8'))['exit-code']).toBe('0');
    const summary = readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8');
    expect(summary).toContain('rho-cursor');
    expect(summary).not.toContain('evil.example');
    const warned = r.events.filter((e) => e.type === 'warning' && e.code === 'runner-file-written');
    expect(warned.map((e) => String(e.message).split(',')[0]).sort()).toEqual(
      [
        'the agent wrote $GITHUB_ENV',
        'the agent wrote $GITHUB_OUTPUT',
        'the agent wrote $GITHUB_PATH',
        'the agent wrote $GITHUB_STATE',
        'the agent wrote $GITHUB_STEP_SUMMARY',
      ].sort(),
    );
  });

  it('structured pasted into a script as the README shows runs nothing the agent wrote', async () => {
    const dir = tempDir('rho-reports-');
    const schema = file(dir, 'schema.json', SCHEMA);
    const output = join(dir, 'output');
    const pwned = join(dir, 'PWNED');
    const tag = `it's'; touch ${pwned}; echo ' $(touch ${pwned}) \`touch ${pwned}\``;
    const r = await run(
      ['--output-schema', schema, 'go'],
      { answers: [JSON.stringify({ n: 1, tags: [tag] })] },
      { env: { GITHUB_ACTIONS: 'true', GITHUB_OUTPUT: output } },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const structured = githubOutputs(readFileSync(output, 'utf8')).structured!;
    expect(structured).not.toMatch(/['`$]/);
    expect(JSON.parse(structured)).toEqual({ n: 1, tags: [tag] });
    // What GitHub runs for `echo '${{ steps.review.outputs.structured }}' | jq .`, and for a heredoc.
    const single = await execa('bash', ['-c', `echo '${structured}'`]);
    const heredoc = await execa('bash', ['-c', `cat <<EOF\n${structured}\nEOF`]);
    expect(existsSync(pwned)).toBe(false);
    expect(JSON.parse(single.stdout)).toEqual({ n: 1, tags: [tag] });
    expect(JSON.parse(heredoc.stdout)).toEqual({ n: 1, tags: [tag] });
  });

  it('an id that is no plain token is written empty, so it cannot forge another output', async () => {
    const dir = tempDir('rho-reports-');
    const output = join(dir, 'output');
    const sessionId = 'sess-1\nexit-code=0';
    const r = await run(
      [...SJ, '--strict', 'go'],
      {},
      {
        agent: scripted,
        env: {
          GITHUB_ACTIONS: 'true',
          GITHUB_OUTPUT: output,
          RHO_SCRIPT: JSON.stringify({
            session: { sessionId },
            before: [
              {
                jsonrpc: '2.0',
                method: 'session/update',
                params: {
                  sessionId,
                  update: {
                    sessionUpdate: 'agent_message_chunk',
                    content: { type: 'text', text: 'Error: ApiError: 500' },
                  },
                },
              },
            ],
          }),
        },
      },
    );
    expect(r.exitCode).toBe(1);
    const text = readFileSync(output, 'utf8');
    expect(text).not.toContain('exit-code=0');
    expect(githubOutputs(text)).toEqual({
      'exit-code': '1',
      'stop-reason': 'end_turn',
      'session-id': '',
    });
    // The result event still carries the agent's id, as JSON.
    expect(r.events.at(-1)).toMatchObject({ type: 'result', sessionId });
  });
});

describe.concurrent('--strict', () => {
  it('a rejected permission is exit 7 (denied) once the turn is over; without --strict, exit 0', async () => {
    const fake = { answers: ['I could not run it.'], ask: true };
    const [strict, lax] = await Promise.all([run([...SJ, '--strict', 'go'], fake), run([...SJ, 'go'], fake)]);
    for (const r of [strict, lax]) {
      expect(ofType(r, 'permission')).toEqual([
        expect.objectContaining({
          toolCallId: 'tool_sh',
          decision: { optionId: 'reject-once', kind: 'reject_once' },
        }),
      ]);
      expect(ofType(r, 'tool').at(-1)).toMatchObject({ toolCallId: 'tool_sh', status: 'rejected' });
      expect(ofType(r, 'message').map((m) => m.text)).toEqual(['I could not run it.']);
    }
    expect(strict.exitCode).toBe(7);
    expect(result(strict)).toMatchObject({ stopReason: 'end_turn', exitCode: 7, error: { code: 'denied' } });
    expect(errorLines(strict.stderr)).toEqual([expect.stringMatching(/^rho-cursor: .*--strict/)]);
    expect(lax.exitCode, lax.stderr).toBe(0);
    expect(result(lax).error).toBeUndefined();
  });

  it('an allowed permission is no failure under --strict', async () => {
    const r = await run([...SJ, '--strict', '--allow', 'execute', 'go'], { answers: ['ran'], ask: true });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(ofType(r, 'permission')[0]).toMatchObject({ decision: { kind: 'allow_once' } });
  });
});

describe.concurrent('--max-tool-calls', () => {
  it('the n+1th tool call cancels the turn: session/cancel, exit 4 (max_tool_calls), result last', async () => {
    const dir = tempDir('rho-reports-');
    const wire = join(dir, 'wire.jsonl');
    const r = await run(
      [...SJ, '--max-tool-calls', '2', '--wire-log', wire, 'go'],
      { tools: 5, hang: true },
      { dir },
    );
    expect(r.exitCode).toBe(4);
    // The fixture answers `cancelled` only once it received session/cancel.
    expect(result(r)).toMatchObject({
      stopReason: 'cancelled',
      exitCode: 4,
      error: { code: 'max_tool_calls', message: expect.stringContaining('more than 2 tool calls') },
    });
    const started = new Set(ofType(r, 'tool').map((t) => t.toolCallId));
    expect(started.size).toBeGreaterThanOrEqual(3);
    const rows = wireRows(wire);
    const third = rows.findIndex(
      (row) => row.dir === 'a2c' && JSON.stringify(row.msg).includes('"toolCallId":"tool_0_2"'),
    );
    const cancel = rows.findIndex((row) => row.dir === 'c2a' && row.msg.method === 'session/cancel');
    expect(third).toBeGreaterThan(0);
    expect(cancel).toBeGreaterThan(third);
    expect(rows[cancel]!.msg.params).toEqual({ sessionId: 'fixture-session-0001' });
    expect(errorLines(r.stderr)).toEqual([expect.stringMatching(/^rho-cursor: .*--max-tool-calls/)]);
  });

  it('n tool calls are within the bound', async () => {
    const r = await run([...SJ, '--max-tool-calls', '2', 'go'], { answers: ['two'], tools: 2 });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(result(r)).toMatchObject({ stopReason: 'end_turn' });
  });

  it('--max-tool-calls 0 cancels at the first tool call', async () => {
    const r = await run(['--max-tool-calls', '0', 'go'], { tools: 1, hang: true });
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toMatch(/more than 0 tool calls/);
  });
});
