// Pure: what an extension event (a message the contract does not name) says that a person should see:
// Cursor's subagent task, its generated image, a session's title. The renderers show it; they never read the
// agent's params themselves. Every string is agent text, raw here: the sink's sanitiser makes it safe.
import { isRecord, str } from '../acp/messages.js';

export interface ExtensionNote {
  label: 'task' | 'image' | 'title';
  text: string;
  /** The subagent's type or the image's path, when the agent gave one. */
  detail?: string;
}

export function extensionNote(method: string, params: unknown): ExtensionNote | undefined {
  const p = isRecord(params) ? params : {};
  const detail = (v: unknown): { detail?: string } => (str(v) ? { detail: str(v)! } : {});
  if (method === 'cursor/task')
    return { label: 'task', text: str(p.description) || str(p.prompt) || '', ...detail(p.subagentType) };
  if (method === 'cursor/generate_image')
    return { label: 'image', text: str(p.prompt) ?? '', ...detail(p.outputPath) };
  const u = isRecord(p.update) ? p.update : {};
  if (method === 'session/update' && u.sessionUpdate === 'session_info_update' && typeof u.title === 'string')
    return { label: 'title', text: u.title };
  return undefined;
}
