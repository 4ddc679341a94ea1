import { afterAll, describe, expect, it } from 'vitest';
import { XsdWorkerPool } from '../../../engine/emulators/common/xsd-pool';
import { XsdValidator, extractBodyPayload, loadVerifactuSchemas } from '../../../engine/emulators/aeat/index';
import { schemaFaultText } from '../../../engine/emulators/aeat/errors';
import { referenceDir } from '../../../engine/emulators/paths';
import { TbaiXsdPool, loadTicketBaiSchemas } from '../../../engine/emulators/ticketbai/index';
import { xsdDetail } from '../../../engine/emulators/ticketbai/rest';
import { validateAgainstVerifactuXsd, type XsdResult } from '../../support/xsd';
import { validateAgainstTicketbaiXsd, type TicketbaiRootXsd } from '../../support/xsd-ticketbai';
import { altaXml, anulacionXml, lroeXml, signTicketBai } from '../ticketbai/builders';
import { OFFICIAL_1, OFFICIAL_2, OFFICIAL_ANULA_2, official } from '../ticketbai/helpers';
import { parseFault, parseRespuesta, startHarness } from './helpers';
import { xsdCases } from './xsd-cases';

// The emulators validate with schemas compiled once per worker (libxml2-wasm); xmllint-wasm, the
// test suite's own checker, recompiles them per run. Same libxml2 messages, so the same verdict,
// the same diagnostics in the same order, and the same AEAT answer for every document.

/** xmllint's diagnostics without the source line and caret it prints under a parser error. */
function diagnostics(r: XsdResult): string[] {
  return r.errors.filter((e) => /^(?:parser|namespace|Schemas validity) (?:error|warning) : /.test(e));
}

describe('AEAT: the compiled-once validator against xmllint', () => {
  const cases = xsdCases();
  const validator = new XsdValidator(loadVerifactuSchemas(referenceDir(), 'SuministroLR.xsd'), { poolSize: 1 });
  afterAll(() => validator.close());

  it('gives every document the verdict and the diagnostics xmllint gives', async () => {
    for (const c of cases) {
      const payload = extractBodyPayload(c.envelope).xml;
      const reference = await validateAgainstVerifactuXsd(payload, 'SuministroLR.xsd');
      const ours = await validator.validate(payload);
      expect({ name: c.name, valid: ours.valid, errors: ours.errors }).toEqual({ name: c.name, valid: reference.valid, errors: diagnostics(reference) });
    }
    // The set is not one-sided: both verdicts, and a 4102 naming each kind of failure.
    const verdicts = await Promise.all(cases.map(async (c) => (await validator.validate(extractBodyPayload(c.envelope).xml)).valid));
    expect(verdicts.filter(Boolean)).toHaveLength(4);
    expect(verdicts.filter((v) => !v)).toHaveLength(cases.length - 4);
  });

  it('answers every request as xmllint\'s messages say: 200, or a 4102 Fault with the text derived from them', async () => {
    const h = await startHarness();
    try {
      const faults: string[] = [];
      for (const c of cases) {
        h.emu.reset();
        const reference = await validateAgainstVerifactuXsd(extractBodyPayload(c.envelope).xml, 'SuministroLR.xsd');
        const r = await h.post(c.envelope);
        if (reference.valid) {
          expect({ name: c.name, status: r.status }).toEqual({ name: c.name, status: 200 });
          expect(parseRespuesta(r.text).estadoEnvio).toBe('Correcto');
        } else {
          expect({ name: c.name, status: r.status }).toEqual({ name: c.name, status: 500 });
          const f = parseFault(r.text);
          expect({ name: c.name, faultstring: f.faultstring }).toEqual({ name: c.name, faultstring: `Codigo[4102].${schemaFaultText(reference.errors)}` });
          faults.push(f.faultstring);
        }
      }
      expect(faults.join('\n')).toContain('Falta informar campo obligatorio.: Huella');
      expect(faults.join('\n')).toContain("[facet 'enumeration'] The value 'F9'");
      expect(faults.join('\n')).toContain('parser error : Opening and ending tag mismatch');
      expect(faults.join('\n')).toContain('namespace error : Namespace prefix sum9 on Huella is not defined');
      expect(faults.join('\n')).toContain('Text node too long');
    } finally {
      await h.close();
    }
  });
});

