import { describe, expect, it } from 'vitest';
import { Numbering } from '../../src-renderer/features/sale/numbering';
import { memoryStore } from '../../src-renderer/platform/storage';
import { defaultSerie } from '../../src-renderer/app/serie';

describe('Invoice numbers of the till’s series', () => {
  const scope = { entorno: 'test', nifEmisor: 'B12345674', serie: 'TABCD' };

  it('correlative per environment, issuer and series; peek does not reserve, commit does', () => {
    const n = new Numbering(memoryStore());
    expect(n.peek(scope)).toBe('1');
    expect(n.peek(scope)).toBe('1');
    n.commit(scope, '1');
    expect(n.peek(scope)).toBe('2');
    expect(n.peek({ ...scope, entorno: 'live' })).toBe('1');
    expect(n.peek({ ...scope, serie: 'OTRA' })).toBe('1');
  });

  it('never moves backwards', () => {
    const n = new Numbering(memoryStore());
    n.commit(scope, '9');
    n.commit(scope, '3');
    expect(n.peek(scope)).toBe('10');
  });

  it('each till gets its own default series from its identity', () => {
    expect(defaultSerie('TPV-0123456789AB')).toBe('T89AB-');
    expect(defaultSerie('WEB-ZZZZZZZZ7Q')).toBe('TZZ7Q-');
  });
});
