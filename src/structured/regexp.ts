// ajv's `pattern` and `patternProperties` on a linear-time engine (re2js, RE2 in pure JavaScript): a
// pattern that backtracks in JavaScript's engine (`^(a+)+$`) cannot hang the run, whatever the answer.
// A pattern RE2 cannot run (lookaround, backreferences) is refused when the schema is compiled.

/** What ajv calls to make a pattern (its `code.regExp` option). */
export interface RegExpEngine {
  (pattern: string, flags: string): { test(s: string): boolean };
  code: string;
}

interface Re2Module {
  translateRegExp(p: string): string;
  compile(p: string): { test(s: string): boolean };
}

// The engine over re2js; each pattern is named by its source, which ajv uses to share one compiled copy.
export function linearRegExp(re2: Re2Module): RegExpEngine {
  const engine = (pattern: string, flags: string): { test(s: string): boolean; toString(): string } => {
    let rx: { test(s: string): boolean };
    try {
      rx = re2.compile(re2.translateRegExp(pattern));
    } catch (e) {
      throw new Error(
        `pattern ${JSON.stringify(pattern)} cannot run in linear time (${(e as Error).message})`,
      );
    }
    return { test: (s) => rx.test(s), toString: () => `/${pattern}/${flags}` };
  };
  return Object.assign(engine, { code: 're2js' });
}
