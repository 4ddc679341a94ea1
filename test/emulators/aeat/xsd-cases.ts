import { ChainBuilder, NS_LR, NS_SI, buildEnvelope } from './builders';
import { DEMO, T0 } from './helpers';

// Requests whose XSD verdict and 4102 text the emulator's validator must give exactly as xmllint
// does: valid ones (small, non-ASCII, 1,000 records) and one of each way a document fails —
// a wrong element, a missing required one, a bad pattern, a bad enumeration, a facet, not
// well-formed (three ways), the parser's recoverable errors and warnings (xmllint still validates
// and prints them first), a wrong namespace (of the records, of the root), the error deep in a
// 1,000-record request, and a text node past libxml2's default 10 MB limit.

export interface XsdCase {
  name: string;
  envelope: string;
}

/** Replaces the first match, failing loudly when the builders change and nothing matches. */
function edit(xml: string, from: string | RegExp, to: string): string {
  const out = xml.replace(from, to);
  if (out === xml) throw new Error(`xsd case: nothing to replace for ${String(from)}`);
  return out;
}

export function xsdCases(): XsdCase[] {
  const chain = new ChainBuilder(DEMO.nif, new Date(T0 - 3600_000));
  const one = buildEnvelope({ obligado: DEMO, records: [chain.alta()] });
  const thousand = buildEnvelope({ obligado: DEMO, records: Array.from({ length: 1000 }, () => chain.alta()) });
  const lastRecord = thousand.lastIndexOf('<sum1:TipoFactura>');
  return [
    { name: 'valid, one record', envelope: one },
    {
      name: 'valid, non-ASCII names',
      envelope: buildEnvelope({ obligado: { nif: DEMO.nif, nombre: 'CAFÉ ÑANDÚ Y CÍA SL' }, records: [chain.alta({ nombreRazonEmisor: 'PEÑA €' })] }),
    },
    { name: 'valid, 1,000 records', envelope: thousand },
    { name: 'wrong element', envelope: edit(one, /<sum1:NombreRazonEmisor>([^<]*)<\/sum1:NombreRazonEmisor>/, '<sum1:NombreEmisor>$1</sum1:NombreEmisor>') },
    { name: 'missing required element', envelope: edit(one, /<sum1:Huella>[0-9A-F]{64}<\/sum1:Huella><\/sum1:RegistroAlta>/, '</sum1:RegistroAlta>') },
    { name: 'missing required block', envelope: edit(one, /<sum1:SistemaInformatico>.*<\/sum1:SistemaInformatico>/, '') },
    { name: 'bad pattern', envelope: edit(one, /<sum1:FechaExpedicionFactura>[^<]*</, '<sum1:FechaExpedicionFactura>2025-03-01<') },
    { name: 'bad enumeration', envelope: edit(one, '<sum1:TipoFactura>F2<', '<sum1:TipoFactura>F9<') },
    { name: 'too long (maxLength)', envelope: edit(one, /<sum1:NombreRazonEmisor>[^<]*</, `<sum1:NombreRazonEmisor>${'X'.repeat(121)}<`) },
    { name: 'not well-formed: mismatched end tag', envelope: edit(one, '</sum1:NombreRazonEmisor>', '</sum1:NombreRazon>') },
    { name: 'not well-formed: bare ampersand', envelope: edit(one, /<sum1:NombreRazonEmisor>[^<]*</, '<sum1:NombreRazonEmisor>A & B<') },
    { name: 'not namespace-well-formed: undeclared prefix', envelope: edit(one, /<sum1:Huella>([0-9A-F]{64})<\/sum1:Huella><\/sum1:RegistroAlta>/, '<sum9:Huella>$1</sum9:Huella></sum1:RegistroAlta>') },
    { name: 'namespace error, the document otherwise valid', envelope: edit(one, '<sum1:TipoHuella>', '<sum1:TipoHuella xmlns:xml="urn:not-xml">') },
    { name: 'namespace warning first: a relative namespace URI', envelope: edit(one, `xmlns:sum1="${NS_SI}"`, 'xmlns:sum1="relative"') },
    { name: 'parser warning first: a PI named xml-…', envelope: edit(edit(one, '<sum1:TipoHuella>', '<?xml-note x?><sum1:TipoHuella>'), '<sum1:TipoFactura>F2<', '<sum1:TipoFactura>F9<') },
    { name: 'wrong namespace of the records', envelope: edit(one, `xmlns:sum1="${NS_SI}"`, 'xmlns:sum1="urn:wrong"') },
    { name: 'wrong namespace of the root', envelope: edit(one, `xmlns:sum="${NS_LR}"`, 'xmlns:sum="urn:wrong"') },
    {
      name: '1,000 records, the last one with a bad enumeration',
      envelope: thousand.slice(0, lastRecord) + edit(thousand.slice(lastRecord), '<sum1:TipoFactura>F2<', '<sum1:TipoFactura>F9<'),
    },
    {
      name: 'huge text node (past the 10 MB limit)',
      envelope: edit(one, /<sum1:DescripcionOperacion>[^<]*</, `<sum1:DescripcionOperacion>${'x'.repeat(10_500_000)}<`),
    },
  ];
}
