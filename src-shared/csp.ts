/**
 * The till UI's Content-Security-Policy, one text for both places that send it: the panel server
 * (headless and browser use) and Electron's main process (the till window). Its own scripts and
 * styles only, the QR as data: images, HTTP to its own origin (the panel and its relay).
 */
export const TILL_UI_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
