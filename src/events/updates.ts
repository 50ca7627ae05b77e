// Pure: one session/update notification -> the contract's events, merging tool state in the store.
import { isRecord, str } from '../acp/messages.js';
import type { Event } from './types.js';
import type { ToolStore } from './tools.js';

export interface UpdateContext {
  tools: ToolStore;
  /** The last todos emitted, to avoid repeating an unchanged list on every tool update. */
  lastTodos: string;
  title: string | null;
  mode: string | null;
}

// Converts a session/update's params into events (usually one); unknown kinds pass through as `extension`.
export function eventsFromUpdate(params: unknown, ctx: UpdateContext): Event[] {
  const update = isRecord(params) && isRecord(params.update) ? params.update : undefined;
  if (!update) return [{ type: 'extension', method: 'session/update', params }];
  switch (update.sessionUpdate) {
    case 'agent_message_chunk':
    case 'agent_thought_chunk': {
      const content = update.content;
      if (isRecord(content) && content.type === 'text' && typeof content.text === 'string') {
        return [
          {
            type: update.sessionUpdate === 'agent_message_chunk' ? 'message' : 'thought',
            text: content.text,
          },
        ];
      }
      return [{ type: 'extension', method: 'session/update', params }];
    }
    case 'tool_call':
    case 'tool_call_update': {
      const tool = ctx.tools.apply(update);
      const events: Event[] = [tool];
      const todos = ctx.tools.todosOf(tool);
      if (todos && todos.length > 0) {
        const key = JSON.stringify(todos);
        if (key !== ctx.lastTodos) {
          ctx.lastTodos = key;
          events.push({ type: 'todos', todos, source: 'tool' });
        }
      }
      return events;
    }
    case 'current_mode_update': {
      const mode = str(update.currentModeId) ?? str(update.modeId);
      if (mode === null) return [{ type: 'extension', method: 'session/update', params }];
      ctx.mode = mode;
      return [{ type: 'mode', mode }];
    }
    case 'session_info_update':
      if (typeof update.title === 'string') ctx.title = update.title;
      return [{ type: 'extension', method: 'session/update', params }];
    default:
      return [{ type: 'extension', method: 'session/update', params }];
  }
}
