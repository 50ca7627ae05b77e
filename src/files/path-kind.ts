// What is at a path, for the output checks (src/ci/paths.ts): the stat at the edge, shared by run and doctor.
import { statSync } from 'node:fs';
import type { PathKind } from '../ci/paths.js';

// A directory, something else, nothing, or a file in the way.
export function pathKind(path: string): PathKind {
  try {
    return statSync(path).isDirectory() ? 'directory' : 'other';
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? 'missing' : code === 'ENOTDIR' ? 'not-a-directory' : 'other';
  }
}
