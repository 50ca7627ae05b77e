// `rho-cursor doctor` as a command: options in, the report printed, its exit code out; signals end the handshake.
import { withLifecycle } from '../lifecycle/command.js';
import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { RhoError } from '../errors.js';
import { monotonicMs } from '../lifecycle/timing.js';
import {
  checkAllowUnderFence,
  checkRulesUnderFence,
  defaultFence,
  durationOption,
  FENCES,
  oneOf,
  type Fence,
} from '../options.js';
import { allowedKinds, parseRules } from '../policy/rules.js';
import { doctor } from './doctor.js';
import { doctorText, type CodeCache } from './report.js';
import { consoleJsonLine, consoleText } from '../ci/console.js';

// Is this path a directory? (false when it does not exist)
function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

export interface DoctorRawOptions {
  cwd?: string;
  outputFormat: string;
  handshake?: boolean;
  plan?: boolean;
  fence?: string;
  allow?: string[];
  deny?: string[];
  agent?: string;
  agentArg?: string[];
  stepTimeout: string;
}

// A command line doctor cannot take, in json: one object on stdout still (a script reads it alike whatever
// failed), with no report in it.
export function doctorErrorJson(e: RhoError): string {
  const message = e.hint ? `${e.message} (${e.hint})` : e.message;
  return consoleJsonLine({ type: 'doctor', exitCode: e.exitCode, error: { code: e.code, message } });
}

// Thin entry into src/doctor/: options in, the report printed, its exit code out.
export async function doctorCommand(
  o: DoctorRawOptions,
  version: string,
  codeCache: CodeCache,
): Promise<number> {
  let checked;
  try {
    checked = checkOptions(o);
  } catch (e) {
    if (o.outputFormat === 'json' && e instanceof RhoError) process.stdout.write(doctorErrorJson(e));
    throw e;
  }
  const { cwd, stepTimeoutMs, rules, fence } = checked;
  return withLifecycle(async ({ signal, teardown }) => {
    const report = await doctor({
      env: process.env,
      home: homedir(),
      cwd,
      agent: o.agent === undefined ? undefined : o.agent.includes('/') ? resolve(o.agent) : o.agent,
      agentArgs: o.agentArg ?? [],
      handshake: o.handshake === true,
      plan: o.plan === true,
      fence,
      rules,
      stepTimeoutMs,
      interactive: process.stdin.isTTY === true && process.stderr.isTTY === true,
      version,
      codeCache,
      now: monotonicMs,
      signal,
      teardown,
    });
    process.stdout.write(
      o.outputFormat === 'json' ? consoleJsonLine(report) : consoleText(doctorText(report), 1),
    );
    return report.exitCode;
  });
}

// The options doctor checks before it looks at anything, as a run checks them (usage errors, exit 2).
function checkOptions(o: DoctorRawOptions): {
  cwd: string;
  stepTimeoutMs: number;
  rules: ReturnType<typeof parseRules>['rules'];
  fence: Fence | undefined;
} {
  const cwd = resolve(o.cwd ?? process.cwd());
  if (!isDirectory(cwd))
    throw new RhoError('usage', `option '--cwd' must name a directory (got '${o.cwd ?? cwd}')`);
  const stepTimeoutMs = durationOption('--step-timeout', o.stepTimeout);
  const { rules, errors } = parseRules(o.allow ?? [], o.deny ?? []);
  if (errors[0]) throw errors[0];
  const fence = o.fence === undefined ? undefined : oneOf<Fence>('--fence', FENCES, o.fence);
  const effective = fence ?? defaultFence(o.plan === true);
  checkAllowUnderFence(effective, allowedKinds(rules), fence !== undefined);
  checkRulesUnderFence(effective, rules, fence !== undefined);
  return { cwd, stepTimeoutMs, rules, fence };
}
