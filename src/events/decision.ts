// What rho-cursor did with a permission request, in its own words. The option's id and name are the agent's
// (an option may be called "rejected" and be of kind allow_once): only the kind rho chose it by says what the
// answer means, so a log or a summary never repeats the agent's label as rho's decision. rho-cursor only ever
// chooses an option of kind allow_once or reject_once (policy/decide.ts pick, the terminal's question).
import type { PermissionEvent } from './types.js';

export function decisionWords(
  d: PermissionEvent['decision'],
): 'allowed once' | 'rejected once' | 'cancelled' {
  if (!('optionId' in d)) return 'cancelled';
  return d.kind.startsWith('reject') ? 'rejected once' : 'allowed once';
}