describe('TicketBAI: the compiled-once validator against xmllint, many documents in one call', () => {
  const pool = new TbaiXsdPool(loadTicketBaiSchemas(referenceDir()), { poolSize: 1 });
  afterAll(() => pool.close());

  it('gives each document of a batch the verdict and diagnostics xmllint gives it alone', async () => {
    const alta = signTicketBai(altaXml({ num: '1' }));
    const anulacion = signTicketBai(anulacionXml({ num: '1' }));
    const docs: Array<{ xml: string; root: TicketbaiRootXsd }> = [
      { xml: official(OFFICIAL_1), root: 'ticketbaiv1-2-2.xsd' },
      { xml: alta, root: 'ticketbaiv1-2-2.xsd' },
      { xml: signTicketBai(altaXml({ num: '2', rawInCabecera: '<Foo>1</Foo>' })), root: 'ticketbaiv1-2-2.xsd' },
      { xml: altaXml({ num: '3' }), root: 'ticketbaiv1-2-2.xsd' },
      { xml: signTicketBai(altaXml({ num: '4', fecha: '2025-03-01' })), root: 'ticketbaiv1-2-2.xsd' },
      { xml: alta.replace('</NumFactura>', '</NumFacturaX>'), root: 'ticketbaiv1-2-2.xsd' },
      { xml: official(OFFICIAL_2), root: 'ticketbaiv1-2-2.xsd' },
      { xml: anulacion, root: 'anula_ticketbaiv1-2-2.xsd' },
      { xml: official(OFFICIAL_ANULA_2), root: 'anula_ticketbaiv1-2-2.xsd' },
      { xml: anulacion.replace('<IDVersionTBAI>1.2<', '<IDVersionTBAI>9.9<'), root: 'anula_ticketbaiv1-2-2.xsd' },
    ];
    const ours = await pool.validateMany('tbai', docs.map((d) => d.xml));
    expect(ours).toHaveLength(docs.length);
    for (const [i, d] of docs.entries()) {
      const reference = await validateAgainstTicketbaiXsd(d.xml, d.root);
      expect({ doc: i, valid: ours[i]?.valid, errors: ours[i]?.errors }).toEqual({ doc: i, valid: reference.valid, errors: diagnostics(reference) });
      // The answer's detail is derived from the first message.
      expect(xsdDetail(ours[i]?.errors ?? [])).toBe(xsdDetail(reference.errors));
    }
    expect(ours.map((r) => r.valid)).toEqual([true, true, false, false, false, false, true, true, true, false]);
  });

  it('validates LROE petitions as xmllint does', async () => {
    const file = signTicketBai(altaXml({ num: '1' }));
    const valid = lroeXml({ model: '240', op: 'alta', files: [file] });
    const invalid = lroeXml({ model: '240', op: 'alta', files: [file], operacion: 'Z99' });
    const ours = await pool.validateMany('lroe', [valid, invalid]);
    const root = 'LROE_PJ_240_1_1_FacturasEmitidas_ConSG_AltaPeticion_V1_0_2.xsd';
    for (const [i, xml] of [valid, invalid].entries()) {
      const reference = await validateAgainstTicketbaiXsd(xml, root);
      expect({ valid: ours[i]?.valid, errors: ours[i]?.errors }).toEqual({ valid: reference.valid, errors: diagnostics(reference) });
    }
    expect(ours.map((r) => r.valid)).toEqual([true, false]);
  });
});

describe('XSD workers: memory and replacement', () => {
  const schemas = { schemas: loadVerifactuSchemas(referenceDir(), 'SuministroLR.xsd') };
  const cases = xsdCases();
  const byName = (name: string): string => extractBodyPayload(cases.find((c) => c.name.startsWith(name))?.envelope ?? '').xml;

  it('validates request after request on one worker without its memory growing', async () => {
    const pool = new XsdWorkerPool(schemas, { poolSize: 1, timeoutMs: 60_000, name: 'test' });
    try {
      // Every path of the worker: valid, invalid, not well-formed, parsed again after a recoverable error.
      const docs = ['valid, 1,000 records', '1,000 records, the last', 'not well-formed: mismatched', 'not namespace-well-formed'].map(byName);
      const memory: number[] = [];
      for (let round = 0; round < 12; round++) {
        const run = await pool.run('schemas', docs.map((contents, i) => ({ fileName: `d${i}.xml`, contents })));
        expect(run.results.map((r) => r.valid)).toEqual([true, false, false, false]);
        memory.push(run.memoryBytes);
      }
      // libxml2's heap reaches what the largest document needs in the first round and stays there;
      // a leak of the documents (not disposed) would add ≈ 20 MB a round.
      expect(memory[0]).toBeGreaterThan(0);
      expect(Math.max(...memory)).toBeLessThanOrEqual((memory[1] ?? 0) + 4 * 1024 * 1024);
      expect(pool.workersStarted).toBe(1);
    } finally {
      await pool.close();
    }
  });

  it('replaces a worker whose heap passed the ceiling, and the next one answers the same', async () => {
    const pool = new XsdWorkerPool(schemas, { poolSize: 1, timeoutMs: 60_000, recycleAboveBytes: 1, name: 'test' });
    try {
      const doc = byName('bad enumeration');
      const first = await pool.run('schemas', [{ fileName: 'doc.xml', contents: doc }]);
      const second = await pool.run('schemas', [{ fileName: 'doc.xml', contents: doc }]);
      expect(pool.workersStarted).toBe(3);
      expect(second.results).toEqual(first.results);
      expect(first.results[0]?.valid).toBe(false);
    } finally {
      await pool.close();
    }
  });

  it('abandons a validation past its timeout and answers the next one on a new worker', async () => {
    const pool = new XsdWorkerPool(schemas, { poolSize: 1, timeoutMs: 1, name: 'test' });
    try {
      await expect(pool.run('schemas', [{ fileName: 'doc.xml', contents: byName('valid, 1,000 records') }])).rejects.toThrow(/timed out/);
      expect(pool.workersStarted).toBe(2);
    } finally {
      await pool.close();
    }
  });

  it('fails every validation of a set that does not compile, naming it', async () => {
    const pool = new XsdWorkerPool({ broken: [{ fileName: 'broken.xsd', contents: '<schema xmlns="http://www.w3.org/2001/XMLSchema"><element name="a" type="nope"/></schema>' }] }, { poolSize: 1, timeoutMs: 60_000, name: 'test' });
    try {
      await expect(pool.run('broken', [{ fileName: 'doc.xml', contents: '<a/>' }])).rejects.toThrow(/xsd set broken does not compile/);
    } finally {
      await pool.close();
    }
  });
});
