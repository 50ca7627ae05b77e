// Property-based tests of the pure parts of the wire path: framing, the text-chunk fast path, normalising
// session/update, the key's redaction, and JSON-RPC classification. Each property says what must hold for
// every input, not for a few chosen ones; fast-check searches for a counterexample and shrinks it.
import fc from 'fast-check';
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { Connection } from '../../src/acp/connection.js';
import { methodNotFound } from '../../src/acp/handlers.js';
import { textChunkEvent } from '../../src/acp/fast-path.js';
import { LineBuffer } from '../../src/acp/framing.js';
import { classify, type Notification, type Request } from '../../src/acp/messages.js';
import { linkAgent } from '../../src/agent/link.js';
import type { AgentProcess } from '../../src/agent/process.js';
import { Event as EventSchema } from '../../src/events/schema.js';
import { ToolStore } from '../../src/events/tools.js';
import type { Event } from '../../src/events/types.js';
import { eventsFromUpdate, extension, type UpdateContext } from '../../src/events/updates.js';
import { Redactor, redact, secretForms } from '../../src/lifecycle/secrets.js';
import { StreamJsonRenderer } from '../../src/render/stream-json.js';
import { capture } from './render/capture.js';

// How many messages a line is routed as: one, or one per message of a non-empty batch.
function routes(line: string): number {
  try {
    const v: unknown = JSON.parse(line);
    return Array.isArray(v) && v.length > 0 ? v.length : 1;
  } catch {
    return 1;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Shared generators

// Characters that JSON has to escape or that tend to break hand-written parsers, and some multi-unit ones.
const NASTY = [
  '"',
  '\\',
  '/',
  '\n',
  '\r',
  '\t',
  '\b',
  '\f',
  '\u0000',
  '\u001f',
  '\u007f',
  '\u2028',
  '\u2029',
  '\ufeff',
  '}',
  '{',
  ',',
  ':',
  'u',
  '0',
  'a',
  'é',
  '日',
  '😀',
  '👩‍👩‍👧',
] as const;
const LONE_SURROGATES = ['\ud83d', '\ude00'] as const;

/** Any text a JSON string could hold: nasty characters, surrogate pairs, lone surrogates, anything. */
const anyText = (maxLength = 40): fc.Arbitrary<string> =>
  fc.oneof(
    fc.string({ maxLength, size: 'max', unit: fc.constantFrom(...NASTY, ...LONE_SURROGATES) }),
    fc.string({ maxLength, size: 'max', unit: 'grapheme' }),
    fc.string({ maxLength, size: 'max', unit: 'binary' }),
    fc.string({ maxLength, size: 'max' }),
  );

/** Cuts a byte stream (or a string) at arbitrary points, from no cut to one cut at every position. */
const cutsFor = (length: number): fc.Arbitrary<number[]> =>
  fc.oneof(
    fc.uniqueArray(fc.integer({ min: 1, max: Math.max(1, length - 1) }), { maxLength: Math.min(length, 24) }),
    fc.constant([...Array(Math.max(0, length - 1)).keys()].map((i) => i + 1)),
  );

function cutBytes(bytes: Uint8Array, cuts: number[]): Buffer[] {
  const at = [...new Set(cuts.filter((c) => c > 0 && c < bytes.length))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let start = 0;
  for (const c of [...at, bytes.length]) {
    chunks.push(Buffer.from(bytes.subarray(start, c)));
    start = c;
  }
  return chunks;
}

function cutString(text: string, cuts: number[]): string[] {
  const at = [...new Set(cuts.filter((c) => c > 0 && c < text.length))].sort((a, b) => a - b);
  const parts: string[] = [];
  let start = 0;
  for (const c of [...at, text.length]) {
    parts.push(text.slice(start, c));
    start = c;
  }
  return parts;
}

// ---------------------------------------------------------------------------------------------------------
// 1. Framing

const SESSION = 'sess-1';
const chunkLine = (sessionId: string, sessionUpdate: string, text: unknown): string =>
  JSON.stringify({
    jsonrpc: '2.0',
    method: 'session/update',
    params: { sessionId, update: { sessionUpdate, content: { type: 'text', text } } },
  });

/** One line the agent could write: text chunks (the fast path's), other messages, JSON values, garbage. */
const wireLine: fc.Arbitrary<string> = fc.oneof(
  anyText(12).map((t) => chunkLine(SESSION, 'agent_message_chunk', t)),
  anyText(12).map((t) => chunkLine('other', 'agent_thought_chunk', t)),
  fc
    .record({ id: fc.oneof(fc.integer(), fc.string(), fc.constant(null)), method: fc.string() })
    .map((m) => JSON.stringify({ jsonrpc: '2.0', ...m, params: {} })),
  fc.integer({ min: 0, max: 3 }).map((id) => JSON.stringify({ jsonrpc: '2.0', id, result: { ok: id } })),
  fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)),
  anyText(16),
);

/** A stream as the agent writes it: lines with LF, CRLF or no end, sometimes interleaved with raw bytes. */
const wireStream: fc.Arbitrary<{ bytes: Uint8Array; utf8: boolean }> = fc.oneof(
  fc
    .array(fc.tuple(wireLine, fc.constantFrom('\n', '\r\n', '\r', '')), { maxLength: 8 })
    .map((ls) => ({ bytes: Buffer.from(ls.map(([l, end]) => l + end).join('')), utf8: true })),
  fc
    .array(
      fc.oneof(
        wireLine.map((l) => Buffer.from(l + '\n')),
        fc.uint8Array({ maxLength: 12 }),
        // Starts of multi-byte characters with their continuation cut off, and stray continuation bytes.
        fc.constantFrom([0xf0, 0x9f], [0xe6, 0x97], [0xc3], [0x80, 0x80], [0xed, 0xa0, 0x80], [0xff], [0x0d]),
      ),
      { maxLength: 8 },
    )
    .map((parts) => ({ bytes: Buffer.concat(parts.map((p) => Buffer.from(p))), utf8: false })),
);

function feed(chunks: Buffer[]): { lines: string[]; pending: string } {
  const buffer = new LineBuffer();
  const lines: string[] = [];
  for (const chunk of chunks) buffer.push(chunk, (line) => lines.push(line));
  return { lines, pending: buffer.pending() };
}

type Seen = [string, ...unknown[]];

// No handler is registered, so every request reaches the fallback: recorded, and answered -32601 as by default.
function seeRequests(conn: Connection, seen: Seen[]): void {
  conn.fallback((m: Request) => {
    seen.push(['request', m]);
    throw methodNotFound(m.method);
  });
}

// The agent link end to end (framing, fast path, classification, dispatch) over a fake agent process.
function throughLink(chunks: Buffer[], sessionId: string | null): Seen[] {
  const seen: Seen[] = [];
  const stdout = Object.assign(new EventEmitter(), { pause() {}, resume() {} });
  const child = Object.assign(new EventEmitter(), { stdout });
  const agent = {
    child,
    exited: Promise.resolve({ code: 0, signal: null }),
    write: () => true,
    stderrTail: () => '',
  } as unknown as AgentProcess;
  const conn = linkAgent(agent, {
    label: 'agent',
    phase: () => 'prompt',
    wire: undefined,
    onActivity: () => {},
    onText: (e) => seen.push(['text', e]),
    onNotification: (m) => seen.push(['notification', m]),
    onInvalid: (line, reason) => seen.push(['invalid', line, reason]),
    sessionId: () => sessionId,
    flush: () => true,
    whenWritable: (go: () => void) => go(),
  });
  seeRequests(conn, seen);
  for (const c of chunks) stdout.emit('data', c);
  stdout.emit('end');
  return seen;
}

describe('framing: any chunking of the agent’s output reads the same', () => {
  it('yields the same lines and the same unfinished rest however the bytes are cut', () => {
    fc.assert(
      fc.property(
        wireStream.chain((s) => fc.tuple(fc.constant(s), cutsFor(s.bytes.length))),
        ([{ bytes, utf8 }, cuts]) => {
          const whole = feed([Buffer.from(bytes)]);
          expect(feed(cutBytes(bytes, cuts))).toEqual(whole);
          if (utf8) {
            // Valid UTF-8 also matches a plain split on LF: one trailing CR dropped, empty lines skipped, and a
            // byte order mark that starts the stream dropped.
            const parts = Buffer.from(bytes)
              .toString('utf8')
              .replace(/^\ufeff/, '')
              .split('\n');
            const rest = parts.pop()!;
            const lines = parts.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l)).filter((l) => l !== '');
            expect(whole).toEqual({ lines, pending: rest });
          }
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('splits inside every multi-byte character and every CRLF change nothing', () => {
    const text = 'a😀\r\n日本\r\n\r\né"\\\r\n👩‍👩‍👧\r';
    const bytes = Buffer.from(text);
    const whole = feed([bytes]);
    expect(whole).toEqual({ lines: ['a😀', '日本', 'é"\\'], pending: '👩‍👩‍👧\r' });
    fc.assert(
      fc.property(cutsFor(bytes.length), (cuts) => {
        expect(feed(cutBytes(bytes, cuts))).toEqual(whole);
      }),
      { numRuns: 300 },
    );
  });

  it('never throws on arbitrary bytes, however cut', () => {
    fc.assert(
      fc.property(
        fc
          .uint8Array({ maxLength: 400, size: 'max' })
          .chain((b) => fc.tuple(fc.constant(b), cutsFor(b.length))),
        ([bytes, cuts]) => {
          const buffer = new LineBuffer();
          for (const chunk of cutBytes(bytes, cuts)) buffer.push(chunk, () => {});
          buffer.pending();
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('delivers the same messages through the agent link however the bytes are cut', () => {
    fc.assert(
      fc.property(
        wireStream.chain((s) => fc.tuple(fc.constant(s), cutsFor(s.bytes.length))),
        fc.constantFrom(null, SESSION),
        ([{ bytes, utf8 }, cuts], sessionId) => {
          const whole = throughLink([Buffer.from(bytes)], sessionId);
          expect(throughLink(cutBytes(bytes, cuts), sessionId)).toEqual(whole);
          if (utf8) {
            // Every line is handled once, the last one too when the agent left it without a newline.
            const parts = Buffer.from(bytes).toString('utf8').split('\n');
            const rest = parts.pop()!;
            // A batch (contract v3) is routed once per message it holds.
            const lines = [
              ...parts.filter((l) => l !== '' && l !== '\r'),
              ...(rest.trim() === '' ? [] : [rest]),
            ];
            expect(whole).toHaveLength(lines.reduce((n, l) => n + routes(l.replace(/\r$/, '')), 0));
          }
        },
      ),
      { numRuns: 800 },
    );
  });
});

// ---------------------------------------------------------------------------------------------------------
// 2. The text-chunk fast path agrees with the general path

const newContext = (sessionId: string | null = null): UpdateContext => ({
  tools: new ToolStore(),
  lastTodos: '',
  title: null,
  mode: null,
  sessionId,
});

// What the general path makes of a line: JSON.parse, classification, then eventsFromUpdate.
function generalPath(line: string, sessionId: string | null): Event[] | string {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return 'not JSON';
  }
  const msg = classify(value);
  if (msg.kind !== 'notification') return msg.kind;
  if (msg.msg.method !== 'session/update') return 'another method';
  return eventsFromUpdate(msg.msg.params, newContext(sessionId));
}

const PREFIX = '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"';
const MIDDLE = '","update":{"sessionUpdate":"agent_';
const TEXT_AT = '_chunk","content":{"type":"text","text":"';
const SUFFIX = '"}}}}';
/** Raw string-literal bodies: escapes valid and broken, quotes, control characters, unicode. */
const rawBody = fc.oneof(
  fc.string({
    maxLength: 20,
    unit: fc.constantFrom('"', '\\', 'u', 'd', '8', '3', '0', 'A', 'n', '/', '\t', '\u0001', '}', 'é', '😀'),
  }),
  anyText(20),
);

const sessionIdArb = fc.oneof(fc.constant(SESSION), fc.uuid(), anyText(8));

/** A text-chunk line: as JSON.stringify writes it, spliced by hand from raw bodies, or one edit away. */
const textChunkLine: fc.Arbitrary<{ line: string; sessionId: string }> = fc.oneof(
  fc
    .record({
      sessionId: sessionIdArb,
      kind: fc.constantFrom('agent_message_chunk', 'agent_thought_chunk'),
      text: anyText(40),
    })
    .map(({ sessionId, kind, text }) => ({ line: chunkLine(sessionId, kind, text), sessionId })),
  fc
    .record({
      sessionId: fc.oneof(sessionIdArb, rawBody),
      kind: fc.constantFrom('message', 'thought', 'message_chunk', ''),
      text: rawBody,
    })
    .map(({ sessionId, kind, text }) => ({
      line: PREFIX + sessionId + MIDDLE + kind + TEXT_AT + text + SUFFIX,
      sessionId,
    })),
  fc
    .record({
      sessionId: sessionIdArb,
      text: anyText(20),
      // Anywhere, or near the end, where the text's closing quote and the line's last braces are.
      at: fc.oneof(fc.nat(), fc.integer({ min: -8, max: -1 })),
      edit: fc.constantFrom('', '"', '\\', ' ', '}', ',"x":1', '\t'),
      drop: fc.integer({ min: 0, max: 2 }),
    })
    .map(({ sessionId, text, at, edit, drop }) => {
      const line = chunkLine(sessionId, 'agent_message_chunk', text);
      const i = at < 0 ? line.length + at : at % (line.length + 1);
      return { line: line.slice(0, i) + edit + line.slice(i + drop), sessionId };
    }),
);

describe('fast path: a text chunk read without parsing is what the general path reads', () => {
  it('produces exactly the general path’s event, or leaves the line to it', () => {
    fc.assert(
      fc.property(
        textChunkLine,
        fc.oneof(fc.constant('unknown'), fc.constant('same'), anyText(8)),
        ({ line, sessionId }, known) => {
          const ours = known === 'unknown' ? null : known === 'same' ? sessionId : known;
          const fast = textChunkEvent(line, ours);
          if (fast !== undefined) expect(generalPath(line, ours)).toEqual([fast]);
        },
      ),
      {
        numRuns: 5000,
        examples: [
          // Found by this property: a raw control character in the session id (not JSON at all) was read
          // as a chunk; a line whose text lost its closing quote was read as an empty chunk; and a session
          // id with an escape in it was compared undecoded.
          [
            { line: PREFIX + '\u0000' + MIDDLE + 'message' + TEXT_AT + SUFFIX, sessionId: '\u0000' },
            'unknown',
          ],
          [{ line: PREFIX + SESSION + MIDDLE + 'message' + TEXT_AT + '}}}}', sessionId: SESSION }, 'same'],
          [
            {
              line: PREFIX + 'a\\u0062' + MIDDLE + 'message' + TEXT_AT + 'hi' + SUFFIX,
              sessionId: 'a\\u0062',
            },
            'same',
          ],
        ],
      },
    );
  });

  it('takes every line Cursor writes for this session, and none before the session is known', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('agent_message_chunk', 'agent_thought_chunk'),
        anyText(60),
        fc.boolean(),
        (kind, text, known) => {
          const line = chunkLine(SESSION, kind, text);
          expect(textChunkEvent(line, known ? SESSION : null)).toEqual(
            known ? generalPath(line, SESSION)[0] : undefined,
          );
        },
      ),
      { numRuns: 1000 },
    );
  });
});

// ---------------------------------------------------------------------------------------------------------
// 3. Normalising session/update

const KNOWN_KINDS = [
  'agent_message_chunk',
  'agent_thought_chunk',
  'tool_call',
  'tool_call_update',
  'plan',
  'current_mode_update',
  'config_option_update',
  'session_info_update',
  'usage_update',
  'notice',
] as const;

// Fields the known kinds read, so that generated updates reach the code behind each of them.
const updateField = fc.record(
  {
    content: fc.oneof(
      fc.jsonValue({ maxDepth: 2 }),
      fc.record({
        type: fc.constantFrom('text', 'image', 'resource', 'resource_link', 'diff'),
        text: fc.string(),
      }),
      fc.array(
        fc.record({
          type: fc.constantFrom('diff', 'content', 'text'),
          path: fc.jsonValue({ maxDepth: 0 }),
          oldText: fc.oneof(fc.string(), fc.constant('-- /dev/null'), fc.constant(null)),
          newText: fc.oneof(fc.string(), fc.constant('++ b/x\nbody')),
          content: fc.record({ type: fc.constant('text'), text: fc.string() }),
        }),
        { maxLength: 3 },
      ),
    ),
    toolCallId: fc.oneof(fc.constantFrom('t1', 't2'), fc.jsonValue({ maxDepth: 0 })),
    kind: fc.oneof(
      fc.constantFrom('execute', 'read', 'edit', 'search', 'other'),
      fc.jsonValue({ maxDepth: 0 }),
    ),
    title: fc.jsonValue({ maxDepth: 1 }),
    status: fc.oneof(fc.constantFrom(...['pending', 'in_progress', 'completed', 'failed']), fc.jsonValue()),
    rawInput: fc.oneof(
      fc.jsonValue({ maxDepth: 2 }),
      fc.record({ _toolName: fc.constant('updateTodos'), todos: fc.jsonValue({ maxDepth: 2 }) }),
    ),
    rawOutput: fc.jsonValue({ maxDepth: 2 }),
    locations: fc.jsonValue({ maxDepth: 2 }),
    entries: fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.array(fc.dictionary(fc.string(), fc.jsonValue()))),
    currentModeId: fc.jsonValue({ maxDepth: 0 }),
    modeId: fc.jsonValue({ maxDepth: 0 }),
    configOptions: fc.oneof(
      fc.jsonValue({ maxDepth: 2 }),
      fc.array(
        fc.record({
          type: fc.oneof(fc.constant('select'), fc.jsonValue({ maxDepth: 0 })),
          id: fc.oneof(fc.constantFrom('mode', 'model'), fc.jsonValue({ maxDepth: 0 })),
          currentValue: fc.jsonValue({ maxDepth: 0 }),
        }),
        { maxLength: 3 },
      ),
    ),
    used: fc.jsonValue({ maxDepth: 0 }),
    size: fc.jsonValue({ maxDepth: 0 }),
    cost: fc.jsonValue({ maxDepth: 1 }),
    severity: fc.oneof(fc.constantFrom('warning', 'error', 'info'), fc.jsonValue({ maxDepth: 0 })),
    description: fc.jsonValue({ maxDepth: 0 }),
  },
  { requiredKeys: [] },
);

const knownUpdate = fc
  .tuple(
    fc.constantFrom(...KNOWN_KINDS),
    updateField,
    fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 1 })),
  )
  .map(([sessionUpdate, fields, extra]) => ({ ...extra, ...fields, sessionUpdate }));

const sessionParams = (update: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> =>
  fc.record(
    { sessionId: fc.oneof(fc.constant(SESSION), fc.string(), fc.jsonValue({ maxDepth: 0 })), update },
    { requiredKeys: ['update'] },
  );

const unknownKind = fc.oneof(
  fc.string().filter((k) => !(KNOWN_KINDS as readonly string[]).includes(k)),
  fc.constantFrom('user_message_chunk', 'available_commands_update', 'Plan', ''),
  fc.jsonValue({ maxDepth: 1 }).filter((k) => typeof k !== 'string'),
);

describe('normalising: every update becomes events, and nothing is thrown', () => {
  it('never throws on any JSON value as params, and every event it makes fits the published schema', () => {
    const params = fc.oneof(
      fc.jsonValue(),
      sessionParams(fc.jsonValue()),
      sessionParams(knownUpdate),
      sessionParams(updateField.map((f) => ({ ...f, sessionUpdate: 'tool_call' }))),
    );
    fc.assert(
      fc.property(
        fc.array(params, { minLength: 1, maxLength: 4 }),
        fc.constantFrom(null, SESSION),
        fc.boolean(),
        (all, sessionId, keepFinished) => {
          const ctx = { ...newContext(sessionId), tools: new ToolStore(keepFinished) };
          for (const p of all) {
            for (const e of eventsFromUpdate(p, ctx)) {
              // As written: JSON.stringify turns a number it cannot write (Infinity) into null.
              const parsed = EventSchema.safeParse(JSON.parse(JSON.stringify(e)));
              expect(parsed.success, JSON.stringify({ e, issues: parsed.error?.issues })).toBe(true);
            }
          }
        },
      ),
      {
        numRuns: 600,
        // Found by this property: a location without a string path broke the tool event's schema.
        examples: [
          // Found by review: numbers past the double range (1e400) parse as Infinity and were written null.
          [
            JSON.parse(
              '[{"update":{"sessionUpdate":"usage_update","used":1e400,"size":-1e400,"cost":{"amount":1e999,"currency":"USD"}}},' +
                '{"update":{"sessionUpdate":"tool_call","toolCallId":"t","kind":"execute","locations":[{"path":"x","line":1e400}],' +
                '"rawOutput":{"exitCode":1e400,"stdout":""}}}]',
            ) as unknown[],
            null,
            true,
          ],
          [[{ update: { sessionUpdate: 'tool_call', locations: [{}, { path: 5 }] } }], null, true],
          // Found by this property: an update's own __proto__ field became the prototype of its `extra`.
          [
            [
              JSON.parse(
                '{"update":{"__proto__":[],"content":{"type":"text","text":""},"sessionUpdate":"agent_message_chunk"}}',
              ) as unknown,
            ],
            null,
            false,
          ],
        ],
      },
    );
  });

  it('stream-json writes every event as JSON.stringify does: nothing dropped by its shortcuts', () => {
    const params = fc.oneof(
      sessionParams(knownUpdate),
      sessionParams(updateField.map((f) => ({ ...f, sessionUpdate: 'tool_call' }))),
      sessionParams(updateField.map((f) => ({ ...f, sessionUpdate: 'tool_call_update' }))),
    );
    fc.assert(
      fc.property(fc.array(params, { minLength: 1, maxLength: 6 }), fc.boolean(), (all, keepFinished) => {
        const ctx = { ...newContext(SESSION), tools: new ToolStore(keepFinished) };
        for (const p of all) {
          for (const e of eventsFromUpdate(p, ctx)) {
            const out = capture();
            const r = new StreamJsonRenderer(out);
            r.emit(e);
            r.flush();
            expect(out.text).toBe(JSON.stringify(e) + '\n');
          }
        }
      }),
      { numRuns: 800 },
    );
  });

  it("a tool's input merged by a later update is written whole, an own __proto__ key kept as a key", () => {
    const ctx = newContext(SESSION);
    const lines: string[] = [];
    for (const update of [
      { sessionUpdate: 'tool_call', toolCallId: 't1', kind: 'edit', rawInput: { path: 'a' } },
      { sessionUpdate: 'tool_call_update', toolCallId: 't1', status: 'in_progress' },
      { sessionUpdate: 'tool_call_update', toolCallId: 't1', rawInput: { text: 'b' } },
      JSON.parse('{"sessionUpdate":"tool_call_update","toolCallId":"t1","rawInput":{"__proto__":{"x":1}}}'),
    ]) {
      const out = capture();
      const r = new StreamJsonRenderer(out);
      for (const e of eventsFromUpdate({ sessionId: SESSION, update }, ctx)) r.emit(e);
      r.flush();
      lines.push(out.text);
    }
    expect(lines.map((l) => (JSON.parse(l) as { input: unknown }).input)).toEqual([
      { path: 'a' },
      { path: 'a' },
      { path: 'a', text: 'b' },
      JSON.parse('{"path":"a","text":"b","__proto__":{"x":1}}'),
    ]);
  });

  // What is promised for every kind rho-cursor does not name. Known kinds are normalised into their own
  // events and do not keep unknown fields (params._meta, update._meta, content annotations, extra rawOutput
  // fields...): that is not asserted here either way.
  it('keeps an unknown update kind whole, as an extension event', () => {
    const update = fc
      .tuple(unknownKind, fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 })), updateField)
      .map(([sessionUpdate, extra, fields]) => ({ ...extra, ...fields, sessionUpdate }));
    fc.assert(
      fc.property(
        fc.oneof(
          sessionParams(update),
          sessionParams(update).map((p) => ({ ...(p as object), _meta: { x: [1, '2'] }, more: 'kept' })),
        ),
        fc.constantFrom(null, SESSION),
        (params, sessionId) => {
          const before = structuredClone(params);
          const events = eventsFromUpdate(params, newContext(sessionId));
          // An update for another session also brings a warning; the update itself is always the last event.
          expect(events.at(-1)).toEqual(extension('session/update', before));
          expect(events.slice(0, -1).every((e) => e.type === 'warning')).toBe(true);
          expect(params).toEqual(before);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('keeps the fields a known update kind does not name, as extra on its event', () => {
    // Well-formed updates of each known kind an event names, plus fields ACP does not define there.
    const known = fc.constantFrom(
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hi' } },
      { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'hm' } },
      { sessionUpdate: 'tool_call', toolCallId: 't1', title: 'ls', kind: 'execute', status: 'pending' },
      { sessionUpdate: 'current_mode_update', currentModeId: 'plan' },
      { sessionUpdate: 'plan', entries: [{ content: 'x', status: 'pending' }] },
      { sessionUpdate: 'notice', severity: 'error', title: 'boom' },
    );
    const reserved = new Set([
      'sessionUpdate',
      'content',
      'toolCallId',
      'title',
      'kind',
      'status',
      'locations',
      'rawInput',
      'rawOutput',
      'currentModeId',
      'modeId',
      'entries',
      'severity',
      'level',
      'description',
      '__proto__',
      'constructor',
    ]);
    const extras = fc.dictionary(
      fc.string({ minLength: 1 }).filter((k) => !reserved.has(k)),
      fc.jsonValue({ maxDepth: 2 }),
      { minKeys: 1 },
    );
    fc.assert(
      fc.property(known, extras, (update, extra) => {
        const events = eventsFromUpdate(
          { sessionId: SESSION, update: { ...update, ...extra } },
          newContext(SESSION),
        );
        expect((events[0] as { extra?: unknown }).extra).toEqual(extra);
      }),
      { numRuns: 500 },
    );
  });

  it('keeps params whole when they are not an update at all', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.jsonValue().filter((v) => !(v !== null && typeof v === 'object' && 'update' in v)),
          sessionParams(
            fc.jsonValue().filter((u) => u === null || typeof u !== 'object' || Array.isArray(u)),
          ),
        ),
        (params) => {
          expect(eventsFromUpdate(params, newContext())).toEqual([
            { type: 'extension', method: 'session/update', params: structuredClone(params) ?? null },
          ]);
        },
      ),
      { numRuns: 1000 },
    );
  });
});

