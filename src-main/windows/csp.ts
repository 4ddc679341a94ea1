import { TILL_UI_CSP } from '../../src-shared/csp';
// The till window's Content-Security-Policy: the UI's own scripts and styles only, QR images as
// data: URLs, HTTP to its own origin (the panel and its relay). The panel server sends the same
// header; main enforces it again for every response of the panel origin.
export const TILL_CSP = TILL_UI_CSP;

/** Response headers with the CSP forced for the panel origin; others untouched. */
export function withCsp(url: string, origin: string | undefined, headers: Record<string, string[] | string> | undefined): Record<string, string[] | string> {
  const out = { ...(headers ?? {}) };
  let responseOrigin = '';
  try {
    responseOrigin = new URL(url).origin;
  } catch {
    return out;
  }
  if (origin && responseOrigin === origin) {
    for (const key of Object.keys(out)) if (key.toLowerCase() === 'content-security-policy') delete out[key];
    out['Content-Security-Policy'] = [TILL_CSP];
  }
  return out;
}
