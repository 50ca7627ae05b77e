// `npm run demo`: a whole run against a shipped recording, so a newcomer sees rho-cursor work with no Cursor installed.
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const recording = process.argv[2] ?? 'tools.jsonl';
const extra = process.argv.slice(3);
const prompt =
  'Read hello.txt, search for "hello", list the files, create out.txt with "hi", capitalise the greeting.';

console.error(`demo: replaying recordings/${recording} through the real rho-cursor (no Cursor needed)\n`);
const r = spawnSync(
  join(root, 'bin', 'rho-cursor'),
  ['run', '--agent', join(root, 'tools', 'cursor-agent'), ...extra, prompt],
  {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: {
      ...process.env,
      RHO_REPLAY: join(root, 'recordings', recording),
      RHO_REPLAY_SPEED: process.env.RHO_REPLAY_SPEED ?? '0.2',
      // An empty private config dir, so the demo neither reads nor touches your own Cursor config.
      CURSOR_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'rho-demo-')),
    },
  },
);
console.error(`\ndemo: rho-cursor exited with ${r.status}`);
process.exit(r.status ?? 1);
