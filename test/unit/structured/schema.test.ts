import { describe, expect, it } from 'vitest';
import { RETRY_ERRORS_SHOWN, retryPrompt } from '../../../src/structured/schema.js';

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
