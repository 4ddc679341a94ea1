import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../support/engine';

let t: TestEngine;
beforeAll(async () => {
  t = await makeTestEngine();
});
afterAll(async () => t.close());

describe('Every route appears in its API’s OpenAPI 3.1 document', () => {
  for (const app of ['billing', 'manage'] as const) {
    it(`${app}: /openapi.json without a key lists every route`, async () => {
      const res = await t.engine.apps[app].inject({ method: 'GET', url: '/openapi.json' });
      expect(res.statusCode).toBe(200);
      const doc = res.json() as { openapi: string; paths: Record<string, Record<string, unknown>> };
      expect(doc.openapi).toBe('3.1.0');
      const documented = new Set(
        Object.entries(doc.paths).flatMap(([p, m]) => Object.keys(m).map((method) => `${method.toUpperCase()} ${p}`)),
      );
      expect(t.engine.apps[app].routeTable.length).toBeGreaterThan(1);
      for (const route of t.engine.apps[app].routeTable) {
        if (route.url === '/openapi.json' || route.method === 'HEAD') continue;
        expect(documented, `${route.method} ${route.url}`).toContain(`${route.method} ${route.url}`);
      }
    });
  }
});


interface Parameter {
  in: string;
  name: string;
  required?: boolean;
  schema?: unknown;
}
type Operation = { parameters?: Parameter[]; responses?: Record<string, { content?: Record<string, unknown> }> };

async function openapi(app: 'billing' | 'manage'): Promise<Record<string, Record<string, Operation>>> {
  const res = await t.engine.apps[app].inject({ method: 'GET', url: '/openapi.json' });
  return (res.json() as { paths: Record<string, Record<string, Operation>> }).paths;
}

describe('OpenAPI query parameters are the real ones, with valid schemas', () => {
  // The spec's query parameters, route by route (interface-spec: invoice and record reads, issuer clients).
  const SPEC: [app: 'billing' | 'manage', path: string, required: string[], optional: string[]][] = [
    ['billing', '/v1/facturas', ['nifEmisor'], ['fechaInicio', 'fechaFin', 'estado', 'sistemaFiscal', 'limite', 'cursor']],
    ['billing', '/v1/facturas/buscar', ['nifEmisor', 'numero', 'fechaExpedicion'], ['serie']],
    ['billing', '/v1/facturas/{idFactura}', ['nifEmisor'], []],
    ['billing', '/v1/facturas/{idFactura}/estado', ['nifEmisor'], []],
    ['billing', '/v1/facturas/{idFactura}/qr', ['nifEmisor'], []],
    ['billing', '/v1/facturas/{idFactura}/xml', ['nifEmisor'], []],
    ['billing', '/v1/registros', ['nifEmisor'], ['limite', 'cursor']],
    ['billing', '/v1/registros/{idRegistro}', ['nifEmisor', 'idFactura'], []],
    ['billing', '/v1/registros/{idRegistro}/xml', ['nifEmisor', 'idFactura'], []],
    ['manage', '/v1/clientes', [], ['limite', 'cursor', 'incluirEliminados']],
    ['manage', '/v1/clientes/{nif}', [], ['incluirEliminados']],
  ];

  for (const [app, path, required, optional] of SPEC) {
    it(`${app} GET ${path}: ${[...required, ...optional].join(', ')}`, async () => {
      const op = (await openapi(app))[path]?.get;
      expect(op, path).toBeDefined();
      const query = (op?.parameters ?? []).filter((p) => p.in === 'query');
      expect(query.map((p) => p.name).sort()).toEqual([...required, ...optional].sort());
      for (const p of query) expect(p.required ?? false, p.name).toBe(required.includes(p.name));
    });
  }

  for (const app of ['billing', 'manage'] as const) {
    it(`${app}: no parameter named type/propertyNames/additionalProperties, every parameter schema an object`, async () => {
      const paths = await openapi(app);
      const params = Object.entries(paths).flatMap(([path, methods]) =>
        Object.entries(methods).flatMap(([method, op]) => (op.parameters ?? []).map((p) => ({ where: `${method} ${path} ${p.name}`, ...p }))),
      );
      expect(params.length).toBeGreaterThan(0);
      for (const p of params) {
        expect(['type', 'propertyNames', 'additionalProperties'], p.where).not.toContain(p.name);
        expect(typeof p.schema, p.where).toBe('object');
        expect(p.schema, p.where).not.toBeNull();
        // The internal "required" marker never leaks into the document.
        expect(JSON.stringify(p.schema), p.where).not.toContain('x-obligatorio');
      }
    });
  }

  it('/qr documents image/png (and application/json), /xml documents application/xml', async () => {
    const paths = await openapi('billing');
    expect(Object.keys(paths['/v1/facturas/{idFactura}/qr']?.get?.responses?.['200']?.content ?? {}).sort()).toEqual(['application/json', 'image/png']);
    expect(Object.keys(paths['/v1/facturas/{idFactura}/xml']?.get?.responses?.['200']?.content ?? {})).toEqual(['application/xml']);
  });
});
