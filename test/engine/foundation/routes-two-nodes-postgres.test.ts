// Issue 27's acceptance: with POS_DATABASE_URL set, the README's "Try it" block and the hosted
// service's Python client examples work against two nodes alternately — two `npm start` processes
// (own data dirs and ports, one POS_PANEL_TOKEN) on one fresh PostgreSQL database of the run's
// cluster, each request sent to the other node than the one before, each answer read back from
// the node that did not make it.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { DemoKeysFile } from '../../../engine/src/bin/start';
import { hostedExample01, hostedExample02 } from '../../fixtures/hosted-examples';
import { freshPostgresUrl } from '../../support/postgres';
import { todayInMadrid } from '../../support/madrid-day';
import { ROOT, startNpmStart, type RunningArtefact } from '../../support/running-artefacts';

const started: RunningArtefact[] = [];
afterAll(async () => {
  for (const run of started) await run.stop();
});

/** The README's "Try it" block, as written there. */
function tryItBlock(): string {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const block = /Try it:\n\n```sh\n([\s\S]*?)```/.exec(readme)?.[1];
  if (block === undefined) throw new Error('README.md has no "Try it" sh block');
  return block;
}

/** The JSON documents curl printed back to back (curl -s adds no newline). */
function jsonDocuments(text: string): Record<string, unknown>[] {
  const documents: Record<string, unknown>[] = [];
  let depth = 0;
  let inString = false;
  let start = -1;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '{') {
      if (depth++ === 0) start = i;
    } else if (ch === '}' && --depth === 0) documents.push(JSON.parse(text.slice(start, i + 1)) as Record<string, unknown>);
  }
  return documents;
}

/** Runs the README block against one node: its default URL and keys file swapped for this node's. */
function runTryIt(block: string, billingUrl: string, keysFile: string): Record<string, unknown>[] {
  const script = block.replaceAll('./data/demo-keys.json', keysFile).replaceAll('http://127.0.0.1:8780', billingUrl);
  expect(script, 'the block names the default billing URL and keys file').not.toBe(block);
  return jsonDocuments(execFileSync('bash', ['-euc', script], { cwd: ROOT, encoding: 'utf8' }));
}

