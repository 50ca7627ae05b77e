// An ACP agent built on the official SDK's agent-side connection, whose behaviour is a script of data
// (RHO_PEER_SCRIPT, a JSON file). It logs every message it receives, checked against the SDK's schemas,
// and what became of each of its own requests, to RHO_PEER_LOG. Bundled by test/peer/build.ts.
import {
  agent,
  ndJsonStream,
  RequestError,
  type AnyMessage,
  type InitializeResponse,
  type NewSessionResponse,
  type PromptResponse,
  type SessionNotification,
  type SetSessionConfigOptionResponse,
} from '@agentclientprotocol/sdk';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { Readable, Writable } from 'node:stream';
import { checkClientMessage } from './check.js';
import { PEER_SESSION, type PeerError, type Script, type Step } from './script.js';

const script = JSON.parse(readFileSync(process.env.RHO_PEER_SCRIPT ?? '', 'utf8')) as Script;
const logFile = process.env.RHO_PEER_LOG ?? '';
const log = (entry: object): void => appendFileSync(logFile, JSON.stringify(entry) + '\n');
/** The method of each request the peer sent, by its id as JSON, to check the client's answers. */
const sent = new Map<string, string>();
/** A request gets this long to be answered before the peer logs it as a hang (no assertion is timed). */
const HANG_MS = 5000;

// The SDK's own NDJSON stream, with every message logged on its way in and out.
function loggedStream(): { readable: ReadableStream<AnyMessage>; writable: WritableStream<AnyMessage> } {
  const raw = ndJsonStream(
    Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
    Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
  );
  const readable = raw.readable.pipeThrough(
    new TransformStream<AnyMessage, AnyMessage>({
      transform(msg, controller) {
        log({ dir: 'recv', msg, problems: checkClientMessage(msg, sent) });
        controller.enqueue(msg);
      },
    }),
  );
  const writer = raw.writable.getWriter();
  const writable = new WritableStream<AnyMessage>({
    write(msg) {
      if ('method' in msg && 'id' in msg) sent.set(JSON.stringify(msg.id), msg.method);
      return writer.write(msg);
    },
    close: () => writer.close(),
  });
  return { readable, writable };
}

// The SDK's error for a scripted JSON-RPC error.
const rpcError = (e: PeerError): RequestError => new RequestError(e.code, e.message, e.data);

/** Resolves when the client sends session/cancel. */
let onCancel: () => void = () => {};
const cancelled = new Promise<void>((resolve) => {
  onCancel = resolve;
});

// Resolves once a file exists: the test's readiness marker (a question is on the screen).
function fileAppears(path: string): Promise<void> {
  return new Promise((resolve) => {
    const t = setInterval(() => {
      if (existsSync(path)) {
        clearInterval(t);
        resolve();
      }
    }, 20);
  });
}

// A request's fate: its result, its error, or a hang.
async function settle(p: Promise<unknown>): Promise<object> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<object>((resolve) => {
    timer = setTimeout(() => resolve({ hang: true }), HANG_MS);
  });
  const answer = p.then(
    (result) => ({ result }),
    (e: unknown) => ({ error: { code: (e as RequestError).code, message: (e as Error).message } }),
  );
  const fate = await Promise.race([answer, hang]);
  clearTimeout(timer);
  return fate;
}

// How it was started (its arguments, and whether it got a private Cursor config dir), for --agent-arg tests.
log({ started: { argv: process.argv.slice(2), cursorConfigDir: process.env.CURSOR_CONFIG_DIR ?? null } });

/** The session's config options as they stand (set_config_option changes a current value). */
const configOptions = script.session?.configOptions?.map((o) => ({ ...o }));

