// Conformance against records and replies published by other implementations (not shipped).
import { readFileSync } from 'node:fs';
import { DOMParser, type Element } from '@xmldom/xmldom';
import { afterAll, describe, expect, it } from 'vitest';
import { huellaAlta, huellaAnulacion } from '../../engine/src/regimes/verifactu/record/huella';
import { buildRegistroAlta } from '../../engine/src/regimes/verifactu/record/registro';
import { aFacturaF1, aRegistroAnterior, aSistemaInformatico } from '../fixtures/verifactu';
import { closeRespValidator, validateRespuesta } from '../emulators/aeat/helpers';
import { validateAgainstVerifactuXsd } from '../support/xsd';
import { CONFORMANCE_DIR, conformanceSuite, corpusFile } from './corpus';

function root(xml: string): Element {
  const el = new DOMParser().parseFromString(xml, 'text/xml').documentElement;
  if (el === null) throw new Error('no root');
  return el;
}
function first(el: Element, localName: string): string {
  const found = el.getElementsByTagNameNS('*', localName)[0];
  if (found === undefined) throw new Error(`no ${localName}`);
  return found.textContent ?? '';
}
/** A direct child's text: a record's own Huella, not the one inside RegistroAnterior. */
function own(el: Element, localName: string): string {
  for (let n = el.firstChild; n !== null; n = n.nextSibling) {
    if (n.nodeType === 1 && (n as Element).localName === localName) return n.textContent ?? '';
  }
  throw new Error(`no ${localName}`);
}
const read = (...p: string[]): string => readFileSync(corpusFile(...p), 'utf8');

afterAll(closeRespValidator);

describe.skipIf(CONFORMANCE_DIR === null)(conformanceSuite('VeriFactu conformance: published records of other implementations'), () => {
  it('reproduces the huella of a published F1 record (josemmo/Verifactu-PHP)', () => {
    const r = buildRegistroAlta({
      factura: aFacturaF1({
        emisor: { nif: '00000000B', nombre: 'El Nombre del Emisor, S.L.' },
        cabecera: { serie: 'PRUEBA-', numero: '0002', fechaExpedicion: '02-06-2025' },
        totales: { cuotaTotal: '26', importeTotal: '176' },
      }),
      anterior: aRegistroAnterior({ huella: 'A'.repeat(64) }),
      generadoEn: new Date('2025-06-02T09:22:33Z'),
      sistema: aSistemaInformatico(),
    });
    expect(r.fechaHoraHusoGenRegistro).toBe('2025-06-02T11:22:33+02:00');
    expect(r.huella).toBe(own(root(read('verifactu/examples/josemmo/registration-record-f1.xml')), 'Huella'));
  });

  it('recomputes the huella written in every published record from its own fields', () => {
    for (const f of ['registration-record-f1.xml', 'registration-record-f2.xml']) {
      const el = root(read('verifactu/examples/josemmo', f));
      const anterior = el.getElementsByTagNameNS('*', 'RegistroAnterior')[0];
      expect(
        huellaAlta({
          IDEmisorFactura: first(el, 'IDEmisorFactura'),
          NumSerieFactura: first(el, 'NumSerieFactura'),
          FechaExpedicionFactura: first(el, 'FechaExpedicionFactura'),
          TipoFactura: first(el, 'TipoFactura'),
          CuotaTotal: first(el, 'CuotaTotal'),
          ImporteTotal: first(el, 'ImporteTotal'),
          Huella: anterior === undefined ? null : first(anterior, 'Huella'),
          FechaHoraHusoGenRegistro: first(el, 'FechaHoraHusoGenRegistro'),
        }),
        f,
      ).toBe(own(el, 'Huella'));
    }
    const anulacion = root(read('verifactu/examples/josemmo/cancellation-record.xml'));
    const anterior = anulacion.getElementsByTagNameNS('*', 'RegistroAnterior')[0];
    expect(
      huellaAnulacion({
        IDEmisorFacturaAnulada: first(anulacion, 'IDEmisorFacturaAnulada'),
        NumSerieFacturaAnulada: first(anulacion, 'NumSerieFacturaAnulada'),
        FechaExpedicionFacturaAnulada: first(anulacion, 'FechaExpedicionFacturaAnulada'),
        Huella: anterior === undefined ? null : first(anterior, 'Huella'),
        FechaHoraHusoGenRegistro: first(anulacion, 'FechaHoraHusoGenRegistro'),
      }),
    ).toBe(own(anulacion, 'Huella'));
  });

  it('the published records validate against the shipped SuministroInformacion.xsd', async () => {
    for (const f of ['registration-record-f1.xml', 'registration-record-f2.xml', 'cancellation-record.xml']) {
      const r = await validateAgainstVerifactuXsd(read('verifactu/examples/josemmo', f), 'SuministroInformacion.xsd');
      expect(r.errors, f).toEqual([]);
    }
  });

  it('the emulator\'s reply validator accepts real AEAT answers (captured by odoo) and rejects a broken one', async () => {
    for (const f of ['batch_single_accepted_registration.xml', 'batch_single_registered_with_errors_registration.xml', 'batch_single_rejected_registration.xml']) {
      expect((await validateRespuesta(read('verifactu/examples/odoo', f))).valid, f).toBe(true);
    }
    const broken = read('verifactu/examples/odoo', 'batch_single_accepted_registration.xml').replace('<tikR:TiempoEsperaEnvio>60</tikR:TiempoEsperaEnvio>', '');
    expect((await validateRespuesta(broken)).valid).toBe(false);
  });
});
