// The one text-escaping function of the VeriFactu XML: every value written between tags goes
// through it, so escaping is decided in exactly one place.

const NEEDS_ESCAPE = /[&<>"'\r]/;
const ESCAPE_ALL = /[&<>"'\r]/g;
const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
  // A raw CR would be normalised to LF by every XML parser, changing the value AEAT reads back.
  '\r': '&#13;',
};

/** Escapes text content (and attribute values) for XML; plain values are returned as they are. */
export function escapeXml(text: string): string {
  // Fast path: most values need nothing (a compiled regex test beats a JS char loop here).
  if (!NEEDS_ESCAPE.test(text)) return text;
  return text.replace(ESCAPE_ALL, (c) => ENTITIES[c] ?? c);
}
