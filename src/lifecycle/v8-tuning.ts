// V8 settings for the turn, set from inside once the agent is spawned: a V8 flag on the command line makes
// Node reject the code cache of its own modules and compile them afresh (~15 ms of every start), and set
// before the bundle is loaded it would make V8 reject the bundle's code cache too. node:v8 (~3 ms to load)
// is loaded only here. A Node whose V8 no longer reads one of them at run time only loses what it bought.
//
// - --semi-space-growth-factor=1: the young generation stays at its starting size, so memory stays flat
//   however long a turn streams (a stream of short-lived objects would grow it to 16 MiB a semi-space). The
//   factor is read each time V8 would grow the space.
// - --interrupt-budget twice the default: a function is optimised by TurboFan after twice as much work.
//   A short turn then spends no CPU optimising code it hardly runs (measured: 160 ms of CPU instead of 180
//   for a turn of 2k chunks and 200 tools, what counts when many runs share a machine), while a long turn's
//   hot path is still optimised early (50k tool pairs: the same wall time). Read as each function's budget
//   is reset.

let tuned = false;

export function tuneForTheTurn(): void {
  if (tuned) return;
  tuned = true;
  void import('node:v8').then((v8) => {
    v8.setFlagsFromString('--semi-space-growth-factor=1');
    v8.setFlagsFromString('--interrupt-budget=135168');
  });
}
