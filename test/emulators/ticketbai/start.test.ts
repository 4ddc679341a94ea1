import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GIPUZKOA_ALTA_PATH, startEmulators } from '../../../engine/emulators/index';
import type { RunningEmulators } from '../../../engine/emulators/index';
import { TbaiChain } from './builders';
import { parseSalida } from './helpers';

const dir = mkdtempSync(path.join(tmpdir(), 'tbai-emu-'));
let emus: RunningEmulators | null = null;

afterAll(async () => {
  await emus?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('startEmulators', () => {
  it('mounts the TicketBAI emulators on the shared router beside AEAT, with a file ledger', async () => {
    emus = await startEmulators({ port: 0, dataDir: dir });
    const health = (await (await fetch(`${emus.url}/__control/health`)).json()) as { emulators: string[] };
    expect(health.emulators).toEqual(expect.arrayContaining(['aeat', 'ticketbai']));
    const inv = new TbaiChain().next();
    const r = await fetch(emus.url + GIPUZKOA_ALTA_PATH, {
      method: 'POST',
      body: inv.xml,
      headers: { 'content-type': 'application/xml' },
    });
    expect(parseSalida(await r.text())).toMatchObject({ estado: '00', identificadorTbai: inv.idTbai });
    expect(emus.tbai.ledger.countInvoices('gipuzkoa')).toBe(1);
    expect(emus.tbai.url('gipuzkoa', 'alta')).toBe(emus.url + GIPUZKOA_ALTA_PATH);
    // The AEAT convenience control prefix does not shadow /__control/tbai/.
    expect((await fetch(`${emus.url}/__control/tbai/gipuzkoa/faults`)).status).toBe(200);
  });
});
