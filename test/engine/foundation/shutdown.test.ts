// Clean shutdown (issue 2, headless start): requests in flight when stop() is called finish, and
// what they committed is there after the next start.
import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { aFacturaF2, GENERADO_EN } from '../../fixtures/verifactu';
import { makeTestEngine } from '../../support/engine';

describe('stop() with a request in flight', () => {
  it('the request that arrived before stop() finishes with 200, and its invoice is there after reopening', async () => {
    const t = await makeTestEngine({ now: GENERADO_EN.toISOString() });
    const { billing } = await t.engine.start();
    const body = JSON.stringify(aFacturaF2({ cabecera: { numero: 'STOP-1' } }));
    const half = Math.floor(body.length / 2);

    // The server has the request (headers parsed) but not yet its whole body: it is in flight.
    const arrived = new Promise<void>((resolve) => t.engine.apps.billing.server.once('request', () => resolve()));
    const url = new URL(`${billing}/v1/verifactu/crear`);
    const server = t.engine.apps.billing.server;
    let stopping: Promise<void> | undefined;
    const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(
        { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-api-key': t.keys.test, connection: 'close' } },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        },
      );
      req.on('error', reject);
      req.write(body.slice(0, half));
      void arrived.then(async () => {
        stopping = t.close({ keepData: true });
        // The rest of the body arrives only once stop() has closed the listener.
        while (server.listening) await new Promise((r) => setImmediate(r));
        req.end(body.slice(half));
      });
    });

    const res = await answer;
    expect(res.status, res.body).toBe(200);
    const { idFactura } = JSON.parse(res.body) as { idFactura: string };
    await stopping;

    const again = await makeTestEngine({ now: GENERADO_EN.toISOString(), dataDir: t.dataDir, ...(t.databaseUrl ? { databaseUrl: t.databaseUrl } : {}), seed: false });
    try {
      const invoice = again.engine.context.invoices.getInvoice(idFactura);
      expect(invoice).toMatchObject({ numero: 'STOP-1', estadoEnvio: 'pendiente_proceso' });
      expect(again.engine.context.invoices.registrosOf(idFactura)).toHaveLength(1);
      // New connections are no longer accepted by the stopped engine.
      await expect(fetch(`${billing}/v1/cuenta`, { headers: { 'x-api-key': t.keys.test } })).rejects.toThrow();
    } finally {
      await again.close();
    }
  });
});
