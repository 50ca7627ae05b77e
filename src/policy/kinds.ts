// Pure: which tool kind is the more dangerous, defined once. A permission request is judged by the most
// dangerous kind anything about it says it is (the kind it claims, the kind its tool was announced with, a
// command in its rawInput, a web toolCallId), so no claim of the agent's can make it look less dangerous.

/** Every kind rho-cursor knows, the most dangerous first: running a command, then changing files (delete,
 * move, edit), then the network, then leaving a mode, then what only reads or asks. Any other kind, or none,
 * is judged as execute (decide.ts judgedKind). */
export const BY_DANGER = [
  'execute',
  'delete',
  'move',
  'edit',
  'fetch',
  'switch_mode',
  'other',
  'read',
  'search',
  'think',
] as const;

const RANK: ReadonlyMap<string, number> = new Map(BY_DANGER.map((k, i) => [k, BY_DANGER.length - i]));

// How dangerous a kind is: higher is more; a kind not listed is as dangerous as execute.
const rank = (kind: string): number => RANK.get(kind) ?? BY_DANGER.length;

// The more dangerous of two kinds (the first when they are equally so).
export function moreDangerous(a: string, b: string): string {
  return rank(b) > rank(a) ? b : a;
}

// Cursor's web search asks with kind `search` and a toolCallId `web_search_<n>`, its fetch with `fetch` and
// `web_fetch_<n>`: such an id makes a less dangerous kind count as fetch. It only ever widens: an id is the
// agent's to choose, so it never makes an execute, edit, delete or move request a fetch (found by review).
export function widenedByWebId(kind: string, toolCallId: string): string {
  return /^web_(fetch|search)_/.test(toolCallId) ? moreDangerous(kind, 'fetch') : kind;
}
