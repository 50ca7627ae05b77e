// A strict UTF-8 JSON reader, as jq is: the bytes must decode without error, the text must parse, and no
// lone surrogate may be spelled as an escape (jq refuses those too).
export function strictJson(line: string): unknown {
  const text = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(line, 'utf8'));
  // (A pair written as two escapes, as safeJson writes the invisible tag characters, is no lone one.)
  if (
    /(^|[^\\])(\\\\)*(?<!\\ud[89ab][0-9a-f]{2})\\u(d[89ab][0-9a-f]{2}(?!\\ud[c-f])|d[c-f][0-9a-f]{2})/i.test(
      text,
    )
  )
    throw new Error(`a lone surrogate escape in ${text.slice(0, 200)}`);
  if (/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text))
    throw new Error('a lone surrogate');
  return JSON.parse(text);
}
