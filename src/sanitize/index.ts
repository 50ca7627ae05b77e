// The sanitisers, one per sink: terminal lines, GitHub workflow commands, Markdown, and cuts that redact first.
export { oneLine, terminalSafe } from './terminal.js';
export { markdownInline, fenceFor } from './markdown.js';
export { cutEnd, cutStart, redacted, useSecret } from './cut.js';
export { escapeData, escapeProperty, GuardState, inertJson } from './workflow.js';
