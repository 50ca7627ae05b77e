// Joins the agent process to a JSON-RPC connection: framing, the text-chunk fast path, backpressure,
// and the agent dying or closing its output turned into a clear failure of whatever is pending.
import { statSync } from 'node:fs';
import { Connection, type ConnectionHandlers } from '../acp/connection.js';
import { textChunkEvent } from '../acp/fast-path.js';
import { LineBuffer, LineOverflowError } from '../acp/framing.js';
import { RhoError } from '../errors.js';
import { osLimitError } from '../os-limits.js';
import type { MessageEvent, ThoughtEvent } from '../events/types.js';
import type { WireLog } from '../wirelog.js';
import { MAX_UNREAD_BYTES, type AgentProcess } from './process.js';

export interface LinkOptions extends Omit<ConnectionHandlers, 'send' | 'onWire'> {
  /** The agent as the user named it, for error messages. */
  label: string;
  /** What the run is waiting for, for error messages ("initialize", "prompt"). */
  phase(): string;
  /** A text chunk read by the fast path. */
  onText(e: MessageEvent | ThoughtEvent): void;
  /** This run's session once known: the fast path leaves another session's chunks to the general path. */
  sessionId?(): string | null;
  /** After each read chunk of `read` bytes: write what was batched; false means our output is full. */
  flush(read: number): boolean;
  /** Calls back once the output that asked for a pause can take more (drained, or failed). */
  whenWritable(go: () => void): void;
  /** Every line the agent writes, before it is handled: the idle timer's heartbeat. */
  onActivity(): void;
  wire: WireLog | undefined;
}

/** How long an agent that closed its output has to exit before the run names the close, not the exit. */
const AGENT_CLOSE_GRACE_MS = 200;

// Wires the agent's stdio to a new Connection and returns it.
export function linkAgent(agent: AgentProcess, o: LinkOptions): Connection {
  const { wire } = o;
  const conn: Connection = new Connection({
    // Only answers to its requests are bounded (an agent that floods requests it never reads the answers
    // to); our own requests (a prompt with large attachments, session/cancel) are always written.
    send: (line, answer) => {
      if (!agent.write(line, answer))
        conn.close(
          new RhoError(
            'protocol',
            `${o.label} stopped reading what rho-cursor sends: more than ${MAX_UNREAD_BYTES / 1024 / 1024} MiB of answers wait (during ${o.phase()})`,
          ),
        );
    },
    accepting: o.accepting,
    onNotification: o.onNotification,
    onHandlerError: o.onHandlerError,
    onInvalid: o.onInvalid,
    onWire: wire ? (dir, line, json) => wire.row(dir, line, json) : undefined,
  });

  const failWith = (code: 'agent_closed' | 'agent_exited', why: string): void => {
    if (conn.isClosed) return;
    const tail = agent.stderrTail();
    conn.close(new RhoError(code, `${o.label} ${why} during ${o.phase()}${tail ? `: ${tail}` : ''}`));
  };

  // Text chunks, nearly every line of a turn, skip the general parse and dispatch.
  const onLine = (line: string): void => {
    o.onActivity();
    const chunk = textChunkEvent(line, o.sessionId?.());
    if (chunk === undefined) return conn.handleLine(line);
    wire?.row('a2c', line, true);
    o.onText(chunk);
  };

  const lines = new LineBuffer();
  const stdout = agent.child.stdout;
  stdout.on('data', (chunk: Buffer) => {
    try {
      lines.push(chunk, onLine);
    } catch (e) {
      // A bug of ours while handling a message fails the run cleanly, never with a stack trace.
      conn.close(
        e instanceof LineOverflowError
          ? new RhoError('protocol', `the agent sent ${e.message}`)
          : new RhoError(
              'internal',
              `internal error while handling the agent's output: ${(e as Error).message}`,
            ),
      );
    }
    if (!o.flush(chunk.length)) {
      // Our reader is slower than the agent (or a question holds what it draws): stop reading until it
      // catches up, so memory stays flat.
      stdout.pause();
      o.whenWritable(() => void stdout.resume());
    }
  });
  stdout.on('end', () => {
    // A last line without its newline is still a line the agent sent: nothing is dropped.
    const rest = lines.pending();
    lines.clear();
    if (rest.trim() !== '') onLine(rest);
    // Name the exit code when the agent is exiting; give it a moment to be reaped. The timer phase runs
    // before the poll phase that reads an exit, so when our loop was busy past the moment (a loaded machine)
    // an exit already there would lose to the timer: setImmediate lets one poll phase read it first.
    const t = setTimeout(
      () => setImmediate(() => failWith('agent_closed', 'closed its output')),
      AGENT_CLOSE_GRACE_MS,
    );
    void agent.exited.then(() => clearTimeout(t));
  });
  void agent.exited.then((info) =>
    failWith(
      'agent_exited',
      info.signal ? `was killed by ${info.signal}` : `exited with code ${String(info.code)}`,
    ),
  );
  // A machine out of processes or files (EAGAIN, EMFILE) is named as such; a working directory that is not
  // there (node says `spawn <agent> ENOENT` for it too: found by review, a --worktree run from a folder the
  // worktree lacked read as a missing agent) is named as that; anything else is a missing agent.
  agent.child.once('error', (e) =>
    conn.close(
      osLimitError(e, `starting ${o.label}`, { spawn: true }) ??
        (isFolder(agent.cwd)
          ? new RhoError('agent_not_found', `cannot start ${o.label}: ${e.message}`)
          : new RhoError(
              'usage',
              `cannot start ${o.label}: its working directory ${agent.cwd} is not there (${e.message})`,
            )),
    ),
  );
  return conn;
}

// Is there a folder at path (links followed), as a spawn's cwd needs?
function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
