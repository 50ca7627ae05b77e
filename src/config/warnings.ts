// Pure: the warnings a run gives wherever the chosen policy cannot hold under the user's Cursor config.
import type { Policy, ToolKind } from '../options.js';
import { APPROVAL_MODES, type CursorConfig } from './cli-config.js';
import { gate, outcome } from '../policy/matrix.js';

export interface Warning {
  code: string;
  message: string;
}

export interface WarningInput {
  config: CursorConfig;
  policy: Policy;
  allow: readonly ToolKind[];
  plan: boolean;
}

// Lists every gap between what the user asked for and what Cursor will enforce.
export function configWarnings({ config, policy, allow, plan }: WarningInput): Warning[] {
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
    out.push({
      code: 'policy-fences-nothing',
      message: `approvalMode is unrestricted${config.approvalModeSet ? '' : " (Cursor's default)"}: Cursor asks no permission, so --permissions ${policy} fences nothing`,
    });
  }
  if (
    plan &&
    outcome('execute', config, plan, policy, allow) !== 'asks-rejected' &&
    gate('execute', config, plan) !== 'blocked'
  ) {
    out.push({
      code: 'plan-allows-shell',
      message: 'plan mode does not block shell commands: the agent can still run them',
    });
  }
  if (mode === 'allowlist' && policy !== 'allow') {
    const unasked = (['read', 'edit'] as const).filter((k) => gate(k, config, plan) === 'runs');
    if (unasked.length > 0) {
      out.push({
        code: 'reads-edits-never-ask',
        message: `${unasked.join(' and ')} never ask permission: --permissions ${policy} does not stop them`,
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
