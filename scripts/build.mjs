// Builds dist/: one CommonJS bundle of src/ (dist/cli.cjs), the large dependencies only some runs need as
// their own files (dist/vendor/), a V8 code cache for the bundle, and the bytes of --help and schema.
// CommonJS, not ES modules: Node's ES module loader costs ~12 ms to start, before a line of ours runs.
import { build } from 'esbuild';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST = join(ROOT, 'dist');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

// What a run loads only when it needs it (ajv for --output-schema, ora on a terminal, zod for `schema`):
// outside the bundle, so a run that does not need them neither reads nor compiles them. Each is its own
// CommonJS file, whose exports the bundle sees as Node would (module.exports is the default export).
const VENDOR = {
  // ora is an ES module: its default export is what src/ uses.
  ora: ['ora', 'module.exports = require("ora").default;'],
  zod: ['zod', 'module.exports = require("zod");'],
  // The linear-time regex engine, loaded only for a schema that has a pattern.
  re2js: ['re2js', 'module.exports = require("re2js");'],
};

// What --output-schema loads, in one file: ajv-formats generates code with ajv's own codegen classes, so
// ajv, its 2020-12 class and ajv-formats must share one copy of ajv. Each import path is a key of that file's
// exports.
const SCHEMA_KIT = { ajv: 'ajv', 'ajv/dist/2020.js': 'ajv2020', 'ajv-formats': 'formats' };
const SCHEMA_KIT_FILE = './vendor/schema-kit.cjs';
VENDOR['schema-kit'] = [
  'schema-kit',
  `module.exports = {${Object.entries(SCHEMA_KIT)
    .map(([path, key]) => `${key}: require(${JSON.stringify(path)})`)
    .join(', ')}};`,
];

const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: false,
  // Less to read and parse at every start: each page a run touches first costs a page fault (~14 µs on the
  // machines this was measured on), and short names took the bundle from 495 to 371 KB and ~2 ms off a run's
  // start. Nothing reads a function's or a class's name, and no stack trace reaches a user (one line an error).
  minifyWhitespace: true,
  minifySyntax: true,
  minifyIdentifiers: true,
  legalComments: 'none',
  logLevel: 'warning',
};

// Old files would pile up in dist/ and ship with the package.
rmSync(DIST, { recursive: true, force: true });

// The bundle is written as the function bin/rho-cursor compiles (the wrapper Node's CommonJS loader would
// put around it), so the shim hands V8 the file's text as read: wrapping 370 KB at run time cost a copy of it
// and ~1.7 ms more to take the code cache. Run directly (`node dist/cli.cjs`), the file is inside Node's own
// module function, whose five arguments it passes on; compiled by the shim at the top level of a script there
// are no `arguments` (a global `module`, as `node -e` makes, is not taken for one), and it is the script's
// value.
const WRAP = 'var rhoCursorBundle = function (exports, require, module, __filename, __dirname) {';
const UNWRAP =
  '\n}; if (typeof arguments === "object" && arguments.length === 5) rhoCursorBundle.apply(this, arguments); rhoCursorBundle';

// A vendor file or a Node module, imported: a require, lazy where the import is dynamic, so the bundle never
// needs the ES module loader (bin/rho-cursor runs it without one).
const vendorPlugin = {
  name: 'vendor',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      if (args.namespace === 'lazy') return { path: args.path, external: true };
      const kitKey = SCHEMA_KIT[args.path];
      if (kitKey !== undefined) return { path: kitKey, namespace: 'schema-kit' };
      const vendor = VENDOR[args.path];
      const target = vendor
        ? `./vendor/${vendor[0]}.cjs`
        : args.path.startsWith('node:')
          ? args.path
          : undefined;
      if (target === undefined) return undefined;
      return args.kind === 'dynamic-import'
        ? { path: target, namespace: 'lazy' }
        : { path: target, external: true };
    });
    b.onLoad({ filter: /.*/, namespace: 'schema-kit' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(SCHEMA_KIT_FILE)})[${JSON.stringify(args.path)}];`,
      loader: 'js',
    }));
    b.onResolve({ filter: /.*/, namespace: 'schema-kit' }, (args) => ({
      path: args.path,
      external: true,
    }));
    b.onLoad({ filter: /.*/, namespace: 'lazy' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(args.path)});`,
      loader: 'js',
    }));
  },
};

await build({
  ...common,
  entryPoints: { cli: join(ROOT, 'src/cli.ts') },
  outdir: DIST,
  outExtension: { '.js': '.cjs' },
  banner: { js: WRAP },
  footer: { js: UNWRAP },
  define: { __RHO_VERSION__: JSON.stringify(pkg.version) },
  plugins: [vendorPlugin],
});

// The --output-schema worker (src/structured/worker.ts): a file of its own next to the bundle, which a run
// with a schema starts as a worker thread; it requires the same vendor files.
await build({
  ...common,
  entryPoints: { 'schema-worker': join(ROOT, 'src/structured/worker.ts') },
  outdir: DIST,
  outExtension: { '.js': '.cjs' },
  plugins: [vendorPlugin],
});

for (const [name, contents] of Object.values(VENDOR)) {
  await build({
    ...common,
    stdin: { contents, resolveDir: ROOT },
    outfile: join(DIST, 'vendor', `${name}.cjs`),
  });
}

// The code cache: a run of a shipped recording in each output format, through the shim's own loader, so
// what a run compiles is cached (V8 takes it only from the same Node build and flags; else it compiles).
const work = mkdtempSync(join(tmpdir(), 'rho-build-'));
try {
  for (const format of ['stream-json', 'text']) {
    const args = [join(DIST, 'cli.cjs.cache'), join(ROOT, 'recordings', 'tools.jsonl'), work, format];
    const r = spawnSync(process.execPath, [join(ROOT, 'scripts', 'code-cache.cjs'), ...args], {
      stdio: ['ignore', 'ignore', 'pipe'],
      // Only what the run needs: none of the builder's GitHub, Cursor or rho-cursor settings reach it.
      env: { PATH: process.env.PATH, HOME: work, CURSOR_CONFIG_DIR: work, RHO_REPLAY_SPEED: '0' },
      encoding: 'utf8',
    });
    // The run is also a check that the bundle works at all: a build that cannot run one fails here.
    if (r.status !== 0)
      throw new Error(`the ${format} run for the code cache failed (${r.status}):\n${r.stderr}`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

// `--help` (to a pipe) and `schema` print the same bytes every time: write them now, so the shim serves
// them without loading the bundle (start-up within a few ms of --version). Printed by the bundle itself.
const cli = join(DIST, 'cli.cjs');
const printed = (args) =>
  execFileSync(process.execPath, [cli, ...args], { env: { ...process.env, COLUMNS: '' }, encoding: 'utf8' });
writeFileSync(join(DIST, 'help.txt'), printed(['--help']));
for (const format of ['stream-json', 'json']) {
  writeFileSync(join(DIST, `schema.${format}.json`), printed(['schema', '--output-format', format]));
}
