// `npm run demo [recording] [flags]`: a whole run against a shipped recording, so a newcomer sees rho-cursor
// work with no Cursor installed. Each recording gets the flags it was recorded with (see the README).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

// The flags each recording needs to play through (the replay agent checks every answer against it).
const FLAGS = {
  'deny-read-fetch': ['--allow', 'fetch'],
  'permission-allow': ['--permissions', 'allow'],
  'permission-reject': ['--permissions', 'reject'],
  'plan-mode': ['--plan'],
  'plan-refused': ['--plan'],
  'update-todos': ['--plan'],
  cursor_deny_read_fetch: ['--allow', 'fetch'],
  cursor_permission_reject: ['--permissions', 'reject'],
  cursor_plan_mode: ['--plan'],
  cursor_ext_update_todos: ['--plan'],
};

const arg = process.argv[2] ?? 'tools';
const name = basename(arg, '.jsonl');
// A name from recordings/, or from the spike's ../shared/recordings, or a path.
const file = [
  arg,
  join(root, 'recordings', `${name}.jsonl`),
  join(root, '..', 'shared', 'recordings', `${name}.jsonl`),
].find((f) => f.endsWith('.jsonl') && existsSync(f));
if (!file) {
  console.error(`demo: no recording named ${arg} (see recordings/)`);
  process.exit(2);
}
const args = [
  'run',
  '--agent',
  join(root, 'tools', 'cursor-agent'),
  ...(FLAGS[name] ?? []),
  ...process.argv.slice(3),
];
const prompt =
  'Read hello.txt, search for "hello", list the files, create out.txt with "hi", capitalise the greeting.';

console.error(`demo: replaying ${file} through the real rho-cursor (no Cursor needed)`);
// The same run as a command to type here (a POSIX shell): every word quoted where the shell needs it, paths
// relative to this folder, and an empty config dir of its own, as the demo's.
const word = (w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, "'\\''")}'`);
const here = (p) => relative(process.cwd(), p) || '.';
const typed = [
  `RHO_REPLAY=${word(here(file))}`,
  'CURSOR_CONFIG_DIR=$(mktemp -d)',
  ...[here(join(root, 'bin', 'rho-cursor')), args[0], args[1], here(args[2]), ...args.slice(3), prompt].map(
    word,
  ),
].join(' ');
console.error(`demo: ${typed}${name.includes('cancel') ? ' (press Ctrl-C to cancel)' : ''}\n`);
// An empty private config dir, so the demo neither reads nor touches your own Cursor config; removed after.
const configDir = mkdtempSync(join(tmpdir(), 'rho-demo-'));
// Ctrl-C is the run's to answer (the cancel recording waits for it); the demo still cleans up after it.
process.on('SIGINT', () => {});
// SIGTERM or SIGHUP (a supervisor, a closed terminal) may reach the demo alone: the run is handed it, and the
// demo waits for the run to end, removes the dir, and exits as the shell's convention says (143, 129).
// (The child is spawned, not spawnSync'd, so these handlers run while it lives.)
let stoppedBy;
const child = spawn(join(root, 'bin', 'rho-cursor'), [...args, prompt], {
  stdio: ['ignore', 'inherit', 'inherit'],
  env: {
    ...process.env,
    RHO_REPLAY: file,
    RHO_REPLAY_SPEED: process.env.RHO_REPLAY_SPEED ?? '0.2',
    CURSOR_CONFIG_DIR: configDir,
  },
});
for (const signal of ['SIGTERM', 'SIGHUP'])
  process.on(signal, () => {
    stoppedBy ??= signal;
    child.kill(signal);
  });
let ended = false;
const end = (status, why) => {
  if (ended) return;
  ended = true;
  rmSync(configDir, { recursive: true, force: true });
  console.error(`\ndemo: ${why}`);
  process.exit(stoppedBy ? 128 + constants.signals[stoppedBy] : (status ?? 1));
};
child.on('error', (e) => end(1, `rho-cursor could not start: ${e.message}`));
child.on('close', (status, signal) => end(status, `rho-cursor exited with ${status ?? signal}`));
