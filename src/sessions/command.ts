// `rho-cursor sessions`: the workspace's sessions as the agent lists them (session/list {cwd}), newest
// first, for --resume; the agent is started, asked, and ended.
import { authError, isAuthError } from '../acp/answers.js';
import { withLifecycle } from '../lifecycle/command.js';
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { withAgent } from '../agent/brief.js';
import { gitRoot } from '../changes/git.js';
import { earlierWorktreeSessions } from '../changes/worktree.js';
import { resolveAgent } from '../agent/resolve.js';
import { RhoError, toRhoError } from '../errors.js';
import { durationOption } from '../options.js';
import { sessionCaps, sessionsOf, workspaceSessions, type SessionInfo } from '../session.js';
import { oneLine } from '../sanitize/terminal.js';
import { label } from '../render/lines.js';
import { consoleJsonLine, consoleText } from '../ci/console.js';

export interface SessionsRawOptions {
  cwd?: string;
  outputFormat: string;
  agent?: string;
  /** --agent-arg: the agent's own arguments, instead of Cursor's `--trust acp`. */
  agentArg?: string[];
  stepTimeout: string;
  /** --worktree: also the sessions of earlier --worktree runs of the workspace (as `run --worktree --continue`). */
  worktree?: boolean;
}

// Pure: the text listing, one session a line: id, when, title (one an earlier worktree ran in says so).
export function sessionsText(sessions: readonly SessionInfo[], cwd: string, worktrees = false): string {
  if (sessions.length === 0) return `no sessions for ${cwd}${worktrees ? ' or its earlier worktrees' : ''}\n`;
  const where = (s: SessionInfo): string => (s.cwd !== null && s.cwd !== cwd ? '(worktree) ' : '');
  return (
    sessions
      // The agent's ids and titles: one line each, shown, never interpreted.
      .map(
        (s) =>
          oneLine([s.sessionId, s.updatedAt ?? '-', where(s) + label(s.title ?? '')].join('  ').trimEnd()) +
          '\n',
      )
      .join('')
  );
}

// Pure: the json output of a listing that failed: no sessions, and the error as a run's result carries it.
export function sessionsErrorJson(cwd: string, e: RhoError): string {
  const message = e.hint ? `${e.message} (${e.hint})` : e.message;
  return consoleJsonLine({ cwd, sessions: [], exitCode: e.exitCode, error: { code: e.code, message } });
}

// Lists the sessions; in json a failure is still one object on stdout (the error line goes to stderr too).
export async function sessionsCommand(o: SessionsRawOptions, version: string): Promise<number> {
  try {
    return await listSessions(o, version);
  } catch (e) {
    const err = toRhoError(e);
    if (o.outputFormat === 'json')
      process.stdout.write(sessionsErrorJson(resolve(o.cwd ?? process.cwd()), err));
    throw err;
  }
}

async function listSessions(o: SessionsRawOptions, version: string): Promise<number> {
  const cwd = resolve(o.cwd ?? process.cwd());
  let isDir = false;
  try {
    isDir = statSync(cwd).isDirectory();
  } catch {
    // not there
  }
  if (!isDir) throw new RhoError('usage', `option '--cwd' must name a directory (got '${o.cwd ?? cwd}')`);
  const stepTimeoutMs = durationOption('--step-timeout', o.stepTimeout);
  // Each worktree was a directory of its own: the agent is asked for every session, and the workspace's kept.
  let scope = sessionsOf(cwd);
  if (o.worktree) {
    const place = await gitRoot(cwd);
    if (!place)
      throw new RhoError('usage', `option '--worktree' needs a git work tree: ${cwd} is not in one`);
    scope = earlierWorktreeSessions(place, cwd);
  }
  const command = o.agent ?? process.env.RHO_CURSOR_AGENT ?? 'cursor-agent';
  const agentPath = resolveAgent(command, process.env, process.cwd());
  return withLifecycle(async ({ signal, teardown }) => {
    const sessions = await withAgent(
      {
        agentPath,
        args: o.agentArg,
        label: command,
        cwd,
        env: process.env,
        stepTimeoutMs,
        version,
        signal,
        teardown,
      },
      async (step, init) => {
        if (!sessionCaps(init).list)
          throw new RhoError(
            'capability_missing',
            'the agent cannot list sessions (no agentCapabilities.sessionCapabilities.list)',
          );
        return workspaceSessions(
          // An agent that wants a login says so here as at any step: exit 3, as `run --continue` is.
          (params) =>
            step('session/list', params).catch((e: unknown) => {
              throw isAuthError(e) ? authError(e, init, command) : e;
            }),
          scope,
          (why) => process.stderr.write(consoleText(`rho-cursor: warning: ${why}\n`, 2)),
        );
      },
    );
    process.stdout.write(
      o.outputFormat === 'json'
        ? consoleJsonLine({ cwd, sessions })
        : consoleText(sessionsText(sessions, cwd, o.worktree === true), 1),
    );
    return 0;
  }).catch((e: unknown) => {
    throw toRhoError(e);
  });
}
