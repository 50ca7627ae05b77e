// Bundles src/ into one ESM file so start-up reads one module, not hundreds.
import { build } from 'esbuild';
import { readFile, rm } from 'node:fs/promises';

const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));

// Old chunks would pile up under dist/chunks and ship with the package.
await rm(new URL('../dist', import.meta.url), { recursive: true, force: true });

await build({
  entryPoints: ['src/cli.ts'],
  outdir: 'dist',
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: false,
  // Less to parse at every start; identifiers stay readable.
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  chunkNames: 'chunks/[name]-[hash]',
  define: { __RHO_VERSION__: JSON.stringify(pkg.version) },
  // Bundled CommonJS dependencies call require(); give them one in ESM.
  banner: {
    js: "import { createRequire as __rhoCreateRequire } from 'node:module'; const require = __rhoCreateRequire(import.meta.url);",
  },
  logLevel: 'warning',
});

// `--help` (to a pipe) and `schema` print the same bytes every time: write them now, so the shim serves
// them without loading the bundle (start-up within a few ms of --version). Printed by the bundle itself.
const { execFileSync } = await import('node:child_process');
const { writeFile } = await import('node:fs/promises');
const cli = new URL('../dist/cli.js', import.meta.url).pathname;
const printed = (args) =>
  execFileSync(process.execPath, [cli, ...args], { env: { ...process.env, COLUMNS: '' }, encoding: 'utf8' });
await writeFile(new URL('../dist/help.txt', import.meta.url), printed(['--help']));
for (const format of ['stream-json', 'json']) {
  const file = new URL(`../dist/schema.${format}.json`, import.meta.url);
  await writeFile(file, printed(['schema', '--output-format', format]));
}
