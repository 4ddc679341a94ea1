import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { IaeCatalogue, parseCsv } from '../../../engine/src/clients/iae';
import { REPO_ROOT } from '../../../engine/src/config';
import { anAutonomo, crear, expectError, makeClientsEngine } from './helpers';

const SHIPPED = path.join(REPO_ROOT, 'assets', 'iae', 'epigrafes-lroe.csv');

describe('The IAE catalogue shipped in assets/iae (LROE form, derived from the state Tarifas)', () => {
  const catalogue = IaeCatalogue.load(SHIPPED);
  it('holds the 1,080 declarable leaves of the derived list', () => {
    expect(catalogue.size).toBe(1080);
  });
  it('has the codes public libraries send to the Bizkaia sandbox and the README spot checks', () => {
    for (const code of ['197330', '184990', '197400', '197500', '102100', '165940', '167320', '172200', '273100', '184390']) expect(catalogue.has(code), code).toBe(true);
  });
  it('does not list groups that have epígrafes (1ª 751), dotted forms or codes outside it', () => {
    for (const code of ['175100', '659.4', '999999', '197331']) expect(catalogue.has(code), code).toBe(false);
  });
});

describe('The catalogue is a replaceable data file', () => {
  it('reads quoted fields and picks the lroe_epigrafe or epigrafe column', () => {
    expect(parseCsv('a,"b, c",d\n1,"x ""y""",3\r\n')).toEqual([['a', 'b, c', 'd'], ['1', 'x "y"', '3']]);
    expect(IaeCatalogue.fromCsv('titulo,epigrafe\n"Bar, café",1673201\nmal,12.3\n').has('1673201')).toBe(true);
    expect(IaeCatalogue.fromCsv('titulo,epigrafe\nmal,12.3\n').size).toBe(0);
    expect(IaeCatalogue.fromCsv('\uFEFFcodigo\n197331\n').has('197331')).toBe(true);
  });

  it('an engine configured with another file validates against it', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'iae-'));
    const file = path.join(dir, 'oficial.csv');
    writeFileSync(file, 'lroe_epigrafe,titulo\n197331,Subepígrafe foral de ejemplo\n');
    const t = await makeClientsEngine({ iaeCatalogue: file });
    try {
      const bizkaia = (epigrafeIAE: string) => anAutonomo({ nif: '23456789D', nombre: 'ETXEBERRIA GOIKOETXEA MIKEL', hacienda: 'tbai-bizkaia', epigrafeIAE });
      expectError(await crear(t, bizkaia('165940')), 400, 'VALIDATION_ERROR', 'epigrafeIAE');
      expect((await crear(t, bizkaia('197331'))).statusCode).toBe(201);
    } finally {
      await t.close();
    }
  });
});
