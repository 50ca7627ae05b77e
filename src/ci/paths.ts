// Pure: every file a run will write (-o, --summary-file, --wire-log, --patch, $GITHUB_OUTPUT,
// $GITHUB_STEP_SUMMARY), checked before anything is spawned, so a typo costs nothing rather than a whole turn.
import { dirname } from 'node:path';
import { RhoError } from '../errors.js';

/** What is at a path: the answer of a stat (symlinks followed). */
export type PathKind = 'directory' | 'other' | 'missing' | 'not-a-directory';

// Usage errors for each output path that cannot be written: a directory, or a parent that is no directory.
export function outputPathErrors(
  paths: ReadonlyArray<readonly [label: string, path: string | undefined]>,
  kind: (path: string) => PathKind,
): RhoError[] {
  const errors: RhoError[] = [];
  for (const [label, path] of paths) {
    if (path === undefined || path === '') continue;
    const here = kind(path);
    if (here === 'directory') {
      errors.push(new RhoError('usage', `${label} names a directory, not a file: ${path}`));
    } else if (here !== 'other') {
      const parent = dirname(path);
      const up = kind(parent);
      if (up !== 'directory')
        errors.push(
          new RhoError(
            'usage',
            `${label} cannot be written: ${up === 'missing' ? 'no such directory' : 'not a directory'}: ${parent}`,
          ),
        );
    }
  }
  return errors;
}

/** The files a run writes, resolved, as its options give them. */
export interface RunFiles {
  outputLastMessage?: string | undefined;
  /** Where the summary goes: --summary-file, else $GITHUB_STEP_SUMMARY under GitHub Actions (summaryFileOf). */
  summaryFile?: string | undefined;
  /** --summary-file was given: its error names the option, not $GITHUB_STEP_SUMMARY. */
  summaryFileGiven: boolean;
  wireLog?: string | undefined;
  /** --patch: the worktree's patch, written at the end (a bad path would cost the whole turn). */
  patch?: string | undefined;
  /** Running under GitHub Actions: the step outputs go to $GITHUB_OUTPUT. */
  github: boolean;
}

// Every file a run will write, each with the name its error gives it, for outputPathErrors: a run checks them
// before it starts, and doctor the ones a default run here would write.
export function runOutputPaths(
  f: RunFiles,
  env: NodeJS.ProcessEnv,
): Array<readonly [string, string | undefined]> {
  return [
    ["option '--output-last-message'", f.outputLastMessage],
    [f.summaryFileGiven ? "option '--summary-file'" : '$GITHUB_STEP_SUMMARY', f.summaryFile],
    ["option '--wire-log'", f.wireLog],
    ["option '--patch'", f.patch],
    ['$GITHUB_OUTPUT', f.github ? env.GITHUB_OUTPUT || undefined : undefined],
  ];
}
