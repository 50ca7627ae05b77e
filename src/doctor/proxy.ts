// Pure: a SOCKS proxy in the environment, which users report breaks Cursor's agent at session start
// ("Failed to initialize session services"). Doctor says so; the proxy's URL (it may hold a password) never.
import type { Warning } from '../config/warnings.js';

/** The variables a proxy is read from, in the order they are checked (lower-case spellings too). */
export const PROXY_VARIABLES = ['ALL_PROXY', 'all_proxy', 'HTTPS_PROXY', 'https_proxy'] as const;

// A `socks-proxy` warning naming each variable that holds a socks:// URL, or undefined.
export function socksProxyWarning(env: NodeJS.ProcessEnv): Warning | undefined {
  const names = PROXY_VARIABLES.filter((v) => /^\s*socks[45]?h?:\/\//i.test(env[v] ?? ''));
  if (names.length === 0) return undefined;
  return {
    code: 'socks-proxy',
    message: `${names.join(' and ')} ${names.length === 1 ? 'names' : 'name'} a SOCKS proxy, which is reported to break Cursor's agent ("Failed to initialize session services"); unset it for rho-cursor, or use an http:// proxy`,
  };
}
