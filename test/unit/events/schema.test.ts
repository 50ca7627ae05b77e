import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RunSummary } from '../../../src/events/collect.js';
import { ERROR_CODES } from '../../../src/errors.js';
import { Event, JsonOutput, jsonSchemas } from '../../../src/events/schema.js';
import { ToolStore } from '../../../src/events/tools.js';
import type { Event as EventType, ResultEvent } from '../../../src/events/types.js';
import { eventsFromUpdate, type UpdateContext } from '../../../src/events/updates.js';

const RECORDINGS = new URL('../../../recordings/', import.meta.url);

// Every event the update pipeline makes from one recording's session/update notifications.
function eventsOfRecording(name: string): EventType[] {
  const ctx: UpdateContext = { tools: new ToolStore(), lastTodos: '', title: null, mode: null };
  const events: EventType[] = [];
  for (const line of readFileSync(new URL(name, RECORDINGS), 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const entry = JSON.parse(line) as { dir?: string; msg?: { method?: string; params?: unknown } };
    if (entry.dir === 'a2c' && entry.msg?.method === 'session/update') {
      events.push(...eventsFromUpdate(entry.msg.params, ctx));
    }
  }
  return events;
}

const result: ResultEvent = {
  type: 'result',
  stopReason: 'end_turn',
  exitCode: 0,
  sessionId: '61a41a25',
  model: 'composer-2.5[fast=true]',
  mode: 'agent',
  title: 'Tidy Up The Greeting',
  durationMs: 9800,
  timings: { initializeMs: 476, sessionNewMs: 2810, promptMs: 6500 },
  usage: null,
  structured: null,
};

const samples: EventType[] = [
  {
    type: 'session',
    sessionId: '61a41a25',
    model: 'composer-2.5[fast=true]',
    mode: 'agent',
    modes: ['agent', 'plan', 'ask'],
    configDir: '/home/dev/.cursor',
    configDirSource: 'home',
    approvalMode: 'unrestricted',
    permissions: 'reject',
    allow: ['read'],
    rules: { allow: ['read', 'Shell(npm:test)'], deny: ['Shell(git:push)'] },
    cwd: '/workspace',
    agent: { name: null, title: null, version: null, cursor: true },
    fence: {
      name: 'read-only',
      blocked: ['edit', 'execute', 'fetch'],
      open: ['read', 'search'],
      by: "Cursor's deny rules in a private config dir, and permission answers",
    },
    resumed: false,
    replayed: 0,
  },
  {
    type: 'attempt',
    attempt: 1,
    error: { code: 'agent_exited', message: 'cursor-agent exited with code 1 during prompt' },
    retryInMs: 1000,
  },
  { type: 'history', update: { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'hi' } } },
  {
    type: 'history',
    update: null,
    request: {
      method: 'cursor/update_todos',
      params: { todos: [{ id: 'a', content: 'x', status: 'pending' }] },
    },
  },
  {
    type: 'permission',
    toolCallId: 'tool_ba1e',
    title: '`wc -l hello.txt`',
    kind: 'execute',
    options: [
      { optionId: 'allow-once', name: 'Allow once', kind: 'allow_once' },
      { optionId: 'reject-once', name: 'Reject', kind: 'reject_once' },
    ],
    decision: { optionId: 'reject-once', kind: 'reject_once' },
    reason: '--permissions reject',
    agentReason: 'Shell allowlist is empty',
    decidedBy: 'policy',
  },
  {
    type: 'permission',
    toolCallId: 'web_fetch_0',
    title: 'Fetch https://example.com',
    kind: 'fetch',
    options: [{ optionId: 'allow-always', name: 'Always allow', kind: 'allow_always' }],
    decision: { outcome: 'cancelled' },
    reason: 'no reject_once option offered; --permissions reject',
    agentReason: null,
    decidedBy: 'no-option',
  },
  {
    type: 'question',
    source: 'session/request_permission',
    toolCallId: 'tool_b7a3',
    title: 'Greeting tone',
    questions: [{ id: null, prompt: 'Greeting tone', options: [{ id: 'tone:formal', label: 'Formal' }] }],
    answer: { outcome: 'skipped', optionId: '__ask_question_skip__' },
  },
  {
    type: 'plan',
    toolCallId: null,
    name: 'Friendlier greeting',
    overview: null,
    plan: '# Plan\n1. Read hello.txt',
    todos: [{ id: 'read', content: 'Read hello.txt', status: 'pending' }],
    answer: { outcome: 'rejected', reason: 'plan-only run' },
  },
  { type: 'todos', source: 'cursor/update_todos', todos: [{ id: 'a', content: 'A', status: 'in_progress' }] },
  { type: 'warning', code: 'policy-fences-nothing', message: 'reject fences nothing' },
  result,
  {
    ...result,
    stopReason: null,
    exitCode: 124,
    error: { code: 'run_timeout', message: 'the run exceeded 1s' },
  },
];

