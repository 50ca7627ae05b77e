// Writes dist/cli.cjs.cache: V8's code cache for the bundle, after a whole run through the shim's own loader,
// so it holds what a run compiles (start-up, the handshake, the events, the renderer). Run by the build twice,
// a stream-json run and then a text run that starts from the first one's cache and adds what it compiled.
// Usage: node scripts/code-cache.cjs <cache file> <recording> <work dir> <output format>
const { join } = require('node:path');

const [cacheFile, recording, work, format] = process.argv.slice(2);
const root = join(__dirname, '..');
process.env.RHO_REPLAY = recording;
process.chdir(work);
process.argv = [
  process.argv[0],
  join(root, 'bin', 'rho-cursor'),
  'run',
  '--agent',
  join(root, 'tools', 'cursor-agent'),
  '--output-format',
  format,
  'Read hello.txt, search for "hello", list the files, create out.txt with "hi", capitalise the greeting.',
];
require('../bin/rho-cursor').load(cacheFile);