describe('Two nodes on one PostgreSQL: the README and the hosted examples, alternately', () => {
  it('each node answers what the other wrote; one invoice per identity whichever node gets it; both file', async () => {
    const env = { POS_DATABASE_URL: freshPostgresUrl(), POS_PANEL_TOKEN: randomBytes(32).toString('base64url') };
    // The first node seeds the demo account; the second joins the database it finds, its data dir
    // holding a copy of the first's demo-keys.json (README: the keys the panel's till acts with).
    const first = await startNpmStart(env);
    started.push(first);
    const keysFile = path.join(first.dataDir, 'demo-keys.json');
    const secondDir = mkdtempSync(path.join(tmpdir(), 'second-node-'));
    copyFileSync(keysFile, path.join(secondDir, 'demo-keys.json'));
    const second = await startNpmStart({ ...env, POS_DATA_DIR: secondDir });
    started.push(second);
    const keys = JSON.parse(readFileSync(keysFile, 'utf8')) as DemoKeysFile;
    const secondKeys = JSON.parse(readFileSync(path.join(secondDir, 'demo-keys.json'), 'utf8')) as DemoKeysFile;
    expect(secondKeys).toMatchObject({ test: keys.test, live: keys.live, nifEmisor: keys.nifEmisor });
    expect(second.output.join('\n')).toContain(`TEST key        ${keys.test}`);
    const nodes = [keys, secondKeys];
    expect(secondKeys.billingUrl).not.toBe(keys.billingUrl);

    // The README's block on each node: the same invoice identity twice makes one invoice.
    const block = tryItBlock();
    const [cuentaA, crearA] = runTryIt(block, keys.billingUrl, keysFile);
    const [cuentaB, crearB] = runTryIt(block, secondKeys.billingUrl, keysFile);
    expect(cuentaA).toMatchObject({ entorno: 'test' });
    // The same account (its usage and the moment aside: they move between the two reads).
    const account = ({ consultadoEn, consumo, ...rest }: Record<string, unknown> = {}) => (void consultadoEn, void consumo, rest);
    expect(account(cuentaB)).toEqual(account(cuentaA));
    expect(crearA).toMatchObject({ idFactura: expect.stringMatching(/^fac_/), numeroFactura: 'T1' });
    expect(crearB?.idFactura).toBe(crearA?.idFactura);

    // The hosted client's examples, node after node.
    const hoy = todayInMadrid();
    let turn = 0;
    const post = async (url: string, body: unknown) => {
      const node = nodes[turn++ % 2]!;
      const res = await fetch(`${node.billingUrl}${url}`, { method: 'POST', headers: { 'x-api-key': keys.test, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const text = await res.text();
      expect(res.status, `${node.billingUrl}${url}: ${text}`).toBe(200);
      return { node, answer: JSON.parse(text) as { idFactura: string; idTbai?: string } };
    };
    const issued: { nif: string; idFactura: string; madeBy: DemoKeysFile; verifactu: boolean }[] = [];
    const ej01 = await post('/v1/verifactu/crear', hostedExample01(keys.nifEmisor, hoy, '202611250001'));
    issued.push({ nif: keys.nifEmisor, idFactura: ej01.answer.idFactura, madeBy: ej01.node, verifactu: true });
    for (const [nif, provincia] of [['B01123454', 'araba'], ['B48123459', 'bizkaia'], ['B20123451', 'gipuzkoa']] as const) {
      const ej02 = await post('/v1/ticketbai/crear', hostedExample02(nif, provincia, hoy, '202611250001'));
      expect(ej02.answer.idTbai).toMatch(/^TBAI-B\d{8}-/);
      issued.push({ nif, idFactura: ej02.answer.idFactura, madeBy: ej02.node, verifactu: false });
    }
    // The first example again, to the node that did not issue it: a replay of the same invoice.
    turn = nodes.indexOf(ej01.node) + 1;
    expect((await post('/v1/verifactu/crear', hostedExample01(keys.nifEmisor, hoy, '202611250001'))).answer.idFactura).toBe(ej01.answer.idFactura);
    issued.push({ nif: keys.nifEmisor, idFactura: String(crearA?.idFactura), madeBy: keys, verifactu: true });

    // Every invoice read from the node that did not make it; the VeriFactu ones filed with the AEAT
    // emulator by whichever node's worker took their queue.
    for (const invoice of issued) {
      const other = invoice.madeBy === keys ? secondKeys : keys;
      const read = () =>
        fetch(`${other.billingUrl}/v1/facturas/${invoice.idFactura}/estado?nifEmisor=${invoice.nif}`, { headers: { 'x-api-key': keys.test } }).then(
          async (res) => ({ status: res.status, body: (await res.json()) as { idFactura?: string; estadoFactura?: string | null } }),
        );
      let estado = await read();
      expect(estado.status, JSON.stringify(estado.body)).toBe(200);
      expect(estado.body.idFactura).toBe(invoice.idFactura);
      for (let i = 0; invoice.verifactu && estado.body.estadoFactura !== 'registrada' && i < 300; i++) {
        await new Promise((r) => setTimeout(r, 100));
        estado = await read();
      }
      if (invoice.verifactu) expect(estado.body.estadoFactura).toBe('registrada');
    }

    // The panel (and the till UI it serves) answers on either node with the one shared token.
    for (const node of nodes) {
      const panel = new URL(node.panelUrl);
      expect(panel.searchParams.get('token')).toBe(env.POS_PANEL_TOKEN);
      const res = await fetch(`${panel.origin}/panel/v1/cajas`, { headers: { authorization: `Bearer ${env.POS_PANEL_TOKEN}` } });
      expect(res.status, await res.clone().text()).toBe(200);
    }
  }, 180_000);
});
