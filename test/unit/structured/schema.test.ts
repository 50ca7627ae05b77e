import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadOutputSchema, RETRY_ERRORS_SHOWN, retryPrompt } from '../../../src/structured/schema.js';

describe('retryPrompt', () => {
  it('lists the errors and asks again', () => {
    const p = retryPrompt(['/safe must be boolean']);
    expect(p).toContain('- /safe must be boolean');
    expect(p).toMatch(/Answer again: end with one ```json block/);
  });

  it('shows the first errors only, each cut short, and says how many more there were', () => {
    const errors = Array.from(
      { length: 500 },
      (_, i) => `/items/${i} must be string ${'x'.repeat(i === 0 ? 1000 : 0)}`,
    );
    const p = retryPrompt(errors);
    expect(p.split('\n').filter((l) => l.startsWith('- /items/'))).toHaveLength(RETRY_ERRORS_SHOWN);
    expect(p).toContain(`- and ${500 - RETRY_ERRORS_SHOWN} more`);
    expect(p.length).toBeLessThan(3000);
  });
});

describe('loadOutputSchema', () => {
  const file = (schema: object): string => {
    const dir = mkdtempSync(join(tmpdir(), 'rho-schema-'));
    writeFileSync(join(dir, 's.json'), JSON.stringify(schema));
    return join(dir, 's.json');
  };

  it.each([
    ['https://json-schema.org/draft/2020-12/schema', true],
    ['http://json-schema.org/draft-07/schema#', true],
    [undefined, true],
    ['https://json-schema.org/draft/2019-09/schema', false],
    ['http://json-schema.org/draft-04/schema#', false],
  ])('$schema %s taken: %s', async ($schema, taken) => {
    const p = loadOutputSchema(file({ ...($schema ? { $schema } : {}), type: 'object' }));
    if (taken) expect((await p).validate({})).toEqual([]);
    else await expect(p).rejects.toThrow(/takes draft 2020-12 or draft-07/);
  });
});