describe('Event schema', () => {
  it.each(readdirSync(RECORDINGS).filter((name) => name.endsWith('.jsonl')))(
    'validates every event the updates of %s produce',
    (name) => {
      for (const event of eventsOfRecording(name))
        expect(() => Event.parse(event), JSON.stringify(event)).not.toThrow();
    },
  );

  it('meets every kind of update event in the recordings', () => {
    const names = readdirSync(RECORDINGS).filter((name) => name.endsWith('.jsonl'));
    const types = new Set(names.flatMap((name) => eventsOfRecording(name).map((e) => e.type)));
    expect([...types].sort()).toEqual(['extension', 'message', 'mode', 'thought', 'todos', 'tool']);
  });

  it.each(samples.map((e) => [e.type, e] as const))('validates a %s event', (_type, event) => {
    expect(Event.parse(event)).toEqual(event);
  });

  it.each([
    { name: 'an unknown type', event: { type: 'progress', text: 'x' } },
    {
      name: 'a tool with an unknown status',
      event: { ...eventsOfRecording('tools.jsonl').find((e) => e.type === 'tool'), status: 'done' },
    },
    { name: 'a message without text', event: { type: 'message' } },
    { name: 'a result without timings', event: { ...result, timings: undefined } },
  ])('rejects $name', ({ event }) => {
    expect(() => Event.parse(event)).toThrow();
  });

  it('validates the json output of a run', () => {
    const summary = new RunSummary();
    for (const event of [...samples, ...eventsOfRecording('tools.jsonl')]) summary.add(event);
    expect(() => JsonOutput.parse(summary.output(result))).not.toThrow();
  });
});

describe('jsonSchemas', () => {
  it('describes the stream-json events as a union and the json output as an object', () => {
    const { event, json } = jsonSchemas() as {
      event: Record<string, unknown>;
      json: Record<string, unknown>;
    };
    const variants = (event.oneOf ?? event.anyOf) as unknown[];
    expect(Array.isArray(variants)).toBe(true);
    expect(variants).toHaveLength(15);
    expect(json.type).toBe('object');
    expect(Object.keys(json.properties as object)).toEqual(
      expect.arrayContaining(['type', 'stopReason', 'text', 'tools', 'permissions', 'todos']),
    );
    expect(JSON.stringify(json)).toMatch(/"(anyOf|oneOf)"/);
  });

  it('titles and describes every event, and lists the error codes as an enum', () => {
    const { event } = jsonSchemas() as { event: Record<string, unknown> };
    const variants = (event.oneOf ?? event.anyOf) as Array<Record<string, unknown>>;
    expect(event.title).toBeTruthy();
    for (const v of variants) {
      expect(v.title, JSON.stringify(v).slice(0, 80)).toBeTruthy();
      expect(v.description).toBeTruthy();
    }
    const result = variants.find((v) => v.title === 'result') as {
      properties: { error: { properties: { code: { enum: string[] } } } };
    };
    expect(result.properties.error.properties.code.enum).toEqual(ERROR_CODES);
  });

  it('requires an extension event to carry params, null when the message had none', () => {
    expect(Event.safeParse({ type: 'extension', method: 'x/y' }).success).toBe(false);
    expect(Event.safeParse({ type: 'extension', method: 'x/y', params: null }).success).toBe(true);
  });
});

describe('the published schema', () => {
  // `rho-cursor schema` prints these documents: a change to the contract (a field, an enum, a description)
  // shows as a diff of the reviewed files, never silently.
  it('is the reviewed one, for stream-json and json', async () => {
    const { event, json } = jsonSchemas();
    await expect(JSON.stringify(event, null, 2) + '\n').toMatchFileSnapshot(
      './__snapshots__/event.schema.json',
    );
    await expect(JSON.stringify(json, null, 2) + '\n').toMatchFileSnapshot(
      './__snapshots__/json.schema.json',
    );
  });
});
