// A try's turn: the mode (--plan, --mode) confirmed before the prompt, the prompt itself with updates
// streaming and requests answered by policy, and --output-schema's check of the answer (asking again in the
// same session on a mismatch).
import { authError, isAuthError, readStopReason } from '../acp/answers.js';
import { RhoError } from '../errors.js';
import { noteMode } from '../events/updates.js';
import type { ContentBlock } from '../prompt/attach.js';
import { replyReadsAsError } from '../session.js';
import { modeSetting } from '../session-choices.js';
import { ANSWER_KEPT_MAX } from '../events/facts.js';
import { extractJson, type Extracted } from '../structured/extract.js';
import type { SchemaChecker } from '../structured/checker.js';
import { retryPrompt } from '../structured/schema.js';
import type { Attempt } from './attempt.js';
import { emit, endChunks, warn, type RunContext } from './context.js';
import { applySetting } from './handshake.js';

// The mode, confirmed by the agent, before the prompt: session/set_mode, or the mode config option where
// only that offers it (Codex).
export async function enterMode(ctx: RunContext, a: Attempt, mode: string): Promise<void> {
  const session = a.session!;
  const setting = modeSetting(session.choices, session.sessionId, mode, ctx.opts.plan);
  const after = await applySetting(ctx, a, setting);
  // session/set_mode answers nothing; the config option's answer is every option as it now stands, and one
  // that still holds another mode did not switch (found by review: the run went on, exit 0, in that mode).
  const now = after.currentMode ?? mode;
  if (now !== mode) {
    const said = `the agent answered ${setting.method}, but its mode is still '${now}'`;
    throw ctx.opts.plan && mode === 'plan'
      ? new RhoError('plan_refused', `${said}: plan mode was not entered`)
      : new RhoError('protocol', `${said}: --mode ${mode} was not applied`);
  }
  if (noteMode(a.update, now)) emit(ctx, { type: 'mode', mode: now });
  ctx.out.flush();
}

// One prompt turn: updates stream as they arrive, requests are answered by policy. Sets the try's stopReason.
export async function promptTurn(ctx: RunContext, a: Attempt, prompt: ContentBlock[]): Promise<void> {
  const { io } = ctx;
  ctx.phase = 'prompt';
  a.accepting = true;
  // The stopReason is this turn's: a follow-up turn (--output-schema's ask again) that never ends leaves none,
  // not the turn before's end_turn (found by review: exit 124 said end_turn, and -o was written empty).
  a.stopReason = null;
  ctx.observer.newTurn();
  const sentAt = io.now();
  if (a.firstPromptAt === 0) a.firstPromptAt = sentAt;
  ctx.prompted = true;
  let answer: unknown;
  try {
    answer = await ctx.stop.race(
      a.conn.request(
        'session/prompt',
        { sessionId: a.sessionId, prompt },
        undefined,
        // What the agent sends after the turn's answer, even in the same read, is not this run's output.
        () => (a.accepting = false),
      ),
    );
  } catch (e) {
    // Claude's adapter without a key answers the prompt, not session/new, with auth_required: exit 3 all the same.
    throw isAuthError(e) ? authError(e, a.initResult, ctx.opts.agent, ctx.identity.cursor) : e;
  } finally {
    a.timings.promptMs = Math.round(io.now() - sentAt);
    a.firstPromptMs ??= a.timings.promptMs;
    // What the agent sends after the turn's answer is not this run's output: `result` is always last.
    a.accepting = false;
    endChunks(ctx);
  }
  // An unknown stopReason, or `cancelled` we did not ask for, is the agent breaking the protocol.
  const { stopReason, error } = readStopReason(
    answer,
    ctx.stop.cause !== undefined,
    ctx.facts.rejectedLast(),
  );
  a.stopReason = stopReason;
  if (error) throw error;
  // Cursor reports some API failures as reply text and still ends the turn normally: say so.
  const failure = replyReadsAsError(ctx.observer.replyHead);
  if (failure && stopReason === 'end_turn')
    warn(
      ctx,
      'reply-looks-like-error',
      `the turn ended normally but the reply reads as an error: ${failure}`,
    );
}

// --output-schema: extract the answer's JSON value and validate it; on a mismatch, ask again in the same
// session, up to --schema-retries times. Each check is a `validation` event. The check runs in the schema's
// worker: the main thread waits on it as on the agent, so --timeout and signals end it at once (no turn
// under way: no grace).
export async function structuredAnswer(ctx: RunContext, a: Attempt, schema: SchemaChecker): Promise<void> {
  for (let n = 1; ; n++) {
    // An answer past what is kept is never searched: its last block may be in the part lost, and a value from
    // the part kept (a draft) would be taken for it (found by review).
    const found: Extracted = ctx.facts.answerCut
      ? {
          ok: false,
          reason: `the answer passed ${ANSWER_KEPT_MAX / 1024 / 1024} MiB: no value is taken from it`,
        }
      : extractJson(ctx.facts.answer);
    ctx.phase = 'validation';
    const errors = found.ok
      ? await ctx.stop.race(schema.check(found.value, ctx.stop.signal))
      : [found.reason];
    emit(ctx, { type: 'validation', attempt: n, valid: errors.length === 0, errors });
    if (found.ok && errors.length === 0) {
      ctx.structured = found.value;
      return;
    }
    if (n > ctx.opts.schemaRetries)
      throw new RhoError(
        'schema_mismatch',
        `the answer did not match ${schema.path} after ${n} attempt${n === 1 ? '' : 's'}: ${errors.slice(0, 3).join('; ')}`,
      );
    await promptTurn(ctx, a, [{ type: 'text', text: retryPrompt(errors) }]);
    if (a.stopReason !== 'end_turn') return;
  }
}
