// Pure: --attach. What a file is (an image told by its content, or UTF-8 text), and the prompt's content
// blocks: the text, each text file inline as a fenced block headed by its path (or as an embedded resource
// where the agent takes them), each image as an ACP image block.
import { isAbsolute, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { RhoError } from '../errors.js';
import { fmtBytes } from '../files/untrusted.js';
import { fenceFor } from '../markdown.js';

export type Attachment =
  | { kind: 'image'; path: string; mimeType: string; data: string }
  | { kind: 'text'; path: string; uri: string; text: string };

/** What the agent's initialize said it takes in a prompt (`agentCapabilities.promptCapabilities`). */
export interface PromptCaps {
  image: boolean;
  embeddedContext: boolean;
}

export type ContentBlock =
  | { type: 'text'; text: string }
  | { type: 'image'; mimeType: string; data: string }
  | { type: 'resource'; resource: { uri: string; mimeType: string; text: string } };

const startsWith = (b: Uint8Array, bytes: number[], at = 0): boolean =>
  b.length >= at + bytes.length && bytes.every((x, i) => b[at + i] === x);

// The image formats ACP agents take, told by their first bytes (never by the file name).
export function sniffImage(b: Uint8Array): string | undefined {
  if (startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(b, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith(b, [0x47, 0x49, 0x46, 0x38]) && (b[4] === 0x37 || b[4] === 0x39) && b[5] === 0x61)
    return 'image/gif';
  if (startsWith(b, [0x52, 0x49, 0x46, 0x46]) && startsWith(b, [0x57, 0x45, 0x42, 0x50], 8))
    return 'image/webp';
  return undefined;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

// Text is valid UTF-8 without NUL bytes; undefined for anything else (a binary file).
export function asText(b: Uint8Array): string | undefined {
  if (b.includes(0)) return undefined;
  try {
    return utf8.decode(b);
  } catch {
    return undefined;
  }
}

/**
 * Classifies one file's bytes. `shown` is its path as the prompt names it (relative to the workspace),
 * `absolute` its absolute path (the resource URI). A binary file that is not an image is a usage error.
 */
export function classifyAttachment(shown: string, absolute: string, bytes: Uint8Array): Attachment {
  const mimeType = sniffImage(bytes);
  if (mimeType) return { kind: 'image', path: shown, mimeType, data: Buffer.from(bytes).toString('base64') };
  const text = asText(bytes);
  if (text === undefined)
    throw new RhoError(
      'usage',
      `option '--attach' takes text files and PNG, JPEG, GIF or WebP images: '${shown}' is binary`,
    );
  return { kind: 'text', path: shown, uri: pathToFileURL(absolute).href, text };
}

// Where `file` lies under `dir`: its path from there, or undefined when it is not inside (nor `dir` itself).
// Only `..` itself or `../` leads out: `..dots.txt` is a name inside (found by review).
function under(dir: string, file: string): string | undefined {
  const rel = relative(dir, file);
  return rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel) ? undefined : rel;
}

// An attachment's path as the prompt names it: relative to the workspace when it lies inside it, else whole.
export function shownPath(file: string, workspace: string): string {
  return under(workspace, file) ?? file;
}

/** Where a --worktree run works: the user's tree and the worktree that copies it. */
export interface WorktreePlace {
  /** The user's repository root, and their workspace in it. */
  repo: string;
  userCwd: string;
  /** The worktree's root, and the agent's workspace in it. */
  dir: string;
  cwd: string;
}

/**
 * Under --worktree the agent works in a copy of the repository: a text attachment inside the repository is
 * named by its copy (its resource URI, and its heading), as read (found by review: the user's path invited
 * the agent to edit the real file). `files` are the paths the attachment may be known by (as given, and
 * with its links resolved: git names the repository by its real path). One outside stays as it is.
 */
export function inWorktree(a: Attachment, place: WorktreePlace, files: readonly string[]): Attachment {
  if (a.kind !== 'text') return a;
  for (const file of files) {
    const inCwd = under(place.userCwd, file);
    const inRepo = inCwd === undefined ? under(place.repo, file) : undefined;
    const copy =
      inCwd !== undefined
        ? join(place.cwd, inCwd)
        : inRepo !== undefined
          ? join(place.dir, inRepo)
          : undefined;
    if (copy !== undefined) return { ...a, path: shownPath(copy, place.cwd), uri: pathToFileURL(copy).href };
  }
  return a;
}

// The file a text attachment was read from.
export const attachedFile = (a: Extract<Attachment, { kind: 'text' }>): string => fileURLToPath(a.uri);

/** The most the prompt and its attachments may add up to, as the agent is sent them (an image as base64, a
 * third larger): the prompt's own 10 MiB and two or three files at their 10 MiB each, and a JSON line far
 * within a string's longest (found by review: 55 files of 10 MiB ended as "Invalid string length"). */
export const PROMPT_TOTAL_CAP = 32 * 1024 * 1024;

// What an attachment adds to what the agent is sent, in bytes: its text (UTF-8), or its image as base64.
export function attachedSize(a: Attachment): number {
  return a.kind === 'image' ? a.data.length : Buffer.byteLength(a.text, 'utf8');
}

// A usage error when the prompt and its attachments add up to more than PROMPT_TOTAL_CAP.
export function checkPromptTotal(prompt: string, attachments: readonly Attachment[]): void {
  const total = attachments.reduce((n, a) => n + attachedSize(a), Buffer.byteLength(prompt, 'utf8'));
  if (total > PROMPT_TOTAL_CAP)
    throw new RhoError(
      'usage',
      `the prompt and its attachments come to ${fmtBytes(total)}: they may add up to ${PROMPT_TOTAL_CAP / 1048576} MiB (an image counted as base64, as it is sent)`,
    );
}

// The text file as the prompt shows it: its path, then its content in a fenced block.
export function inlineFile(a: Extract<Attachment, { kind: 'text' }>): string {
  const fence = fenceFor(a.text);
  const body = a.text.endsWith('\n') ? a.text : a.text + '\n';
  return `${a.path}:\n${fence}\n${body}${fence}`;
}

/**
 * The session/prompt content for the prompt text and its attachments. An image for an agent that does not
 * take images is a capability_missing error (exit 2): it is never dropped silently.
 */
export function promptBlocks(
  text: string,
  attachments: readonly Attachment[],
  caps: PromptCaps,
): ContentBlock[] {
  refuseUntaken(attachments, caps);
  const texts = attachments.filter((a) => a.kind === 'text');
  const inline = caps.embeddedContext ? [] : texts.map(inlineFile);
  const blocks: ContentBlock[] = [{ type: 'text', text: [text, ...inline].join('\n\n') }];
  for (const a of attachments) {
    if (a.kind === 'image') blocks.push({ type: 'image', mimeType: a.mimeType, data: a.data });
    else if (caps.embeddedContext)
      blocks.push({ type: 'resource', resource: { uri: a.uri, mimeType: 'text/plain', text: a.text } });
  }
  return blocks;
}

// An image for an agent that takes none is a capability_missing error (exit 2), never dropped silently.
export function refuseUntaken(attachments: readonly Attachment[], caps: PromptCaps): void {
  const images = attachments.filter((a) => a.kind === 'image');
  if (images.length > 0 && !caps.image)
    throw new RhoError(
      'capability_missing',
      `the agent does not take images in a prompt (no promptCapabilities.image in its initialize answer): cannot attach ${images.map((a) => `'${a.path}'`).join(', ')}`,
    );
}

// Pure: the prompt capabilities an initialize answer advertises (absent means no).
export function promptCaps(initResult: Record<string, unknown>): PromptCaps {
  const agent = initResult.agentCapabilities;
  const p =
    agent && typeof agent === 'object' ? (agent as Record<string, unknown>).promptCapabilities : undefined;
  const caps = p && typeof p === 'object' ? (p as Record<string, unknown>) : {};
  return { image: caps.image === true, embeddedContext: caps.embeddedContext === true };
}
