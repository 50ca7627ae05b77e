// Entry point: answers --version without loading anything else, then hands over to the command wiring.
declare const __RHO_VERSION__: string;

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  process.stdout.write(__RHO_VERSION__ + '\n');
} else {
  const { main } = await import('./main.js');
  await main(argv, __RHO_VERSION__);
}
