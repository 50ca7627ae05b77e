// Entry point of the bundle (bin/rho-cursor answers --version before loading it).
import { main } from './main.js';

declare const __RHO_VERSION__: string;

await main(process.argv.slice(2), __RHO_VERSION__);
