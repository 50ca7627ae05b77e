// json renderer: nothing while the run streams, one object when it ends.
import type { Event, JsonOutput } from '../events/types.js';
import { safeJson } from '../sanitize/json.js';
import type { Renderer, Writer } from './writer.js';

export class JsonRenderer implements Renderer {
  constructor(private readonly out: Writer) {}

  emit(_event: Event): void {}

  flush(): boolean {
    return true;
  }

  settle(): void {}

  finish(output: JsonOutput): void {
    this.out.write(safeJson(JSON.stringify(output)) + '\n');
  }
}