// ---------------------------------------------------------------------------------------------------------
// 4. Redacting the key

const SHORT_ESCAPES: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '/': '\\/',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};
const hex4 = (unit: string): string => unit.charCodeAt(0).toString(16).padStart(4, '0');
const jsonEscaped = (key: string): string => JSON.stringify(key).slice(1, -1);
// Every UTF-16 unit as \uXXXX: how an ASCII-only encoder writes a key (a surrogate pair is two escapes).
const unicodeEscaped = (key: string, upper = false): string =>
  key
    .split('')
    .map((u) => '\\u' + (upper ? hex4(u).toUpperCase() : hex4(u)))
    .join('');

// May a JSON string hold this UTF-16 unit as it is? Quotes, backslashes and control characters must be escaped.
const literalInJson = (u: string): boolean => u !== '"' && u !== '\\' && u.charCodeAt(0) >= 0x20;

/**
 * Does the text hold the key, plain or in any spelling a JSON string could give it: each UTF-16 unit as
 * itself (where JSON allows), as its short escape, or as \uXXXX in either case? An oracle independent of
 * secrets.ts: it follows every spelling at once. With anyLiteral, also spellings no JSON text would hold
 * (a raw quote or control character among escapes), which the redactor may mask too.
 */
function holdsKey(text: string, key: string, anyLiteral = false): boolean {
  if (text.includes(key)) return true;
  const units = key.split('');
  for (let start = 0; start < text.length; start++) {
    let at = new Set([start]);
    for (const u of units) {
      const next = new Set<number>();
      for (const p of at) {
        if ((anyLiteral || literalInJson(u)) && text.startsWith(u, p)) next.add(p + 1);
        const short = SHORT_ESCAPES[u];
        if (short && text.startsWith(short, p)) next.add(p + 2);
        if (text.slice(p, p + 6).toLowerCase() === '\\u' + hex4(u)) next.add(p + 6);
      }
      at = next;
      if (at.size === 0) break;
    }
    if (at.size > 0) return true;
  }
  return false;
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_'.split('');

/**
 * A key: at least 8 units, with what JSON escapes (quotes, backslashes, slashes, controls) and unicode; or
 * shaped like a real one (base64, whose slashes an encoder may write as \/).
 */
const keyArb = fc
  .oneof(
    fc.string({
      unit: fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...BASE64) }, fc.constantFrom('/', '+')),
      minLength: 8,
      maxLength: 40,
    }),
    fc
      .array(
        fc.oneof(
          fc.constantFrom(...'abcXYZ09-_'.split('')),
          fc.constantFrom(
            '"',
            '\\',
            '/',
            '\n',
            '\t',
            '\u0000',
            '\u001f',
            '\u007f',
            '\u2028',
            'é',
            '日',
            '😀',
          ),
          fc.constantFrom('[', ']', 'r', 'e', 'd', 'a', 'c', 't'),
          fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
        ),
        { minLength: 8, maxLength: 20 },
      )
      .map((units) => units.join('')),
  )
  .filter((key) => !maskCanSpell(key));

