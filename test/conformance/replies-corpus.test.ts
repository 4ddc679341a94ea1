// Conformance of our reply parsers and the emulators' answer schemas against real authority
// answers captured by other projects (not shipped): AEAT pre-production replies (odoo) and
// Gipuzkoa reception answers (OCA).
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAeatReply } from '../../engine/src/regimes/verifactu/authority/aeat-reply';
import { closeValidator, validateTicketBaiResponse } from '../emulators/ticketbai/helpers';
import { CONFORMANCE_DIR, conformanceSuite, corpusFile } from './corpus';

const read = (...p: string[]): string => readFileSync(corpusFile(...p), 'utf8');

afterAll(closeValidator);

describe.skipIf(CONFORMANCE_DIR === null)(conformanceSuite('Authority replies captured by other projects'), () => {
  it('parses the AEAT\'s accepted, accepted-with-errors and rejected answers', () => {
    const ok = parseAeatReply(read('verifactu/examples/odoo/batch_single_accepted_registration.xml'));
    expect(ok).toMatchObject({ kind: 'respuesta', csv: 'A-YDSW8NLFLANWPM', estadoEnvio: 'Correcto', tiempoEsperaEnvio: 60 });
    const conErrores = parseAeatReply(read('verifactu/examples/odoo/batch_single_registered_with_errors_registration.xml'));
    expect(conErrores).toMatchObject({ kind: 'respuesta', estadoEnvio: 'ParcialmenteCorrecto' });
    if (conErrores.kind === 'respuesta') expect(conErrores.lineas[0]).toMatchObject({ estado: 'AceptadoConErrores', codigo: '2005' });
    const rechazada = parseAeatReply(read('verifactu/examples/odoo/batch_single_rejected_registration.xml'));
    expect(rechazada).toMatchObject({ kind: 'respuesta', estadoEnvio: 'Incorrecto' });
    if (rechazada.kind === 'respuesta') expect(rechazada.lineas[0]).toMatchObject({ estado: 'Incorrecto', codigo: '1244' });
    expect(parseAeatReply(read('verifactu/examples/odoo/soapfault.xml'))).toMatchObject({ kind: 'fault', codigo: '4102' });
  });

  it('Gipuzkoa\'s real answers validate against the shipped TicketBAIResponse.xsd', async () => {
    for (const f of ['response_with_multiple_errors.xml', 'response_with_error_code_005.xml']) {
      const r = await validateTicketBaiResponse(read('ticketbai/examples/gipuzkoa-responses', f));
      expect(r.errors, f).toEqual([]);
    }
  });
});
