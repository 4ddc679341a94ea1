// Webhook addresses that must never be called (issue 28 §2, issue 30): link-local (the cloud
// metadata address among them), unspecified, multicast and broadcast addresses, their IPv4-mapped
// IPv6 forms and names that resolve to any of them are refused with 400 naming `url` at creation
// and update, and again at delivery (DNS rebinding), where the attempt fails without being sent;
// the engine's own ports and its emulators' port too. Loopback and private receivers still work.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../engine/src/platform/clock';
import { forbiddenWebhookAddress, webhookUrlProblem } from '../../../src-shared/api/webhooks';
import type { ResolvedAddress } from '../../../engine/src/webhooks/address-policy';
import { aFacturaF2 } from '../../fixtures/verifactu';
import type { TestEngine } from '../../support/engine';
import type { Receiver } from '../../support/webhook-receiver';
import type { Emulators } from '../../support/emulators';
import { useDeliveryRig } from './helpers';

const clock = new ManualClock('2026-11-20T10:00:00.000Z');
const NIF = 'B12345674';
const SECRETO = 'secreto-de-direcciones-01';

/** The test's DNS: a fixed table, changed by the tests (rebinding); unknown names do not resolve. */
const dns = new Map<string, ResolvedAddress[]>();
const resolver = async (hostname: string): Promise<ResolvedAddress[]> => {
  const found = dns.get(hostname);
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return found;
};
const v4 = (address: string) => [{ address, family: 4 }];
const v6 = (address: string) => [{ address, family: 6 }];

let t: TestEngine;
let emu: Emulators;
let rx: Receiver;

useDeliveryRig({
  clock,
  engine: (emulators) => ({ webhookResolver: resolver, emulatorUrl: emulators.url }),
  onStart: async (rig) => {
    ({ t, emu, rx } = rig);
    // Listening: the engine's own ports are known (port 0 in tests) and guarded.
    await t.engine.start();
  },
  afterEachTest: () => dns.clear(),
});

const body = (url: string) => ({ nombre: 'direcciones', url, secreto: SECRETO });
const count = async () => ((await t.manage('GET', '/v1/webhooks')).json().webhooks as unknown[]).length;

async function expectUrlRefused(res: { statusCode: number; json: () => unknown }) {
  expect(res.statusCode).toBe(400);
  const b = res.json() as { code: string; campo: string; message: string; errors: string[] };
  expect(b).toMatchObject({ code: 'VALIDATION_ERROR', campo: 'url' });
  expect(b.message).toMatch(/^url: /);
  return b;
}

async function create(url: string) {
  const res = await t.manage('POST', '/v1/webhooks', { body: body(url) });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().webhook.idWebhook as string;
}

const port = (url: string) => new URL(url).port;