const MASK = '[redacted]';
/**
 * Known limit, left out of the properties: a key that ends with the start of the mask ("…[", "…[re") or
 * starts with its end ("]…", "ted]…") is spelled again by the mask and the text beside it, and a key inside
 * the mask ("redacted") is written by every mask. No real key looks like this.
 */
function maskCanSpell(key: string): boolean {
  if (MASK.includes(key)) return true;
  for (let i = 1; i <= MASK.length; i++)
    if (key.endsWith(MASK.slice(0, i)) || key.startsWith(MASK.slice(-i))) return true;
  return false;
}

/**
 * One JSON spelling of the key, chosen per unit: itself (where JSON allows), its short escape, or \uXXXX in
 * lower or upper case. Each spelling draws from its own subset of those, so that spellings with no \u at all
 * (a \/ among literals, say) come up as often as fully mixed ones.
 */
const spellingOf = (key: string): fc.Arbitrary<string> =>
  fc
    .subarray([0, 1, 2, 3], { minLength: 1 })
    .chain((ways) => fc.array(fc.constantFrom(...ways), { minLength: key.length, maxLength: key.length }))
    .map((choice) =>
      key
        .split('')
        .map((u, i) => {
          const c = choice[i]!;
          if (c === 1 && SHORT_ESCAPES[u]) return SHORT_ESCAPES[u];
          if (c <= 1 && literalInJson(u)) return u;
          if (c <= 1 && SHORT_ESCAPES[u]) return SHORT_ESCAPES[u];
          return '\\u' + (c === 3 ? hex4(u).toUpperCase() : hex4(u));
        })
        .join(''),
    );

