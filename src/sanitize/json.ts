// Pure: JSON text every strict UTF-8 reader (jq) takes. JSON.stringify writes a lone surrogate as a `\udXXX`
// escape, which such readers refuse: each becomes U+FFFD. An escaped backslash before `u` is left alone.

// Rewrites the lone-surrogate escapes of one serialised JSON text; the quick test first.
export function wellFormedJson(json: string): string {
  if (!json.includes('\\ud')) return json;
  return json.replace(/(\\+)u(d[89a-f][0-9a-f]{2})/g, (m: string, slashes: string) =>
    // An odd run of backslashes ends in the escape's own; an even one is escaped backslashes and text.
    slashes.length % 2 === 1 ? slashes.slice(1) + '\uFFFD' : m,
  );
}
