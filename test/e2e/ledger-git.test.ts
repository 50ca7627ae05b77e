// What the agent leaves in the git dir must not make rho-cursor's own git run a command,
// nor hide a change from the ledger.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, makeAgentDir } from '../helpers/agent-path.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { effect } from '../helpers/lines.js';
import { git, userRepo } from '../helpers/repo.js';

const SJ = ['--output-format', 'stream-json'];
const agentPath = makeAgentDir(join(FIXTURES, 'scripted.mjs')).then((d) => join(d, 'cursor-agent'));

async function run(args: string[], cwd: string, script: Record<string, unknown>) {
  return runCli(args, {
    agent: await agentPath,
    cwd,
    cliConfig: { approvalMode: 'allowlist' },
    env: { RHO_SCRIPT: JSON.stringify(script) },
  });
}

describe("the agent's git dir and rho-cursor's own git", () => {
  it('a promisor remote with a missing HEAD: the ledger git fetches nothing, so runs no upload-pack', async () => {
    const repo = userRepo();
    const marker = join(tempDir('rho-review-'), 'PWNED');
    const sh = [
      `git config remote.origin.url "$PWD"`,
      'git config remote.origin.promisor true',
      'git config core.repositoryformatversion 1',
      'git config extensions.partialClone origin',
      `git config remote.origin.uploadpack 'touch ${marker}; false'`,
      'echo 1111111111111111111111111111111111111111 > .git/HEAD',
    ].join(' && ');
    await run(['run', ...SJ, 'go'], repo, { before: [effect({ sh })] });
    expect(existsSync(marker)).toBe(false);
  });

  it('.git/commondir pointing at a git dir of the agent: its filter does not run, its exclude hides nothing', async () => {
    const repo = userRepo();
    const evil = tempDir('rho-review-');
    const marker = join(evil, 'PWNED');
    mkdirSync(join(evil, 'objects', 'info'), { recursive: true });
    mkdirSync(join(evil, 'info'), { recursive: true });
    writeFileSync(join(evil, 'objects', 'info', 'alternates'), join(repo, '.git', 'objects') + '\n');
    writeFileSync(
      join(evil, 'config'),
      `[core]\n\trepositoryformatversion = 0\n\tbare = false\n[filter "x"]\n\tclean = "touch ${marker}; cat"\n`,
    );
    writeFileSync(join(evil, 'info', 'attributes'), '* filter=x\n');
    writeFileSync(join(evil, 'info', 'exclude'), '*\n');
    const sh = [
      `cp -r .git/refs '${evil}/refs'`,
      `echo '${evil}' > .git/commondir`,
      'echo secret > new-file.txt',
      'touch src/a.ts',
    ].join(' && ');
    const r = await run(['run', ...SJ, '--fence', 'read-only', 'go'], repo, { before: [effect({ sh })] });
    expect(existsSync(marker)).toBe(false);
    expect(r.exitCode, r.stderr).toBe(8);
  });

  it('a commit the agent hides with git replace is still a change', async () => {
    const repo = userRepo();
    git(repo, 'config', 'user.email', 't@example.com');
    git(repo, 'config', 'user.name', 't');
    const sh = [
      'old=$(git rev-parse HEAD^{tree})',
      'echo committed > src/a.ts',
      'git commit -qm agent -- src/a.ts',
      'git replace -f $old $(git rev-parse HEAD^{tree})',
    ].join(' && ');
    const r = await run(['run', ...SJ, '--fence', 'read-only', 'go'], repo, { before: [effect({ sh })] });
    expect(r.exitCode, r.stderr).toBe(8);
  });
});
