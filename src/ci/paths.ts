// Pure: every file a run will write (-o, --summary-file, --wire-log, $GITHUB_OUTPUT, $GITHUB_STEP_SUMMARY),
// checked before anything is spawned, so a typo costs nothing rather than a whole turn.
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
