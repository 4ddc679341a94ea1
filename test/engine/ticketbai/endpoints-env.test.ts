// A shop server files TicketBAI LIVE with the real treasuries: each province's reception service and
// the certificate presented to them come from the environment (POS_TBAI_URL_<PROVINCIA>_<ENTORNO>,
// POS_TBAI_P12…), the rest stays the emulator's; with every LIVE endpoint configured, LIVE is no
// longer announced as going to the emulators.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { liveEndpointsConfigured } from '../../../engine/src/bin/start';
import { configFromEnv, resolveConfig } from '../../../engine/src/config';

const dataDir = mkdtempSync(path.join(tmpdir(), 'tbai-env-'));
const bases = (env: NodeJS.ProcessEnv) => resolveConfig({ ...configFromEnv(env), dataDir }).ticketbai.endpoints.base;

describe('TicketBAI endpoints from the environment', () => {
  it('a configured province and environment is used; every other stays the emulator’s', () => {
    const base = bases({ POS_TBAI_URL_BIZKAIA_LIVE: 'https://tbai.real.example/lroe/', POS_TBAI_URL_GIPUZKOA_TEST: 'https://tbai-prep.example' });
    expect(base.bizkaia.live).toBe('https://tbai.real.example/lroe');
    expect(base.gipuzkoa.test).toBe('https://tbai-prep.example');
    expect(base.bizkaia.test).toBe('http://127.0.0.1:8790/tbai/bizkaia');
    expect(base.araba.live).toBe('http://127.0.0.1:8790/tbai/araba');
    expect(bases({})).toEqual({
      araba: { test: 'http://127.0.0.1:8790/tbai/araba', live: 'http://127.0.0.1:8790/tbai/araba' },
      bizkaia: { test: 'http://127.0.0.1:8790/tbai/bizkaia', live: 'http://127.0.0.1:8790/tbai/bizkaia' },
      gipuzkoa: { test: 'http://127.0.0.1:8790/tbai/gipuzkoa', live: 'http://127.0.0.1:8790/tbai/gipuzkoa' },
    });
  });

  it('a configuration that cannot work stops the start, naming the variable', () => {
    expect(() => configFromEnv({ POS_TBAI_URL_ARABA_LIVE: 'tbai.araba.example' })).toThrow(/^POS_TBAI_URL_ARABA_LIVE must be an http\(s\) URL/);
    expect(() => configFromEnv({ POS_TBAI_URL_ARABA_LIVE: 'ftp://tbai.araba.example' })).toThrow(/^POS_TBAI_URL_ARABA_LIVE must be an http\(s\) URL/);
    expect(() => configFromEnv({ POS_TBAI_P12: path.join(dataDir, 'missing.p12') })).toThrow(/^POS_TBAI_P12: cannot read/);
    expect(() => configFromEnv({ POS_TBAI_CA: path.join(dataDir, 'missing.pem') })).toThrow(/^POS_TBAI_CA: cannot read/);
    expect(() => configFromEnv({ POS_TBAI_P12_PASSWORD: 'x' })).toThrow(/need POS_TBAI_P12/);
  });

  it('LIVE counts as filed with the authorities only when the AEAT’s and every treasury’s LIVE endpoint is configured', () => {
    const all = {
      POS_AEAT_URL_LIVE: 'https://www1.agenciatributaria.gob.es/wlpl/TIKE-CONT/ws/SistemaFacturacion/VerifactuSOAP',
      POS_TBAI_URL_ARABA_LIVE: 'https://a.example',
      POS_TBAI_URL_BIZKAIA_LIVE: 'https://b.example',
      POS_TBAI_URL_GIPUZKOA_LIVE: 'https://g.example',
    };
    expect(liveEndpointsConfigured(all)).toBe(true);
    expect(liveEndpointsConfigured({ ...all, POS_TBAI_URL_ARABA_LIVE: '' })).toBe(false);
    expect(liveEndpointsConfigured({ POS_AEAT_URL_LIVE: all.POS_AEAT_URL_LIVE })).toBe(false);
    expect(liveEndpointsConfigured({})).toBe(false);
  });
});
