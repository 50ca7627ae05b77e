// Where rho-cursor makes its temporary directories (the fence's config dir, --worktree's tree): the system's
// temporary directory as an absolute path. A relative TMPDIR would be read against whichever directory each
// user of the path runs in (git in the repository, the agent in its workspace), not against ours.
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';

export const tempRoot = (): string => resolve(tmpdir());
