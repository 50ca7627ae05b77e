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
