import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../support/engine';

let t: TestEngine;
beforeAll(async () => {
  t = await makeTestEngine();
});
afterAll(async () => t.close());

describe('GET /v1/cumplimiento/declaracion-responsable', () => {
  it('404 NOT_UPLOADED_YET before the first publication', async () => {
    const res = await t.manage('GET', '/v1/cumplimiento/declaracion-responsable');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ code: 'NOT_UPLOADED_YET' });
  });

  it('after publication: 200 with url, key, lastModified, storageClass; the URL serves the document without a key', async () => {
    await t.engine.context.declarations.publish();
    const res = await t.manage('GET', '/v1/cumplimiento/declaracion-responsable');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/public\/cumplimiento\/declaracion-responsable\.pdf$/),
      key: 'cumplimiento/declaracion-responsable.pdf',
      lastModified: t.clock.now().toISOString(),
      storageClass: 'STANDARD',
    });
    const doc = await t.engine.apps.manage.inject({ method: 'GET', url: new URL(body.url).pathname });
    expect(doc.statusCode).toBe(200);
    expect(doc.headers['content-type']).toBe('application/pdf');
    expect(doc.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    const html = await t.engine.apps.manage.inject({ method: 'GET', url: '/public/cumplimiento/declaracion-responsable.html' });
    expect(html.statusCode).toBe(200);
    expect(html.body).toContain('TPV Cumple');
  });

  it('a new publication changes lastModified and keeps key', async () => {
    const before = (await t.manage('GET', '/v1/cumplimiento/declaracion-responsable')).json();
    t.clock.advance(60_000);
    await t.engine.context.declarations.publish();
    const after = (await t.manage('GET', '/v1/cumplimiento/declaracion-responsable')).json();
    expect(after.key).toBe(before.key);
    expect(after.url).toBe(before.url);
    expect(after.lastModified).not.toBe(before.lastModified);
  });
});
