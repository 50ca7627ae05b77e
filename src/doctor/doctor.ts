// `rho-cursor doctor`: gathers what a run would meet on this machine (agent, config, key, optionally the
// handshake) into one report whose exit code is the one a run would have.
import type { Teardown } from '../lifecycle/teardown.js';
import { execFile } from 'node:child_process';
import { cursorAtSpawn, notCursorAtSpawn } from '../agent/identity.js';
import { probeTreeHandle, treeHandleText } from '../agent/cgroup.js';
import { newerNameHint, resolveAgent } from '../agent/resolve.js';
import { configIgnoredWarning, configErrorFor, inspectConfig, type ConfigFile } from '../config/load.js';
import { describeSource } from '../config/paths.js';
import { configWarnings } from '../config/warnings.js';
import { silencedWarnings, unknownWarningErrors } from '../config/warning-codes.js';
import { outputPathErrors, runOutputPaths } from '../ci/paths.js';
import { pathKind } from '../files/path-kind.js';
import { resolve } from 'node:path';
import type { RhoError } from '../errors.js';
import { overlayText } from '../fence/overlay.js';
import { prepareFenceDir, type FenceDir } from '../fence/private-dir.js';
import { defaultFence, defaultPolicy, summaryFileOf, type Fence } from '../options.js';
import { allowedKinds, deniedKinds, NO_RULES, type RuleSet } from '../policy/rules.js';
import { TIMING, type Timing } from '../lifecycle/timing.js';
import { handshake } from './handshake.js';
import { socksProxyWarning } from './proxy.js';
import { shortKeyWarning } from '../lifecycle/secrets.js';
import { tableJson, type CodeCache, type DoctorReport, type FileReport } from './report.js';
import { configUnderRules } from '../fence/rules.js';
import { rulesReport } from './rules.js';
import { doctorTable } from './table.js';

export interface DoctorInput {
  env: NodeJS.ProcessEnv;
  home: string;
  cwd: string;
  /** --agent as given (already resolved against the caller's directory when path-like). */
  agent: string | undefined;
  /** --agent-arg: the agent's own arguments (then it is not Cursor at spawn). */
  agentArgs?: string[];
  handshake: boolean;
  plan: boolean;
  /** --fence, --allow and --deny as given (undefined fence: the default for --plan). */
  fence?: Fence;
  rules?: RuleSet;
  stepTimeoutMs: number;
  interactive: boolean;
  version: string;
  codeCache: CodeCache;
  now: () => number;
  signal: AbortSignal;
  /** The command's teardown stack: the agent of --handshake is released there. */
  teardown: Teardown;
  /** The waits (doctor's own: how long `--version` may take); the product's unless a test gives its own. */
  timing?: Readonly<Timing>;
}

