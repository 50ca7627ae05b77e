// Keeps V8's young generation at its starting size for the rest of the process, so memory stays flat however
// long a turn streams: a stream of short-lived objects would otherwise grow it to 16 MiB a semi-space.
// Done from inside, after start-up: a V8 flag on the command line (--max-semi-space-size) makes Node reject
// the code cache of its own modules and compile them afresh, ~15 ms of every start. The growth factor is read
// each time V8 would grow the space; a Node whose V8 no longer reads it there only uses more memory.
// node:v8 is loaded only here, when the agent is already starting: loading it costs ~3 ms.

let tuned = false;

export function keepYoungGenerationSmall(): void {
  if (tuned) return;
  tuned = true;
  void import('node:v8').then((v8) => v8.setFlagsFromString('--semi-space-growth-factor=1'));
}
