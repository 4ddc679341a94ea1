// Issue 30 in the till UI: «Cajas de la tienda» for the administrator (list, add with the till's
// engine.json shown once, revoke), and a till's own credential (`rol: caja`) never offered the
// administrator's controls as if they would work.
import { beforeEach, describe, expect, it } from 'vitest';
import { esAdministrador } from '../../src-renderer/app/rol';
import { useSession } from '../../src-renderer/app/session';
import { modoSifClave } from '../../src-renderer/features/settings/modo-sif';
import { DISPOSITIVO, engineJsonTexto, nombreCajaTienda, useTills } from '../../src-renderer/features/settings/tills-store';
import { LANGS, translate } from '../../src-renderer/i18n';
import { fakeEngine, ok, type Call } from './support/fake-engine';

const caja = (idMaquina: string, etiqueta: string, revocadoEn: string | null = null) => ({
  idCredencial: `cred-${idMaquina}`,
  idMaquina,
  etiqueta,
  nifEmisor: 'B12345674',
  creadoEn: '2026-11-25T10:00:00.000Z',
  revocadoEn,
});

const engineJson = { panelUrl: 'https://caja-principal.local:8782', fingerprint256: 'AB:CD', idMaquina: 'TPV-1', tillToken: 'tt_secret', nifEmisor: 'B12345674' };

/** A shop server with one till; POST adds «Caja 2», DELETE revokes. */
function server() {
  const cajas = [caja('TPV-1', 'Caja 1')];
  const e = fakeEngine((call: Call) => {
    if (call.url === '/panel/v1/cajas' && call.method === 'GET') return ok({ cajas });
    if (call.url === '/panel/v1/cajas' && call.method === 'POST') {
      const { etiqueta } = call.body as { etiqueta: string };
      cajas.push(caja('TPV-2', etiqueta));
      return {
        status: 201,
        body: {
          idCredencial: 'cred-TPV-2',
          idMaquina: 'TPV-2',
          etiqueta,
          nifEmisor: 'B12345674',
          token: 'tt_secret',
          claves: { test: 'sk_test_x', live: 'sk_live_x' },
          dispositivo: { test: 'registrado', live: 'sin_alta_capacidad' },
          engineJson: { ...engineJson, idMaquina: 'TPV-2' },
          nota: 'Se muestran una sola vez',
        },
      };
    }
    const m = /^\/panel\/v1\/cajas\/(.+)$/.exec(call.url);
    if (m && call.method === 'DELETE') {
      const c = cajas.find((x) => x.idMaquina === decodeURIComponent(m[1] ?? '') && x.revocadoEn === null);
      if (!c) return { status: 404, body: { code: 'NOT_FOUND', message: 'Esa caja no tiene credencial activa' } };
      c.revocadoEn = '2026-11-25T12:00:00.000Z';
      return ok({ idMaquina: c.idMaquina, revocada: true });
    }
    return undefined;
  });
  useSession.setState({ client: e.client, lang: 'es' });
  return { ...e, cajas };
}

describe('«Cajas de la tienda»', () => {
  const initial = useTills.getState();
  beforeEach(() => useTills.setState({ ...initial, cajas: undefined, nueva: undefined, error: undefined }));

  it('lists the tills with their own credential', async () => {
    server();
    await useTills.getState().cargar();
    expect(useTills.getState().cajas?.map((c) => c.idMaquina)).toEqual(['TPV-1']);
  });

  it('adds a till by its label (trimmed): its engine.json is held to show once, the list is read again', async () => {
    const { calls } = server();
    expect(await useTills.getState().anadir('  Caja 2 ')).toBe(true);
    expect(calls[0]).toEqual({ method: 'POST', url: '/panel/v1/cajas', body: { etiqueta: 'Caja 2' } });
    const nueva = useTills.getState().nueva;
    expect(nueva?.engineJson.idMaquina).toBe('TPV-2');
    expect(JSON.parse(engineJsonTexto(nueva ?? { engineJson: {} }))).toEqual({ ...engineJson, idMaquina: 'TPV-2' });
    expect(translate('es', DISPOSITIVO[nueva?.dispositivo.live ?? 'registrado'])).toBe('el emisor no usa cadenas por caja: no hace falta registrarla');
    expect(useTills.getState().cajas?.map((c) => c.idMaquina)).toEqual(['TPV-1', 'TPV-2']);
    // «Ya la he copiado»: forgotten, it cannot be shown again.
    useTills.getState().olvidarNueva();
    expect(useTills.getState().nueva).toBeUndefined();
  });

  it('an empty or too long label sends nothing', async () => {
    const { calls } = server();
    expect(await useTills.getState().anadir('   ')).toBe(false);
    expect(await useTills.getState().anadir('x'.repeat(121))).toBe(false);
    expect(calls).toEqual([]);
  });

  it('revokes a till by its idMaquina; a refusal is said in words', async () => {
    const { calls } = server();
    expect(await useTills.getState().revocar('TPV-1')).toBe(true);
    expect(calls[0]).toMatchObject({ method: 'DELETE', url: '/panel/v1/cajas/TPV-1' });
    expect(useTills.getState().cajas?.[0]?.revocadoEn).toBe('2026-11-25T12:00:00.000Z');
    expect(await useTills.getState().revocar('TPV-1')).toBe(false);
    expect(useTills.getState().error?.mensaje).toBe('No se ha encontrado en el motor.');
  });

  it('a till’s credential asking anyway reads «only the administrator», not an error code', async () => {
    const e = fakeEngine(() => ({ status: 403, body: { code: 'ADMIN_REQUIRED', message: 'Solo el administrador' } }));
    useSession.setState({ client: e.client, lang: 'en' });
    await useTills.getState().cargar();
    expect(useTills.getState().error?.mensaje).toBe('Only the administrator can do this, on the shop’s server.');
  });

  it('the confirmation names the till; every word of the panel exists in every language', () => {
    expect(translate('es', 'cajas.revocarPregunta', { caja: nombreCajaTienda(caja('TPV-1', 'Caja 1')) })).toMatch(/^¿Revocar la caja «Caja 1»\?/);
    expect(nombreCajaTienda(caja('TPV-9', '  '))).toBe('TPV-9');
    for (const lang of LANGS) {
      for (const key of ['cajas.titulo', 'cajas.unaVez', 'cajas.copiarA', 'cajas.hecho', 'rol.cajaSync', 'rol.cajaAjustes', 'ajustes.modoSif', 'ajustes.modoSifNota'] as const) expect(translate(lang, key)).not.toBe(key);
      for (const key of Object.values(DISPOSITIVO)) expect(translate(lang, key)).not.toBe(key);
    }
  });
});

describe('Who the panel credential is', () => {
  it('a till’s own credential is not the administrator; an engine that does not say is (it predates per-till credentials)', () => {
    expect(esAdministrador({ rol: 'caja' })).toBe(false);
    expect(esAdministrador({ rol: 'administrador' })).toBe(true);
    expect(esAdministrador({})).toBe(true);
  });
});

describe('The installation’s mode in Ajustes (read only)', () => {
  it('each mode in words; TicketBAI issuers: it does not apply', () => {
    expect(translate('es', modoSifClave('no_verifactu'))).toBe('NO VERI*FACTU (firmadas y conservadas, sin envío)');
    expect(translate('eu', modoSifClave('verifactu'))).toBe('VERI*FACTU (faktura bakoitza AEATra bidaltzen da)');
    expect(translate('en', modoSifClave(undefined))).toBe('Does not apply (TicketBAI)');
  });
});
