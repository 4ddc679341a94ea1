import { describe, expect, it, vi } from 'vitest';
import { createEngineClient } from '../../src-renderer/api/engine-client';
import { i18nLog, translate } from '../../src-renderer/i18n';
import { z } from 'zod';

describe('i18n: a key built from data that no catalogue has', () => {
  it('shows the key itself instead of throwing, and logs it once', () => {
    const warn = vi.spyOn(i18nLog, 'warn').mockImplementation(() => undefined);
    expect(translate('es', 'estado.nuevo_estado_del_motor')).toBe('estado.nuevo_estado_del_motor');
    expect(translate('eu', 'estado.nuevo_estado_del_motor')).toBe('estado.nuevo_estado_del_motor');
    expect(translate('en', 'estado.nuevo_estado_del_motor')).toBe('estado.nuevo_estado_del_motor');
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]?.[0]).toContain('estado.nuevo_estado_del_motor');
    // A known dynamic key still translates.
    expect(translate('en', 'estado.rechazada')).toBe('Rejected');
    expect(warn).toHaveBeenCalledTimes(1);
    warn.mockRestore();
  });

  it('the sync view’s incident and the engine client’s own messages are in the catalogues', async () => {
    expect(translate('es', 'sync.incidencia')).toBe('Incidencia');
    expect(translate('en', 'sync.incidencia')).toBe('Incident');
    const offline = async () => {
      throw new TypeError('fetch failed');
    };
    const en = createEngineClient({ token: 't', entorno: () => 'test', fetch: offline, t: (k, v) => translate('en', k, v) });
    await expect(en.panel.get('/panel/v1/sync', z.unknown())).rejects.toThrow('No connection to the engine: fetch failed');
    const es = createEngineClient({ token: 't', entorno: () => 'test', fetch: async () => new Response('{"x":1}', { status: 200 }) });
    await expect(es.panel.get('/panel/v1/sync', z.object({ y: z.string() }))).rejects.toThrow(/^Respuesta inesperada de \/panel\/v1\/sync: /);
  });
});
