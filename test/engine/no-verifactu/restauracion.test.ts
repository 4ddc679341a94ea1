// Event 07 (restauración de copia de seguridad, when the billing system itself manages it:
// EventosSIF.xsd): the engine's own copies (`copia crear`), a restore staged by `copia restaurar`
// and swapped in at the next start, and event 07 in every «NO VERI*FACTU» installation's log —
// once, chained, signed and XSD-valid — with the replaced database kept beside it.
import { existsSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { verificarFirma } from '../../../engine/src/no-verifactu/firma';
import { aplicarRestauracionPendiente, crearCopia, prepararRestauracion } from '../../../engine/src/no-verifactu/copias.sqlite';
import { admin } from '../../support/admin-cli';
import { makeTestEngine, migratedDataDir, type TestEngine } from '../../support/engine';
import { validateAgainstVerifactuXsd } from '../../support/xsd';
import { aTicketDemo } from '../../fixtures/verifactu';

function factura(nif: string, numero: string) {
  return aTicketDemo(nif, 'C', numero);
}

const open: TestEngine[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const t of open.splice(0)) await t.close({ keepData: true });
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function dataDirFor(prefix: string): string {
  const dir = migratedDataDir(prefix);
  dirs.push(dir);
  return dir;
}

async function engineOn(dataDir: string, seed = true): Promise<TestEngine> {
  const t = await makeTestEngine({ dataDir, seed });
  open.push(t);
  return t;
}

async function stop(t: TestEngine): Promise<void> {
  open.splice(open.indexOf(t), 1);
  await t.close({ keepData: true });
}

describe('backup restore (event 07)', () => {
  it('restores a copy at the next start and logs 07 once in the NO VERI*FACTU installation, the replaced database kept', async () => {
    const dataDir = dataDirFor('restauracion-');
    const t = await engineOn(dataDir);
    const ctx = t.engine.context;
    const nif = t.nifEmisor;
    ctx.noVerifactu.modos.cambiar(ctx.issuers.find('test', nif)!, 'no_verifactu');
    expect((await t.billing('POST', '/v1/verifactu/crear', { body: factura(nif, '1') })).statusCode).toBe(200);
    const copia = await crearCopia(dataDir, new Date('2026-11-20T10:05:00.000Z'));
    expect(copia.fichero).toBe(path.join(dataDir, 'copias', 'engine-20261120T100500Z.sqlite'));
    // Sales after the copy: the restore takes them away (that is why it is logged).
    expect((await t.billing('POST', '/v1/verifactu/crear', { body: factura(nif, '2') })).statusCode).toBe(200);
    const preparada = await prepararRestauracion(dataDir, copia.fichero, new Date('2026-11-20T11:00:00.000Z'));
    expect(preparada).toMatchObject({ copiaCreadaEn: '2026-11-20T10:05:00.000Z', instalaciones: [{ entorno: 'test', nif }] });
    // Nothing changes under the running engine.
    expect(ctx.invoices.findByIdentity({ entorno: 'test', nifEmisor: nif, serie: 'C', numero: '2', fechaExpedicion: '20-11-2026' })).toBeDefined();
    const key = t.keys.test;
    await stop(t);

    const r = await engineOn(dataDir, false);
    const rctx = r.engine.context;
    const find = (numero: string) => rctx.invoices.findByIdentity({ entorno: 'test', nifEmisor: nif, serie: 'C', numero, fechaExpedicion: '20-11-2026' });
    expect(find('1')).toBeDefined();
    expect(find('2')).toBeUndefined();
    expect(existsSync(path.join(dataDir, 'restauracion-pendiente.sqlite'))).toBe(false);
    expect(readdirSync(dataDir).filter((f) => f.startsWith('engine.sqlite.antes-de-restaurar-'))).toHaveLength(1);
    const eventos = rctx.noVerifactu.eventos.todos('test', nif);
    expect(eventos.map((e) => e.tipoEvento)).toEqual(['01', '07']);
    const siete = eventos[1]!;
    expect(siete.huellaAnterior).toBe(eventos[0]!.huella);
    expect(siete.xml).toContain('<sf:OtrosDatosEvento>Copia de 2026-11-20T10:05:00.000Z restaurada: engine-20261120T100500Z.sqlite</sf:OtrosDatosEvento>');
    expect(await validateAgainstVerifactuXsd(siete.xml, 'EventosSIF.xsd')).toEqual({ valid: true, errors: [] });
    expect(verificarFirma(siete.xml).valid).toBe(true);
    // The restored log and records verify; issuing goes on from the restored chain.
    expect(rctx.noVerifactu.anomalias.ejecutar(rctx.issuers.find('test', nif)!).anomalias).toEqual([]);
    expect((await r.billing('POST', '/v1/verifactu/crear', { body: factura(nif, '2'), key })).statusCode).toBe(200);
    await stop(r);

    // Another start restores nothing and logs no second 07.
    const again = await engineOn(dataDir, false);
    expect(again.engine.context.noVerifactu.eventos.todos('test', nif).filter((e) => e.tipoEvento === '07')).toHaveLength(1);
  });

  it('writes no 07 for an installation in VERI*FACTU', async () => {
    const dataDir = dataDirFor('restauracion-vf-');
    const t = await engineOn(dataDir);
    const copia = await crearCopia(dataDir, new Date('2026-11-20T10:05:00.000Z'));
    expect((await prepararRestauracion(dataDir, copia.fichero, new Date())).instalaciones).toEqual([]);
    const nif = t.nifEmisor;
    await stop(t);
    const r = await engineOn(dataDir, false);
    expect(r.engine.context.noVerifactu.eventos.todos('test', nif)).toEqual([]);
  });

  it('refuses what is not an engine database, and the database in use', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'restauracion-mala-'));
    dirs.push(dataDir);
    const basura = path.join(dataDir, 'basura.sqlite');
    writeFileSync(basura, 'no es una base de datos');
    await expect(prepararRestauracion(dataDir, basura, new Date())).rejects.toMatchObject({ httpStatus: 400, code: 'VALIDATION_ERROR', extra: { campo: 'copia' } });
    await expect(prepararRestauracion(dataDir, path.join(dataDir, 'no-existe.sqlite'), new Date())).rejects.toMatchObject({ extra: { campo: 'copia' } });
    await expect(prepararRestauracion(dataDir, path.join(dataDir, 'engine.sqlite'), new Date())).rejects.toMatchObject({ extra: { campo: 'copia' } });
    expect(existsSync(path.join(dataDir, 'restauracion-pendiente.sqlite'))).toBe(false);
  });

  it('finishes a swap interrupted after the old database was moved aside, and logs 07 then', async () => {
    const dataDir = dataDirFor('restauracion-crash-');
    const t = await engineOn(dataDir);
    const ctx = t.engine.context;
    const nif = t.nifEmisor;
    ctx.noVerifactu.modos.cambiar(ctx.issuers.find('test', nif)!, 'no_verifactu');
    const copia = await crearCopia(dataDir, new Date('2026-11-20T10:05:00.000Z'));
    await prepararRestauracion(dataDir, copia.fichero, new Date());
    await stop(t);
    // The swap's first step, then a crash: no database in place, the staged copy still there.
    renameSync(path.join(dataDir, 'engine.sqlite'), path.join(dataDir, 'engine.sqlite.apartada'));
    expect(aplicarRestauracionPendiente(dataDir, new Date())).toEqual({ anterior: null });
    expect(aplicarRestauracionPendiente(dataDir, new Date())).toBeUndefined();
    // The marker travelled inside the copy: the start writes 07.
    const r = await engineOn(dataDir, false);
    expect(r.engine.context.noVerifactu.eventos.todos('test', nif).map((e) => e.tipoEvento)).toEqual(['01', '07']);
  });

  it('npm run admin -- copia crear / restaurar', async () => {
    const dataDir = dataDirFor('restauracion-cli-');
    const t = await engineOn(dataDir);
    await stop(t);
    const creada = (await admin(dataDir, 'copia', 'crear', '--a', path.join(dataDir, 'mi-copia.sqlite'))) as { fichero: string };
    expect(creada.fichero).toBe(path.join(dataDir, 'mi-copia.sqlite'));
    expect(await admin(dataDir, 'copia', 'restaurar', creada.fichero)).toMatchObject({ pendiente: path.join(dataDir, 'restauracion-pendiente.sqlite'), instalaciones: [] });
    await expect(admin(dataDir, 'copia', 'restaurar', path.join(dataDir, 'no-existe.sqlite'))).rejects.toMatchObject({ code: 1 });
  });
});