/** Text around the key: ordinary text and pieces of the key itself, to make near misses and overlaps. */
const fillerOf = (key: string): fc.Arbitrary<string> => {
  const escaped = jsonEscaped(key);
  return fc.oneof(
    anyText(10),
    fc.integer({ min: 1, max: key.length - 1 }).map((n) => key.slice(0, n)),
    fc.integer({ min: 1, max: key.length - 1 }).map((n) => key.slice(n)),
    fc.integer({ min: 1, max: escaped.length - 1 }).map((n) => escaped.slice(0, n)),
    fc.constantFrom('[redacted]', '\\', '\\u', '\\u00', '"'),
  );
};

function redactStreaming(parts: string[], key: string): string {
  const r = new Redactor(key);
  return parts.map((p) => r.push(p)).join('') + r.end();
}

describe('redaction: the key never gets out, and nothing else is changed', () => {
  it('masks the key, plain or JSON-escaped, however the text is cut across writes', () => {
    const input = keyArb.chain((key) =>
      fc
        .array(
          fc.oneof(
            { weight: 3, arbitrary: fillerOf(key) },
            {
              weight: 2,
              arbitrary: fc.constantFrom(
                key,
                jsonEscaped(key),
                unicodeEscaped(key),
                unicodeEscaped(key, true),
              ),
            },
          ),
          { minLength: 1, maxLength: 8 },
        )
        .map((parts) => [key, ...parts].join(''))
        .chain((text) => fc.tuple(fc.constant(key), fc.constant(text), cutsFor(text.length))),
    );
    fc.assert(
      fc.property(input, ([key, text, cuts]) => {
        const out = redactStreaming(cutString(text, cuts), key);
        for (const form of [key, jsonEscaped(key), unicodeEscaped(key), unicodeEscaped(key, true)])
          expect(out.includes(form), `${JSON.stringify(form)} in ${JSON.stringify(out)}`).toBe(false);
      }),
      { numRuns: 800 },
    );
  });

  it('masks the key in any JSON spelling in a whole text (wire log, -o, summaries)', () => {
    const input = keyArb.chain((key) =>
      fc.tuple(
        fc.constant(key),
        fc
          .array(fc.oneof(fillerOf(key), spellingOf(key), fc.constant(key)), { minLength: 1, maxLength: 6 })
          .map((p) => p.join('')),
      ),
    );
    fc.assert(
      fc.property(input, ([key, text]) => {
        const out = redact(text, secretForms(key));
        expect(holdsKey(out, key), JSON.stringify(out)).toBe(false);
      }),
      {
        numRuns: 1200,
        examples: [
          // Found by this property: a base64 key with its slashes written \/ (PHP, org.json) got through,
          // and so did a character outside the BMP written as its two \u escapes.
          [['aQue=wTO+Y/mj56M+i4rm5WVB', '{"k":"aQue=wTO+Y\\/mj56M+i4rm5WVB"}']],
          [['key-😀-12345', 'key-\\ud83d\\ude00-12345']],
        ],
      },
    );
  });

  it('keeps a JSON text JSON, with no key in what it holds, however it is cut', () => {
    // The agent's own text, serialised as every JSON sink does: its backslashes are escaped there, so a key
    // or a spelling of it right after one starts inside an escape (`\\u0061...`, `\nbc...`).
    // Known limit: a key with a character JSON must escape (a quote, a backslash, a control) matches
    // the JSON text's own syntax when written as itself (a key starting with `"` takes the string's opening
    // quote along), and the plain text sinks need that literal match. Real keys are tokens: base64, hex.
    const input = keyArb
      .filter((key) => key.split('').every(literalInJson))
      .chain((key) =>
        fc
          .array(
            fc.oneof(fillerOf(key), spellingOf(key), fc.constant(key), fc.constantFrom('\\', '\\\\', 'n')),
            { minLength: 1, maxLength: 8 },
          )
          .map((p) => JSON.stringify({ text: p.join('') }))
          .chain((json) => fc.tuple(fc.constant(key), fc.constant(json), cutsFor(json.length))),
      );
    fc.assert(
      fc.property(input, ([key, json, cuts]) => {
        for (const out of [redact(json, secretForms(key)), redactStreaming(cutString(json, cuts), key)]) {
          const value = JSON.parse(out) as { text: string };
          expect(value.text.includes(key), out).toBe(false);
        }
      }),
      {
        numRuns: 800,
        examples: [
          // Found by review: the agent's `\u0061bcdefgh12345678` (a backslash and text) was masked from its
          // second backslash on, leaving `"\[redacted]"`, which is not JSON.
          [['abcdefgh12345678', JSON.stringify({ text: 'x \\u0061bcdefgh12345678 y' }), []]],
          [['nbcdefgh12345678', JSON.stringify({ text: '\nbcdefgh12345678' }), [3]]],
          // Found by review of that fix: a match that starts on the last digit of `\u000b` (the agent's \v).
          [['bcdefgh12345678', JSON.stringify({ text: '\vcdefgh12345678' }), []]],
          [['bcdefgh12345678', JSON.stringify({ text: 'a\vcdefgh12345678\\' }), [12, 13, 14]]],
        ],
      },
    );
  });

  it('passes text without the key through unchanged, however it is cut', () => {
    const input = keyArb.chain((key) =>
      fc
        .array(fillerOf(key), { maxLength: 8 })
        .map((p) => p.join(''))
        .filter((text) => !holdsKey(text, key, true))
        .chain((text) => fc.tuple(fc.constant(key), fc.constant(text), cutsFor(text.length))),
    );
    fc.assert(
      fc.property(input, ([key, text, cuts]) => {
        expect(redactStreaming(cutString(text, cuts), key)).toBe(text);
        expect(redact(text, secretForms(key))).toBe(text);
      }),
      { numRuns: 800 },
    );
  });
});

