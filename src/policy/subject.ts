// Pure: what a permission request is about (the shell command, the paths, the URL), read from the request's
// toolCall and from what the tool_call announced earlier, since Cursor's request carries only the title.
import { isRecord } from '../acp/messages.js';
import type { ToolEvent } from '../events/types.js';
import { PATH_KEYS } from '../events/path-keys.js';

export interface Subject {
  /** Every command the agent named for the call (rawInput.command; else the backquoted title). */
  commands: string[];
  /** Whether the commands were named in rawInput (command, cmd), not only read from a backquoted title. */
  commandInInput?: boolean;
  /** Every path the agent named (rawInput, locations, diffs), as sent. */
  paths: string[];
  /** Every URL or host the agent named (rawInput.url; else a URL in the title). */
  urls: string[];
  /** Whether the URLs were named in rawInput (url, uri), not only found in a title. */
  urlInInput?: boolean;
}

// Does the request name anything the fence or the rules judge: a command (in rawInput or a backquoted
// title), a path, or a URL it would fetch? Such a request is never taken for a question (decide.ts).
export function namesSomething(s: Subject): boolean {
  return s.commands.length > 0 || s.paths.length > 0 || s.urlInInput === true;
}

type Source = { title?: unknown; rawInput?: unknown; locations?: unknown; content?: unknown };

// The strings found under the given keys of a record, and in arrays of strings there (`paths: [...]`).
function stringsAt(r: unknown, keys: readonly string[]): string[] {
  if (!isRecord(r)) return [];
  return keys.flatMap((k) => {
    const v = r[k];
    if (typeof v === 'string') return [v];
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  });
}

// A word quoted for the shell reader: `'...'`, a quote inside written `'\''`.
const quoted = (w: string): string => `'${w.replace(/'/g, "'\\''")}'`;

// The commands under command or cmd: a string is a command line; an array of strings is an argv (Codex's
// adapter sends `command: ["bash", "-lc", "..."]`), read as one command line of those words, each quoted.
// Deny rules read quoted words generously (`'x; git push'` is covered by Shell(git push)), so an agent that
// runs the words joined by spaces, or one by one, is covered too; allow rules judge the argv as it is.
function commandsAt(r: unknown): string[] {
  if (!isRecord(r)) return [];
  return ['command', 'cmd'].flatMap((k) => {
    const v = r[k];
    if (typeof v === 'string') return [v];
    if (!Array.isArray(v)) return [];
    const words = v.filter((x): x is string => typeof x === 'string');
    if (words.length === 0) return [];
    return [words.length === 1 ? words[0]! : words.map(quoted).join(' ')];
  });
}

// The paths of ACP locations and diff content blocks.
function pathsOf(list: unknown, type?: string): string[] {
  if (!Array.isArray(list)) return [];
  return list.filter(isRecord).flatMap((l) => {
    if (type !== undefined && l.type !== type) return [];
    return typeof l.path === 'string' ? [l.path] : [];
  });
}

const unique = (xs: string[]): string[] => [...new Set(xs.filter((x) => x !== ''))];

// Collects the subject from the request's toolCall and the tools known by that id (the one announced, if any).
export function subjectOf(toolCall: unknown, ...knownTools: Array<Readonly<ToolEvent> | undefined>): Subject {
  const tc: Source = isRecord(toolCall) ? toolCall : {};
  const sources: Source[] = [tc];
  for (const known of knownTools) {
    if (!known) continue;
    const diffs = isRecord(known.output) && Array.isArray(known.output.diffs) ? known.output.diffs : [];
    sources.push({
      title: known.title,
      rawInput: known.input,
      locations: known.locations,
      content: diffs.map((d) => ({ ...(isRecord(d) ? d : {}), type: 'diff' })),
    });
  }
  const fromInput = unique(sources.flatMap((s) => commandsAt(s.rawInput)));
  // Cursor's execute title is the command in backquotes; it counts only when no rawInput names one.
  const fromTitle = unique(
    sources.flatMap((s) => (typeof s.title === 'string' ? [/^`([^]*)`$/.exec(s.title)?.[1] ?? ''] : [])),
  );
  const urls = unique(sources.flatMap((s) => stringsAt(s.rawInput, ['url', 'uri'])));
  const titleUrls = unique(
    sources.flatMap((s) => (typeof s.title === 'string' ? (s.title.match(/https?:\/\/\S+/g) ?? []) : [])),
  );
  return {
    commands: fromInput.length > 0 ? fromInput : fromTitle,
    ...(fromInput.length > 0 ? { commandInInput: true } : {}),
    paths: unique(
      sources.flatMap((s) => [
        ...stringsAt(s.rawInput, PATH_KEYS),
        ...pathsOf(s.locations),
        ...pathsOf(s.content, 'diff'),
      ]),
    ),
    urls: urls.length > 0 ? urls : titleUrls,
    ...(urls.length > 0 ? { urlInInput: true } : {}),
  };
}