// `<agent> --version`, first line; the run never calls it, so a failure here is reported, not fatal.
function agentVersion(
  path: string,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<{ version?: string; problem?: string }> {
  return new Promise((resolve) => {
    execFile(path, ['--version'], { env, timeout: timeoutMs }, (err, stdout) => {
      const first = String(stdout).trim().split('\n')[0]?.trim();
      if (err) resolve({ problem: `\`--version\` failed: ${err.message.split('\n')[0]}` });
      else resolve(first ? { version: first } : { problem: '`--version` printed nothing' });
    });
  });
}

// A config file as doctor reports it; an unusable file shows its problem and no rules.
function fileReport(f: ConfigFile, project: boolean): FileReport {
  const perms = (f.data?.permissions ?? {}) as { allow?: string[]; deny?: string[] };
  const mode = f.data?.approvalMode;
  return {
    path: f.path,
    exists: f.exists,
    valid: f.exists && f.problem === undefined,
    approvalMode: !project && typeof mode === 'string' ? mode : null,
    allow: perms.allow ?? [],
    deny: perms.deny ?? [],
    problem: f.problem?.message ?? null,
  };
}

// The usage errors a default run meets in this environment before it starts, with run's own checks: an
// unknown code in RHO_CURSOR_NO_WARNING, and under GitHub Actions a $GITHUB_OUTPUT or $GITHUB_STEP_SUMMARY
// that cannot be written.
function startErrors(env: NodeJS.ProcessEnv): RhoError[] {
  const summaryFile = summaryFileOf({}, env);
  const files = {
    summaryFile: summaryFile === undefined ? undefined : resolve(summaryFile),
    summaryFileGiven: false,
    github: env.GITHUB_ACTIONS === 'true',
  };
  return [
    ...unknownWarningErrors(silencedWarnings([], env.RHO_CURSOR_NO_WARNING).unknown),
    ...outputPathErrors(runOutputPaths(files, env), pathKind),
  ];
}

// Builds the report; the first failure a run would meet (its environment's usage errors, the config, then the
// agent, then the handshake) sets the exit.
export async function doctor(i: DoctorInput): Promise<DoctorReport> {
  const config = inspectConfig(i.env, i.home, i.cwd);
  const from = i.agent ? '--agent' : i.env.RHO_CURSOR_AGENT ? 'RHO_CURSOR_AGENT' : 'default';
  const command = i.agent ?? (i.env.RHO_CURSOR_AGENT || 'cursor-agent');
  // Whose config it is is told at spawn, as for a run: a problem of Cursor's config is no error for another agent.
  const cursorAtStart = cursorAtSpawn(command, i.agentArgs ?? []);
  const problems = configErrorFor(config, cursorAtStart);
  // What a default run here refuses before anything else, its environment's usage errors, comes first.
  let error: RhoError | undefined = startErrors(i.env)[0] ?? problems.error;

  const agent: DoctorReport['agent'] = {
    command,
    from,
    path: null,
    version: null,
    problem: null,
    newerName: null,
    cursor: cursorAtStart,
    title: null,
  };
  let hs: DoctorReport['handshake'] = null;
  let fence: FenceDir | undefined;
  // Whatever the agent is started for, it gets a read-only private dir: doctor never lets Cursor rewrite
  // the user's cli-config.json, not even while it prints its version.
  const release = (): void => void fence?.release();
  process.once('exit', release);
  try {
    agent.path = resolveAgent(command, i.env, i.cwd);
    // Cursor's private dir for Cursor only; another agent's `--version` is asked only when it has no arguments.
    if (agent.cursor) fence = prepareFenceDir(config.configDir, overlayText(config.user.data, 'read-only'));
    const env = fence ? { ...i.env, CURSOR_CONFIG_DIR: fence.dir } : i.env;
    if (!i.agentArgs?.length) {
      const v = await agentVersion(agent.path, env, (i.timing ?? TIMING).versionTimeoutMs);
      agent.version = v.version ?? null;
      agent.problem = v.problem ?? null;
    }
    if (i.handshake && !error) {
      const r = await handshake({
        agentPath: agent.path,
        args: i.agentArgs,
        label: command,
        cwd: i.cwd,
        env,
        stepTimeoutMs: i.stepTimeoutMs,
        version: i.version,
        now: i.now,
        signal: i.signal,
        teardown: i.teardown,
      });
      hs = r.report;
      error ??= r.error;
      if (r.identity) {
        agent.cursor = r.identity.cursor;
        agent.title = r.identity.cursor ? null : r.identity.title;
      }
    }
  } catch (e) {
    const err = e as RhoError;
    if (err.code === 'agent_not_found') {
      agent.problem = err.message;
      agent.newerName = newerNameHint(command, i.env) ?? null;
    }
    error ??= err;
  } finally {
    process.removeListener('exit', release);
    release();
  }

  const policy = defaultPolicy(i.interactive);
  const rules = i.rules ?? NO_RULES;
  const runFence = i.fence ?? defaultFence(i.plan);
  const given = i.fence !== undefined || rules.allow.length + rules.deny.length > 0;
  const report = given
    ? rulesReport(rules, runFence, policy, config.effective, i.plan, config.user.data)
    : null;
  // The table under the rules: Cursor's config as the run's private dir would give it, per fence.
  const tableConfig = report ? configUnderRules(config.effective, 'none', report.cursor) : config.effective;
  const tree = probeTreeHandle(i.env);
  return {
    type: 'doctor',
    exitCode: error ? error.exitCode : 0,
    error: error
      ? { code: error.code, message: error.hint ? `${error.message} (${error.hint})` : error.message }
      : null,
    rhoCursor: { version: i.version, node: process.versions.node, codeCache: i.codeCache },
    agent,
    configDir: {
      dir: config.configDir,
      source: config.configDirSource,
      how: describeSource(config.configDirSource, i.env),
      problem: config.dirProblem?.message ?? null,
    },
    files: { user: fileReport(config.user, false), project: fileReport(config.project, true) },
    approvalMode: config.effective.approvalMode,
    apiKey: { set: Boolean(i.env.CURSOR_API_KEY) },
    processes: { handle: tree.kind, text: treeHandleText(tree) },
    handshake: hs,
    plan: i.plan,
    rules: report,
    table: tableJson(doctorTable(tableConfig, i.plan, allowedKinds(rules), deniedKinds(rules))),
    warnings: (agent.cursor
      ? configWarnings({
          config: tableConfig,
          policy,
          allow: allowedKinds(rules),
          plan: i.plan,
          fence: runFence,
          configFile: config.user.path,
        })
      : []
    )
      .concat(
        problems.ignored.map((why) =>
          configIgnoredWarning(notCursorAtSpawn(command, i.agentArgs ?? []), why),
        ),
      )
      .concat(socksProxyWarning(i.env) ?? [])
      .concat(shortKeyWarning(i.env.CURSOR_API_KEY) ?? [])
      // What RHO_CURSOR_NO_WARNING silences, a default run here would not show either.
      .filter((w) => !silencedWarnings([], i.env.RHO_CURSOR_NO_WARNING).codes.includes(w.code)),
  };
}
