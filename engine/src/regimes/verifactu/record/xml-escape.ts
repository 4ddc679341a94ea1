// The one text-escaping function of the VeriFactu XML: every value written between tags goes
// through it, so escaping is decided in exactly one place.

/** Entity of each character that needs one, by char code (all of them are below 63). */
const ENTIDAD: ReadonlyArray<string | undefined> = (() => {
  const t: (string | undefined)[] = new Array<string | undefined>(63).fill(undefined);
  t[38] = '&amp;';
  t[60] = '&lt;';
  t[62] = '&gt;';
  t[34] = '&quot;';
  t[39] = '&apos;';
  // A raw CR would be normalised to LF by every XML parser, changing the value AEAT reads back.
  t[13] = '&#13;';
  return t;
})();

/** Escapes text content (and attribute values) for XML; plain values are returned as they are. */
export function escapeXml(text: string): string {
  // One scan by char code, no regular expression: on these short values the scan costs less
  // than a regex call, and a value with an ampersand (a company name) is rebuilt in slices
  // instead of a replace with a callback per match.
  const n = text.length;
  let i = 0;
  for (; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c < 63 && ENTIDAD[c] !== undefined) break;
  }
  if (i === n) return text;
  let out = '';
  let desde = 0;
  for (; i < n; i++) {
    const c = text.charCodeAt(i);
    const entidad = c < 63 ? ENTIDAD[c] : undefined;
    if (entidad !== undefined) {
      out += text.slice(desde, i) + entidad;
      desde = i + 1;
    }
  }
  return out + text.slice(desde);
}