// ---------------------------------------------------------------------------------------------------------
// 5. Classifying what arrives

function connection(): { conn: Connection; seen: Seen[] } {
  const seen: Seen[] = [];
  const conn = new Connection({
    send: () => {},
    onNotification: (m: Notification) => seen.push(['notification', m]),
    onInvalid: (line, reason) => seen.push(['invalid', line, reason]),
    onWire: () => {},
  });
  seeRequests(conn, seen);
  return { conn, seen };
}

const messageLike = fc.record(
  {
    jsonrpc: fc.oneof(fc.constant('2.0'), fc.jsonValue({ maxDepth: 0 })),
    id: fc.oneof(
      fc.integer({ min: 0, max: 3 }),
      fc.string(),
      fc.constant(null),
      fc.jsonValue({ maxDepth: 1 }),
    ),
    method: fc.oneof(fc.string(), fc.jsonValue({ maxDepth: 1 })),
    params: fc.jsonValue({ maxDepth: 2 }),
    result: fc.jsonValue({ maxDepth: 2 }),
    error: fc.oneof(
      fc.record({
        code: fc.jsonValue({ maxDepth: 0 }),
        message: fc.jsonValue({ maxDepth: 0 }),
        data: fc.jsonValue(),
      }),
      fc.jsonValue({ maxDepth: 2 }),
    ),
  },
  { requiredKeys: [] },
);

