// Reads the --attach files before anything is spawned: a file that is missing, unreadable, too large or
// binary and not an image is a usage error naming it.
import { readFileSync, statSync } from 'node:fs';
import { isAbsolute, relative } from 'node:path';
import { RhoError } from '../errors.js';
import { fileErrorText } from '../file-errors.js';
import { ATTACH_MAX_BYTES, classifyAttachment, type Attachment } from './attach.js';

// `files` are absolute; each is named in the prompt relative to the workspace when it lies inside it.
export function readAttachments(files: readonly string[], workspace: string): Attachment[] {
  return files.map((file) => {
    const rel = relative(workspace, file);
    const shown = rel === '' || rel.startsWith('..') || isAbsolute(rel) ? file : rel;
    let bytes: Buffer;
    try {
      const st = statSync(file);
      if (!st.isFile()) throw new RhoError('usage', `option '--attach' takes a file: '${shown}' is not one`);
      if (st.size > ATTACH_MAX_BYTES)
        throw new RhoError(
          'usage',
          `option '--attach' takes files up to 10 MiB: '${shown}' is ${(st.size / 1048576).toFixed(1)} MiB`,
        );
      bytes = readFileSync(file);
    } catch (e) {
      if (e instanceof RhoError) throw e;
      throw new RhoError('usage', `option '--attach' cannot read '${shown}' (${fileErrorText(e)})`);
    }
    return classifyAttachment(shown, file, bytes);
  });
}
