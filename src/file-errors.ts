// Pure: why a file could not be read, in words a person reads ("no such file"), never a bare errno code.
const WHY: Record<string, string> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'is a directory',
  ENOTDIR: 'a part of the path is not a directory',
  ELOOP: 'too many symbolic links',
  ENAMETOOLONG: 'the name is too long',
  EMFILE: 'too many open files',
};

// The reason for an error from node:fs, one line.
export function fileErrorText(e: unknown): string {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  if (code && WHY[code]) return WHY[code];
  const message = e instanceof Error ? e.message : String(e);
  return message.split('\n')[0]!;
}

// V8's JSON.parse message without the input it quotes (which may run over lines): "Unexpected token 'h'".
export function jsonErrorText(e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  return message.replace(/, "[\s\S]*" is not valid JSON$/, '').replace(/\s*\n\s*/g, ' ');
}