describe('classification: any line is handled, and never thrown', () => {
  it('never throws from handleLine, with requests pending, and routes each line exactly once', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.jsonValue().map((v) => JSON.stringify(v)),
            messageLike.map((m) => JSON.stringify(m)),
            anyText(),
          ),
          { maxLength: 8 },
        ),
        (lines) => {
          const { conn, seen } = connection();
          let answered = 0;
          for (let i = 0; i < 3; i++) conn.request('m', {}, undefined, () => answered++).catch(() => {});
          for (const line of lines) {
            const before = seen.length + answered;
            conn.handleLine(line);
            // Each line is a request, a notification, an invalid line, or the answer to a pending request;
            // a batch (contract v3) is each of the messages it holds.
            expect(seen.length + answered - before).toBe(routes(line));
          }
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('takes a message with a method and id null as a request, never a notification', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.option(fc.jsonValue({ maxDepth: 2 }), { nil: undefined }),
        fc.dictionary(
          fc.string().filter((k) => !['id', 'method', 'params', '__proto__'].includes(k)),
          fc.jsonValue({ maxDepth: 1 }),
        ),
        (method, params, extra) => {
          const msg = {
            ...extra,
            jsonrpc: '2.0',
            id: null,
            method,
            ...(params === undefined ? {} : { params }),
          };
          expect(classify(msg).kind).toBe('request');
          const { conn, seen } = connection();
          conn.handleLine(JSON.stringify(msg));
          expect(seen).toHaveLength(1);
          expect(seen[0]![0]).toBe('request');
          expect((seen[0]![1] as Request).id).toBeNull();
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('classifies by the id and method alone: a method with an id is a request, without one a notification', () => {
    fc.assert(
      fc.property(messageLike, (m) => {
        const got = classify(m).kind;
        const id = (m as Record<string, unknown>).id;
        const hasId = 'id' in m;
        if (typeof m.method === 'string') {
          if (!hasId) expect(got).toBe('notification');
          else if (id === null || typeof id === 'number' || typeof id === 'string')
            expect(got).toBe('request');
          else expect(got).toBe('invalid');
        } else {
          expect(got).not.toBe('request');
          expect(got).not.toBe('notification');
        }
      }),
      { numRuns: 2000 },
    );
  });
});
