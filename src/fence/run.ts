// The fence's place in a run: the private dir prepared before the spawn and released on the run's teardown
// stack (after the agent is ended, also from the exit hook), and the correction of tools its rules stopped.
import type { LoadedConfig } from '../config/load.js';
import type { ToolStore } from '../events/tools.js';
import type { Event, ToolEvent } from '../events/types.js';
import type { Teardown } from '../lifecycle/teardown.js';
import type { Fence } from '../options.js';
import { cursorDenyStops } from '../policy/judge.js';
import type { CursorRules, RuleSet } from '../policy/rules.js';
import { subjectOf } from '../policy/subject.js';
import { overlayText } from './overlay.js';
import { prepareFenceDir, sweepStaleFenceDirs } from './private-dir.js';
import { fenceRuleBlocks, needsPrivateDir } from './rules.js';

// Prepares the private config dir and returns the agent's environment; under `none` with no rules for
// Cursor's config (--allow/--deny), the caller's own.
export function fenceEnv(
  fence: Fence,
  config: LoadedConfig,
  env: NodeJS.ProcessEnv,
  teardown: Teardown,
  rules: CursorRules = { allow: [], deny: [] },
): NodeJS.ProcessEnv {
  if (!needsPrivateDir(fence, rules)) return env;
  // A run that was SIGKILLed could not release its dir: the next fenced run does, carrying back first.
  sweepStaleFenceDirs();
  const dir = prepareFenceDir(config.configDir, overlayText(config.user.data, fence, rules));
  // Registered before the agent, so the stack ends the agent first and nothing writes while we carry back.
  teardown.defer({
    name: 'fence dir',
    run: () => {
      const problems = dir.release();
      if (problems.length > 0) throw new Error(problems.join('; '));
    },
    runSync: () => void dir.release(),
  });
  return { ...env, CURSOR_CONFIG_DIR: dir.dir };
}

// A call of a kind the fence's deny rules stop, which Cursor then reports "completed" with no output, did not
// run: it is marked rejected then, and only then. A call just announced (`pending`) is not judged before any
// decision, and one in progress or with output ran, whatever the fence (the ledger then says what it did).
export function fenceTool(fence: Fence, tools: ToolStore, e: Event): Event {
  if (e.type !== 'tool' || !fenceRuleBlocks(fence, e.kind)) return e;
  if (e.status !== 'completed' || e.output !== null) return e;
  return rejected(tools, e);
}

// The tool's state marked rejected, with the extra of the update the event came from (the store keeps none).
function rejected(tools: ToolStore, e: ToolEvent): Event {
  const marked = tools.markVerdict(e.toolCallId, 'rejected');
  if (marked === undefined) return e;
  return e.extra === undefined ? marked : { ...marked, extra: e.extra };
}

// The same for a call one of the run's --deny rules stopped in Cursor's config (a `git push` under
// --deny 'Shell(git push)'): Cursor blocks it without asking and reports it "completed" with no output.
export function rulesTool(rules: RuleSet, cwd: string, tools: ToolStore, e: Event): Event {
  if (e.type !== 'tool' || rules.deny.length === 0 || e.status !== 'completed' || e.output !== null) return e;
  if (!cursorDenyStops(e.kind, subjectOf({}, e), rules, cwd)) return e;
  return rejected(tools, e);
}