describe('Addresses refused at creation and at update: 400 VALIDATION_ERROR naming url, nothing stored', () => {
  const literals: [string, RegExp][] = [
    ['https://169.254.169.254/', /link-local/],
    ['http://169.254.169.254/latest/meta-data/', /link-local/],
    ['http://169.254.10.10/hook', /link-local/],
    ['https://2852039166/', /link-local/], // 169.254.169.254 written as one decimal number
    ['https://[fe80::1]/hook', /link-local/],
    ['https://[febf::1]/hook', /link-local/],
    ['https://0.0.0.0/hook', /unspecified/],
    ['http://0/hook', /unspecified/],
    ['https://[::]/hook', /unspecified/],
    ['https://224.0.0.1/hook', /multicast/],
    ['https://239.255.255.250:1900/', /multicast/],
    ['https://[ff02::1]/hook', /multicast/],
    ['https://255.255.255.255/hook', /broadcast/],
    ['https://[::ffff:169.254.169.254]/', /IPv4-mapped link-local/],
    ['https://[::ffff:0.0.0.0]/', /IPv4-mapped unspecified/],
    ['https://[::ffff:224.0.0.1]/', /IPv4-mapped multicast/],
    ['https://[::ffff:255.255.255.255]/', /IPv4-mapped broadcast/],
  ];
  it.each(literals)('%s', async (url, why) => {
    const before = await count();
    expect((await expectUrlRefused(await t.manage('POST', '/v1/webhooks', { body: body(url) }))).message).toMatch(why);
    expect(await count()).toBe(before);
    const id = await create('https://pos.example.com/hook');
    await expectUrlRefused(await t.manage('PATCH', `/v1/webhooks/${id}`, { body: { url } }));
    expect((await t.manage('GET', `/v1/webhooks/${id}`)).json().webhook.url).toBe('https://pos.example.com/hook');
  });

  const names: [string, ResolvedAddress[], RegExp][] = [
    ['metadata.nube.example', v4('169.254.169.254'), /link-local.*metadata\.nube\.example resolves to 169\.254\.169\.254/],
    ['v6.nube.example', v6('fe80::1'), /link-local/],
    ['mapped.nube.example', v6('::ffff:169.254.169.254'), /IPv4-mapped link-local/],
    ['cero.nube.example', v4('0.0.0.0'), /unspecified/],
    ['grupo.nube.example', v4('224.0.0.251'), /multicast/],
    ['todos.nube.example', v4('255.255.255.255'), /broadcast/],
    // One bad address among good ones is enough: the connection could go to any of them.
    ['mixto.nube.example', [...v4('203.0.113.7'), ...v4('169.254.169.254')], /link-local/],
  ];
  it.each(names)('a name that resolves to a refused address: %s', async (name, addresses, why) => {
    dns.set(name, addresses);
    expect((await expectUrlRefused(await t.manage('POST', '/v1/webhooks', { body: body(`https://${name}/hook`) }))).message).toMatch(why);
    const id = await create('https://pos.example.com/hook');
    await expectUrlRefused(await t.manage('PATCH', `/v1/webhooks/${id}`, { body: { url: `https://${name}/hook` } }));
  });

  it('the engine’s own ports (billing, management, panel) and the emulators’ port, on loopback or by name', async () => {
    dns.set('yo.local', v4('127.0.0.1'));
    const urls = t.engine.urls;
    for (const own of [urls.billing, urls.manage, urls.panel, emu.url]) {
      for (const host of ['127.0.0.1', 'localhost', '[::1]', '127.0.0.2', 'yo.local']) {
        const res = await t.manage('POST', '/v1/webhooks', { body: body(`http://${host}:${port(own)}/v1/verifactu/crear`) });
        expect((await expectUrlRefused(res)).message, `${host}:${port(own)}`).toMatch(/engine's own port/);
      }
    }
    const id = await create(`${rx.url}/ok`);
    await expectUrlRefused(await t.manage('PATCH', `/v1/webhooks/${id}`, { body: { url: `http://127.0.0.1:${port(urls.manage)}/v1/webhooks` } }));
  });
});

describe('Loopback and private-network receivers stay allowed', () => {
  it.each([
    'http://127.0.0.1:9000/hook',
    'http://localhost:3000/hook',
    'http://[::1]:9000/hook',
    'http://10.0.0.7/hook',
    'http://172.16.0.1/hook',
    'http://192.168.1.50:8080/caja',
    'http://[fd12:3456::1]/hook',
    'http://[::ffff:192.168.0.2]/hook',
    'https://203.0.113.9:8443/x',
  ])('%s', async (url) => {
    expect(await create(url)).toMatch(/^wh/);
  });
  it('names that resolve to loopback, private or public addresses; a name that does not resolve yet', async () => {
    dns.set('caja.local', v4('192.168.1.20'));
    dns.set('pos.tienda.example', [...v4('203.0.113.5'), ...v6('2001:db8::5')]);
    await create('http://caja.local:8080/hook');
    await create('https://pos.tienda.example/hook');
    // Unknown to DNS now: accepted, and checked again at every delivery.
    await create('https://aun-no-existe.tienda.example/hook');
  });
});

describe('The shared rule (the schema the API and the till UI use) knows the literal addresses', () => {
  it('forbiddenWebhookAddress: bracketed, bare, dotted-mapped and zoned forms', () => {
    expect(forbiddenWebhookAddress('[fe80::1]')).toMatch(/link-local/);
    expect(forbiddenWebhookAddress('fe80::1%eth0')).toMatch(/link-local/);
    expect(forbiddenWebhookAddress('::ffff:169.254.169.254')).toMatch(/IPv4-mapped link-local/);
    expect(forbiddenWebhookAddress('::169.254.169.254')).toMatch(/IPv4-mapped link-local/);
    expect(forbiddenWebhookAddress('192.168.1.1')).toBeNull();
    expect(forbiddenWebhookAddress('::1')).toBeNull();
    expect(forbiddenWebhookAddress('pos.example.com')).toBeNull();
    expect(webhookUrlProblem('http://169.254.1.1/')).toMatch(/link-local/);
  });
});

async function fileEverything(): Promise<void> {
  for (let i = 0; i < 50; i++) {
    await t.engine.context.submissions.drainDue();
    const waiting = t.engine.context.db.statement('SELECT COUNT(*) AS n FROM submission_jobs').get() as { n: number };
    if (waiting.n === 0) return;
    clock.advance(61_000);
  }
  throw new Error('submission did not finish');
}

let serial = 0;
async function issueAndFile(): Promise<void> {
  const res = await t.billing('POST', '/v1/verifactu/crear', {
    body: aFacturaF2({ cabecera: { serie: 'DIR', numero: `${++serial}`, fechaExpedicion: '20-11-2026', tipoFactura: 'F2', descripcion: 'Ticket' } }),
  });
  expect(res.statusCode, res.body).toBe(200);
  await fileEverything();
}

const attemptsOf = (idWebhook: string) =>
  t.engine.context.db
    .statement('SELECT a.statusCode, a.error FROM webhook_delivery_attempts a JOIN webhook_deliveries d ON d.id = a.deliveryId WHERE d.webhookId = ? ORDER BY a.rowid')
    .all(idWebhook) as { statusCode: number | null; error: string | null }[];

describe('At delivery: the name is resolved again and the connection goes to the vetted address (DNS rebinding)', () => {
  it('a name that now resolves to a refused address: the attempt fails unsent, with the reason; back to the receiver, it is delivered there', async () => {
    dns.set('recibo.local', v4('127.0.0.1'));
    const id = await create(`http://recibo.local:${port(rx.url)}/rebind`);
    expect((await t.manage('POST', `/v1/webhooks/${id}/clientes`, { body: { clientes: [NIF] } })).statusCode).toBe(200);
    // Rebound after the check at creation.
    dns.set('recibo.local', v4('169.254.169.254'));
    await issueAndFile();
    await t.engine.context.webhookDeliveries.drainDue();
    expect(rx.received).toHaveLength(0);
    const [first] = attemptsOf(id);
    expect(first).toEqual({ statusCode: null, error: expect.stringMatching(/^no enviada, dirección no permitida: .*link-local.*recibo\.local resolves to 169\.254\.169\.254/) });

    // A name that no longer resolves: not sent either.
    dns.delete('recibo.local');
    clock.advance(31_000);
    await t.engine.context.webhookDeliveries.drainDue();
    expect(attemptsOf(id)[1]).toEqual({ statusCode: null, error: expect.stringMatching(/^no enviada: recibo\.local no se ha podido resolver \(ENOTFOUND\)/) });
    expect(rx.received).toHaveLength(0);

    // Resolving to the receiver again (loopback stays allowed): the retry arrives, through the pinned address.
    dns.set('recibo.local', v4('127.0.0.1'));
    clock.advance(121_000);
    await t.engine.context.webhookDeliveries.drainDue();
    expect(rx.byPath('/rebind')).toHaveLength(1);
    expect(rx.byPath('/rebind')[0]!.headers.host).toBe(`recibo.local:${port(rx.url)}`);
    expect(attemptsOf(id)[2]).toEqual({ statusCode: 200, error: null });
  });

  it('a webhook stored before this rule (a link-local URL in the table): its delivery fails unsent', async () => {
    const id = await create(`${rx.url}/antiguo`);
    expect((await t.manage('POST', `/v1/webhooks/${id}/clientes`, { body: { clientes: [NIF] } })).statusCode).toBe(200);
    t.engine.context.db.statement('UPDATE webhooks SET url = ? WHERE idWebhook = ?').run('http://169.254.169.254/latest/meta-data/', id);
    await issueAndFile();
    await t.engine.context.webhookDeliveries.drainDue();
    expect(attemptsOf(id)[0]).toEqual({ statusCode: null, error: expect.stringMatching(/^no enviada, dirección no permitida: .*link-local/) });
    expect(rx.received).toHaveLength(0);
  });
});
