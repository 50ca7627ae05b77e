import { describe, expect, it } from 'vitest';
import { JsonRenderer } from '../../../src/render/json.js';
import { capture, finished } from './capture.js';

describe('JsonRenderer', () => {
  it('writes nothing while the run streams', () => {
    const out = capture();
    const renderer = new JsonRenderer(out);
    renderer.emit({ type: 'message', text: 'hello' });
    expect(renderer.flush()).toBe(true);
    expect(out.writes).toEqual([]);
  });

  it('writes the whole output as one JSON line at finish', () => {
    const out = capture();
    const output = finished({
      text: 'Hello, world\n',
      todos: [{ id: 'a', content: 'A', status: 'completed' }],
    });
    new JsonRenderer(out).finish(output);
    expect(out.writes).toHaveLength(1);
    expect(out.text.endsWith('}\n')).toBe(true);
    expect(out.text.slice(0, -1)).not.toContain('\n');
    expect(JSON.parse(out.text)).toEqual(output);
  });
});
