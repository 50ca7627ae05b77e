// Pure: the warnings a run gives wherever the chosen policy cannot hold under the user's Cursor config.
import type { Fence, Policy, ToolKind } from '../options.js';
import { APPROVAL_MODES, type CursorConfig } from './cli-config.js';
import { fencedConfig } from '../fence/rules.js';
import { gate, outcome } from '../policy/matrix.js';

export interface Warning {
  code: string;
  message: string;
}

export interface WarningInput {
  /** The user's config as read; a fence changes it before it is judged. */
  config: CursorConfig;
  policy: Policy;
  allow: readonly ToolKind[];
  plan: boolean;
  fence?: Fence;
  /** The user's cli-config.json, named in a warning's remedy. */
  configFile?: string;
}

// Lists every gap between what the user asked for and what Cursor will enforce.
export function configWarnings(input: WarningInput): Warning[] {
  const { policy, allow, plan } = input;
  const fence = input.fence ?? 'none';
  const config = fencedConfig(input.config, fence);
  const out: Warning[] = [];
  const mode = config.approvalMode;
  if (!(APPROVAL_MODES as readonly string[]).includes(mode)) {
    out.push({
      code: 'approval-mode-unknown',
      message: `approvalMode '${mode}' is not one rho-cursor knows; what asks is unpredictable`,
    });
  } else if (mode === 'auto-review') {
    out.push({
      code: 'approval-mode-auto-review',
      message:
        "approvalMode 'auto-review' lets Cursor decide what runs; permission requests may not reach the policy",
    });
  }
  if (mode === 'unrestricted' && policy !== 'allow') {
    // Never names a --permissions value: the policy may be the default the user never typed.
    const where = input.configFile ?? 'cli-config.json';
    // Under ask a person expects to be asked; under reject a script expects refusals: say which fails.
    const consequence =
      policy === 'ask' ? 'you are never asked before a tool runs' : 'there is nothing to reject';
    out.push({
      code: 'policy-fences-nothing',
      message:
        `approvalMode is unrestricted${config.approvalModeSet ? ` in ${where}` : ` (Cursor's default: ${where} does not set it)`}: ` +
        `Cursor asks no permission, so ${consequence} and nothing is fenced; ` +
        `set "approvalMode": "allowlist" in ${where} (shell and fetch then ask; reads and edits still run unasked), ` +
        `or pass --fence no-shell or --fence read-only, or --permissions allow to run unfenced knowingly`,
    });
  }
  if (
    plan &&
    outcome('execute', config, plan, policy, allow, fence) !== 'asks-rejected' &&
    gate('execute', config, plan) !== 'blocked'
  ) {
    out.push({
      code: 'plan-allows-shell',
      message:
        'plan mode does not block shell commands: the agent can still run them (--fence no-shell or read-only does)',
    });
  }
  // Under a fence, what stays open (reads, edits under no-shell) is said on the fence line: no warning.
  if (mode === 'allowlist' && policy !== 'allow' && fence === 'none') {
    const unasked = (['read', 'edit'] as const).filter((k) => gate(k, config, plan) === 'runs');
    if (unasked.length > 0) {
      const what = unasked.map((k) => `${k}s`).join(' and ');
      const consequence =
        policy === 'ask'
          ? 'you are not asked before them'
          : 'rejecting permission requests does not stop them';
      out.push({
        code: 'reads-edits-never-ask',
        message: `${what} never ask permission under allowlist: ${consequence}${unasked.includes('edit') ? ' (--fence read-only stops edits)' : ''}; --no-warning reads-edits-never-ask once that is what you want`,
      });
    }
  }
  if (config.permissions.deny.some((r) => r.startsWith('WebFetch('))) {
    out.push({
      code: 'webfetch-deny-ignored',
      message: 'Cursor ignores WebFetch(...) deny rules; fetch runs unless a permission request is rejected',
    });
  }
  if ([...config.permissions.deny, ...config.permissions.allow].some((r) => r.startsWith('Read('))) {
    out.push({
      code: 'read-rules-miss-search',
      message: 'Read(...) rules do not cover grep and glob: searches still run',
    });
  }
  return out;
}
