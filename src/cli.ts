// Entry point of the bundle (dist/cli.cjs). bin/rho-cursor loads it with its V8 code cache and calls start();
// `node dist/cli.cjs` (the build, tests) starts it directly.
import { main, type Boot } from './main.js';

declare const __RHO_VERSION__: string;

export function start(boot: Boot): void {
  void main(process.argv.slice(2), __RHO_VERSION__, boot);
}

if (require.main === module) start({ codeCache: 'none', tuneV8: true });
