import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../src-renderer/api/engine-client';
import { SaleIssuer, type EmisionAnswer } from '../../src-renderer/features/sale/issuing';
import { Numbering } from '../../src-renderer/features/sale/numbering';
import { memoryStore } from '../../src-renderer/platform/storage';

const scope = { entorno: 'test', nifEmisor: 'B12345674', serie: 'TABCD-' };
const ok = (numero: string, extra: Partial<EmisionAnswer> = {}): EmisionAnswer => ({ idFactura: `f${numero}`, numeroFactura: `TABCD-${numero}`, urlValidacion: 'https://x', qrBase64: 'AAAA', ...extra });
const conflict = () => new ApiError(409, { code: 'INVOICE_IDENTITY_CONFLICT', message: 'x' }, 'x');

function setup() {
  const numbering = new Numbering(memoryStore());
  const sleep = vi.fn(async (_ms: number) => {});
  return { numbering, sleep, issuer: new SaleIssuer(numbering, sleep) };
}

describe('Issuing a sale with the till’s numbering', () => {
  it('the next number, committed once the engine answers', async () => {
    const { issuer, numbering } = setup();
    const send = vi.fn(async (n: string) => ok(n));
    expect(await issuer.issue({ scope, key: 'a', send })).toMatchObject({ numero: '1', renumbered: false });
    expect(numbering.peek(scope)).toBe('2');
  });

  it('a replay of another sale (yaExistente: the counter was lost) → the next number, never the other sale’s QR', async () => {
    const { issuer } = setup();
    const send = vi.fn(async (n: string) => (n === '1' || n === '2' ? ok(n, { yaExistente: true }) : ok(n)));
    const result = await issuer.issue({ scope, key: 'a', send });
    expect(send.mock.calls.map((c) => c[0])).toEqual(['1', '2', '3']);
    expect(result).toMatchObject({ numero: '3', renumbered: true, answer: { idFactura: 'f3' } });
  });

  it('409 INVOICE_IDENTITY_CONFLICT → the next number', async () => {
    const { issuer } = setup();
    const send = vi.fn(async (n: string) => {
      if (n === '1') throw conflict();
      return ok(n);
    });
    expect((await issuer.issue({ scope, key: 'a', send })).numero).toBe('2');
  });

  it('429 RATE_LIMITED → waits Retry-After and resends the same number', async () => {
    const { issuer, sleep } = setup();
    let calls = 0;
    const send = vi.fn(async (n: string) => {
      if (calls++ === 0) throw new ApiError(429, { code: 'RATE_LIMITED', message: 'x' }, 'x', 1);
      return ok(n);
    });
    expect((await issuer.issue({ scope, key: 'a', send })).numero).toBe('1');
    expect(sleep).toHaveBeenCalledWith(1000);
    expect(send.mock.calls.map((c) => c[0])).toEqual(['1', '1']);
  });

  it('no answer (network down): the same sale sent again keeps its number and takes the replay as its own', async () => {
    const { issuer, numbering } = setup();
    const lost = vi.fn(async (_n: string): Promise<EmisionAnswer> => {
      throw new ApiError(0, undefined, 'fetch failed');
    });
    await expect(issuer.issue({ scope, key: 'sale-1', send: lost })).rejects.toThrow('fetch failed');
    expect(numbering.peek(scope)).toBe('1');
    const replay = vi.fn(async (n: string) => ok(n, { yaExistente: true }));
    expect(await issuer.issue({ scope, key: 'sale-1', send: replay })).toMatchObject({ numero: '1', renumbered: false });
    expect(replay).toHaveBeenCalledTimes(1);
    expect(numbering.peek(scope)).toBe('2');
  });

  it('…but a different sale after an unanswered one does not inherit its number blindly', async () => {
    const { issuer } = setup();
    await expect(issuer.issue({ scope, key: 'sale-1', send: async () => Promise.reject(new ApiError(503, undefined, 'x')) })).rejects.toThrow();
    const send = vi.fn(async (n: string) => (n === '1' ? ok(n, { yaExistente: true }) : ok(n)));
    expect((await issuer.issue({ scope, key: 'sale-2', send })).numero).toBe('2');
  });

  it('a correction (subsanar) keeps its identity whatever the engine says', async () => {
    const { issuer, numbering } = setup();
    const send = vi.fn(async (n: string) => {
      if (n !== '7') throw new Error('renumbered');
      throw conflict();
    });
    await expect(issuer.issue({ scope, key: 'x', fixedNumero: '7', send })).rejects.toBeInstanceOf(ApiError);
    expect(send).toHaveBeenCalledTimes(1);
    expect(numbering.peek(scope)).toBe('1');
  });
});
