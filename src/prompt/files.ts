// Reads the files a run's prompt is made of before anything is spawned (--prompt-file, --attach): a file
// that is missing, unreadable, not a regular file, too large, or (--attach) binary and not an image is a
// usage error naming it.
import { RhoError } from '../errors.js';
import { describeRefusal, FileRefused, fmtBytes, readUntrusted, type Refusal } from '../files/untrusted.js';
import { fileErrorText } from '../file-errors.js';
import { attachedSize, classifyAttachment, PROMPT_TOTAL_CAP, shownPath, type Attachment } from './attach.js';

// Reads the prompt file within bounds (10 MiB, a regular file); anything else is a usage error naming it.
export function readPromptFile(file: string): string {
  try {
    return readUntrusted(file, 'promptFile').toString('utf8');
  } catch (e) {
    if (!(e instanceof FileRefused)) throw e;
    const r = e.refusal;
    if (r.reason === 'missing' || r.reason === 'unreadable')
      throw new RhoError(
        'usage',
        `option '--prompt-file' cannot read '${file}' (${fileErrorText({ code: r.reason === 'missing' ? 'ENOENT' : r.code })})`,
      );
    throw new RhoError('usage', `option '--prompt-file': '${file}' ${describeRefusal(r)}`);
  }
}

// `files` are absolute; each is named in the prompt relative to the workspace when it lies inside it. What
// they add up to is bounded as they are read (PROMPT_TOTAL_CAP): the one that passes it is a usage error, and
// no more is read.
export function readAttachments(files: readonly string[], workspace: string): Attachment[] {
  let total = 0;
  return files.map((file) => {
    const shown = shownPath(file, workspace);
    let bytes: Buffer;
    try {
      bytes = readUntrusted(file, 'attach');
    } catch (e) {
      if (e instanceof FileRefused) throw new RhoError('usage', attachRefusal(shown, e.refusal));
      throw e;
    }
    const a = classifyAttachment(shown, file, bytes);
    total += attachedSize(a);
    if (total > PROMPT_TOTAL_CAP)
      throw new RhoError(
        'usage',
        `option '--attach': the attachments come to ${fmtBytes(total)} at '${shown}': the prompt and its attachments may add up to ${PROMPT_TOTAL_CAP / 1048576} MiB (an image counted as base64, as it is sent)`,
      );
    return a;
  });
}

// Pure: why --attach did not take a file, naming it as the prompt would.
export function attachRefusal(shown: string, r: Refusal): string {
  switch (r.reason) {
    case 'missing':
      return `option '--attach' cannot read '${shown}' (${fileErrorText({ code: 'ENOENT' })})`;
    case 'unreadable':
      return `option '--attach' cannot read '${shown}' (${fileErrorText({ code: r.code })})`;
    case 'not-regular':
      return `option '--attach' takes a file: '${shown}' is not one (${r.what})`;
    case 'too-large':
      return `option '--attach' takes files up to 10 MiB: '${shown}' is ${(r.size / 1048576).toFixed(1)} MiB`;
  }
}