const app = agent({ name: 'rho-peer' })
  .onRequest('initialize', async () => {
    if (script.initializeDelayMs) await new Promise((r) => setTimeout(r, script.initializeDelayMs));
    if (script.initialize && 'error' in script.initialize) throw rpcError(script.initialize.error);
    if (script.initialize) return script.initialize.result as InitializeResponse;
    return {
      protocolVersion: 1,
      agentCapabilities: {
        loadSession: false,
        promptCapabilities: { image: true, audio: true, embeddedContext: true },
      },
      authMethods: script.authMethods ?? [],
      agentInfo: script.agentInfo ?? { name: 'rho-peer', version: '1.0.0' },
    };
  })
  .onRequest('session/new', () => {
    if (script.newSessionError) throw rpcError(script.newSessionError);
    const s = script.session;
    return {
      sessionId: PEER_SESSION,
      ...(s
        ? { modes: s.modes, models: s.models, configOptions }
        : {
            modes: {
              currentModeId: 'code',
              availableModes: [
                { id: 'code', name: 'Code' },
                { id: 'plan', name: 'Plan' },
              ],
            },
          }),
    } as NewSessionResponse;
  })
  .onRequest('session/set_mode', () => {
    if (script.settingError) throw rpcError(script.settingError);
    return {};
  })
  // Claude's adapter sets models with the unstable session/set_model, which the SDK no longer types.
  .onRequest(
    'session/set_model',
    (p: unknown) => p,
    () => {
      if (script.settingError) throw rpcError(script.settingError);
      return {};
    },
  )
  .onRequest('session/set_config_option', ({ params }) => {
    if (script.settingError) throw rpcError(script.settingError);
    const o = configOptions?.find((c) => c.id === params.configId);
    if (!o || !('value' in params) || typeof params.value !== 'string')
      throw new RequestError(-32602, `no config option ${params.configId}`);
    if (!script.keepConfig) o.currentValue = params.value;
    return { configOptions: configOptions ?? [] } as SetSessionConfigOptionResponse;
  })
  .onRequest('session/prompt', async ({ client }) => {
    for (const step of script.turn)
      if ((await play(step, client)) === 'abort') return { stopReason: 'cancelled' };
    if ('error' in script.stop) throw rpcError(script.stop.error);
    return { stopReason: script.stop.stopReason } as PromptResponse;
  })
  .onNotification('session/cancel', () => {
    log({ event: 'session/cancel' });
    onCancel();
  });

type Client = Parameters<Parameters<typeof app.onConnect>[0]>[0]['client'];

// Plays one step of the turn; 'abort' ends the turn there (a rejected request of an abortOnReject step).
async function play(step: Step, client: Client): Promise<void | 'abort'> {
  if ('update' in step)
    return client.notify('session/update', { sessionId: PEER_SESSION, update: step.update });
  if ('rawUpdate' in step)
    return client.notify('session/update', {
      sessionId: PEER_SESSION,
      update: step.rawUpdate as SessionNotification['update'],
    });
  if ('foreignUpdate' in step)
    return client.notify('session/update', { sessionId: 'someone-else', update: step.foreignUpdate });
  if ('notify' in step) return client.notify(step.notify, step.params);
  if ('awaitCancel' in step) return cancelled;
  if ('request' in step) {
    log({
      event: 'answered',
      method: step.request,
      ...(await settle(client.request(step.request, step.params))),
    });
    return;
  }
  const params = { sessionId: PEER_SESSION, ...step.permission };
  const toolCallId = step.permission.toolCall.toolCallId;
  if (!step.withdrawWhen) {
    const fate = await settle(client.request('session/request_permission', params));
    log({ event: 'answered', method: 'session/request_permission', toolCallId, ...fate });
    const chosen = (fate as { result?: { outcome?: { optionId?: string } } }).result?.outcome?.optionId;
    const kind = step.permission.options.find((o) => o.optionId === chosen)?.kind;
    if (step.abortOnReject && (kind === undefined || kind.startsWith('reject'))) return 'abort';
    return;
  }
  // Withdrawn with the SDK's own $/cancel_request once the question is on the screen; never waited for again.
  const abort = new AbortController();
  const asked = client
    .request('session/request_permission', params, {
      cancellationSignal: abort.signal,
      stopWaitingOnCancel: true,
    })
    .catch(() => undefined);
  await fileAppears(step.withdrawWhen);
  abort.abort();
  await asked;
  log({ event: 'withdrawn', toolCallId });
}

app.connect(loggedStream());
