// The workspaces of the ledger's bench rows: `files` small source files in folders of 100, committed to git
// (or not), with the index refreshed as a user's would be (no racily clean entries left to re-hash).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const GIT = {
  ...process.env,
  GIT_AUTHOR_NAME: 'b',
  GIT_AUTHOR_EMAIL: 'b@b',
  GIT_COMMITTER_NAME: 'b',
  GIT_COMMITTER_EMAIL: 'b@b',
};

/** BENCH_KEEP_REPOS=1: the workspaces are made once under $TMPDIR and kept for the next bench (100,000 files
 * take minutes to write and to remove on a busy machine). */
export const KEEP = process.env.BENCH_KEEP_REPOS === '1';

// Makes the workspace (or, with BENCH_KEEP_REPOS, finds the one kept) and returns its path.
export function makeRepo(files, git) {
  const kept = join(tmpdir(), `rho-bench-kept-${files}-${git ? 'git' : 'plain'}`);
  if (KEEP && existsSync(join(kept, 'done'))) return kept;
  if (KEEP) rmSync(kept, { recursive: true, force: true });
  const dir = KEEP ? (mkdirSync(kept), kept) : mkdtempSync(join(tmpdir(), `rho-bench-repo-${files}-`));
  process.stderr.write(`bench: making a ${git ? 'git repository' : 'folder'} of ${files} files in ${dir}\n`);
  for (let d = 0; d < files / 100; d++) {
    mkdirSync(join(dir, `d${d}`));
    for (let f = 0; f < 100; f++)
      writeFileSync(join(dir, `d${d}`, `f${f}.ts`), `export const v${f} = ${d * 100 + f};\n`.repeat(10));
  }
  if (!git) return done(dir);
  const run = (...args) => execFileSync('git', args, { cwd: dir, env: GIT, stdio: 'ignore' });
  run('init', '-q');
  run('add', '.');
  run('-c', 'gc.auto=0', 'commit', '-qm', 'bench');
  // Packed, as a user's repository is; and no gc left running in the background during the rows.
  run('-c', 'gc.auto=0', 'gc', '-q');
  // Entries written in the index's own second are re-hashed by every status until the index is rewritten.
  execFileSync('sleep', ['1.1']);
  run('update-index', '--really-refresh');
  return done(dir);
}

// Marks a kept workspace complete (a bench ended while making one makes it again).
function done(dir) {
  if (KEEP) writeFileSync(join(dir, 'done'), '');
  return dir;
}
