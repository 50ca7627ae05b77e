import { describe, expect, it } from 'vitest';
import { extensionNote } from '../../../src/events/extensions.js';

describe('extensionNote', () => {
  it.each([
    [
      'cursor/task',
      { description: 'scan', subagentType: 'explore' },
      { label: 'task', text: 'scan', detail: 'explore' },
    ],
    ['cursor/task', { description: '', prompt: 'look around' }, { label: 'task', text: 'look around' }],
    ['cursor/task', {}, { label: 'task', text: '' }],
    ['cursor/task', null, { label: 'task', text: '' }],
    [
      'cursor/generate_image',
      { prompt: 'a cat', outputPath: '/tmp/cat.png' },
      { label: 'image', text: 'a cat', detail: '/tmp/cat.png' },
    ],
    ['cursor/generate_image', { prompt: 7 }, { label: 'image', text: '' }],
    [
      'session/update',
      { update: { sessionUpdate: 'session_info_update', title: 'Fix it' } },
      { label: 'title', text: 'Fix it' },
    ],
  ])('%s %j', (method, params, note) => {
    expect(extensionNote(method, params)).toEqual(note);
  });

  it.each([
    ['session/update', { update: { sessionUpdate: 'session_info_update' } }],
    ['session/update', { update: { sessionUpdate: 'plan', title: 'x' } }],
    ['cursor/unknown', { prompt: 'x' }],
  ])('%s %j says nothing a person should see beyond the raw event', (method, params) => {
    expect(extensionNote(method, params)).toBe(
      method === 'cursor/task' ? { label: 'task', text: '' } : undefined,
    );
  });
});
