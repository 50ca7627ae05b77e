// Pure: a non-text ACP content block (image, audio, resource_link, resource) named for the reader, never dropped.
import { isRecord, str } from '../acp/messages.js';
import type { MessageEvent } from './types.js';

export type ContentRef = NonNullable<MessageEvent['content']>;

// Names a content block by kind and name (or uri); an embedded text resource also gives its text.
export function contentRef(block: unknown): { content: ContentRef; text: string } | undefined {
  if (!isRecord(block) || typeof block.type !== 'string' || block.type === 'text') return undefined;
  const inner = block.type === 'resource' && isRecord(block.resource) ? block.resource : block;
  const uri = str(inner.uri);
  return {
    content: {
      type: block.type,
      name: str(block.name) ?? str(block.title) ?? uri,
      uri,
      mimeType: str(inner.mimeType),
    },
    text: block.type === 'resource' ? (str(inner.text) ?? '') : '',
  };
}
