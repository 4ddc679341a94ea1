// The till's sale screen, keyboard first: description ⏎ quantity ⏎ price ⏎ VAT ⏎ adds a line;
// ⏎ on the empty description completes the sale. F4 customer (full invoice F1), Esc clears,
// Supr/Delete on the empty description removes the last line, F9 prints the last ticket.
import { useEffect, useMemo, useRef, type KeyboardEvent } from 'react';
import { validateNif } from '../../../src-shared/nif';
import { useSession, useT } from '../../app/session';
import { formatAmount } from '../../i18n';
import { computeTotals, lineImporte, TIPOS_IVA } from './cart';
import { ReceiptPreview } from './ReceiptPreview';
import { receiptOf, useSale, type Draft } from './store';

const FIELDS: (keyof Draft)[] = ['descripcion', 'cantidad', 'precio', 'tipoIva'];

export function SaleScreen() {
  const t = useT();
  const lang = useSession((s) => s.lang);
  const emisor = useSession((s) => s.emisor);
  const settings = useSession((s) => s.settings);
  const updateSettings = useSession((s) => s.updateSettings);
  const sale = useSale();
  const refs = useRef<Partial<Record<keyof Draft, HTMLInputElement | null>>>({});
  const clienteNifRef = useRef<HTMLInputElement | null>(null);
  const totals = useMemo(() => computeTotals(sale.lines), [sale.lines]);
  const money = (v: string) => formatAmount(lang, v);

  const focus = (field: keyof Draft) => {
    const el = refs.current[field];
    el?.focus();
    el?.select();
  };

  useEffect(() => {
    focus('descripcion');
  }, []);

  useEffect(() => {
    if (sale.draftError) focus(sale.draftError);
  }, [sale.draftError]);

  // Screen-wide keys (the inputs handle Enter themselves).
  useEffect(() => {
    const onKey = (e: globalThis.KeyboardEvent) => {
      if (e.key === 'F4') {
        e.preventDefault();
        const open = !useSale.getState().clienteAbierto;
        useSale.getState().toggleCliente(open);
        setTimeout(() => (open ? clienteNifRef.current?.focus() : focus('descripcion')), 0);
      } else if (e.key === 'F9') {
        e.preventDefault();
        void useSale.getState().print();
      } else if (e.key === 'Escape') {
        e.preventDefault();
        const s = useSale.getState();
        if (s.mode.kind !== 'venta') s.exitMode();
        else s.clear();
        focus('descripcion');
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const onFieldKey = (field: keyof Draft) => (e: KeyboardEvent<HTMLInputElement>) => {
    const s = useSale.getState();
    if (field === 'tipoIva' && (e.key === 'ArrowUp' || e.key === 'ArrowDown')) {
      e.preventDefault();
      const i = TIPOS_IVA.indexOf(s.draft.tipoIva as (typeof TIPOS_IVA)[number]);
      const next = TIPOS_IVA[(i + (e.key === 'ArrowDown' ? 1 : TIPOS_IVA.length - 1)) % TIPOS_IVA.length] ?? '21';
      s.setDraft({ tipoIva: next });
      return;
    }
    if (field === 'descripcion' && (e.key === 'Delete' || e.key === 'Backspace') && s.draft.descripcion === '' && s.lines.length > 0) {
      if (e.key === 'Delete') {
        e.preventDefault();
        s.removeLast();
      }
      return;
    }
    if (e.key !== 'Enter') return;
    e.preventDefault();
    if (field === 'descripcion' && s.draft.descripcion.trim() === '') {
      if (s.lines.length > 0) void s.complete().then(() => focus('descripcion'));
      return;
    }
    const next = FIELDS[FIELDS.indexOf(field) + 1];
    if (next) {
      focus(next);
      return;
    }
    if (s.addLine()) focus('descripcion');
  };

  const nifCheck = sale.cliente.nif ? validateNif(sale.cliente.nif) : undefined;
  const tipo = sale.mode.kind === 'devolucion' ? 'R5' : sale.mode.kind === 'subsanar' ? sale.mode.original.tipoFactura : sale.tipoFactura;
  const last = sale.last;
  const receipt = last ? receiptOf(last) : undefined;

  return (
    <div className="sale" data-testid="screen-venta">
      <section className="sale-main">
        <header className="sale-head">
          <h1>{t('venta.titulo')}</h1>
          <div className="sale-meta">
            <span>
              {t('venta.tipo')}: <strong data-testid="sale-tipo">{tipo === 'F2' ? t('venta.tipoF2') : tipo === 'F1' ? t('venta.tipoF1') : t('venta.tipoR5')}</strong>
            </span>
            <span>
              {t('venta.serie')}: <strong data-testid="sale-serie">{sale.mode.kind === 'subsanar' ? sale.mode.original.serie : settings.serie}</strong>
            </span>
            <span>
              {t('app.regimen')}: <strong>{emisor ? t(`regimen.${emisor.hacienda}`) : '—'}</strong>
            </span>
          </div>
        </header>
        {sale.mode.kind !== 'venta' ? (
          <div className="banner banner-mode" data-testid="sale-mode">
            {sale.mode.kind === 'subsanar' ? t('venta.modoSubsanar') : t('venta.modoDevolucion')} <strong>{sale.mode.original.numeroFactura}</strong>
            <button type="button" onClick={() => sale.exitMode()}>
              {t('venta.salirModo')}
            </button>
          </div>
        ) : null}
        <table className="lines" data-testid="sale-lines">
          <thead>
            <tr>
              <th className="col-desc">{t('venta.descripcion')}</th>
              <th className="col-num">{t('venta.cantidad')}</th>
              <th className="col-num">{t('venta.precio')}</th>
              <th className="col-num">{t('venta.iva')}</th>
              <th className="col-num">{t('venta.importe')}</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {sale.lines.map((l) => (
              <tr key={l.id} data-testid="sale-line">
                <td>{l.descripcion}</td>
                <td className="col-num">{formatAmount(lang, l.cantidad)}</td>
                <td className="col-num">{money(l.precio)}</td>
                <td className="col-num">{formatAmount(lang, l.tipoIva)}</td>
                <td className="col-num">{money(lineImporte(l))}</td>
                <td>
                  <button type="button" className="link" tabIndex={-1} onClick={() => sale.removeLine(l.id)}>
                    {t('venta.quitar')}
                  </button>
                </td>
              </tr>
            ))}
            <tr className="entry">
              {FIELDS.map((field) => (
                <td key={field} className={field === 'descripcion' ? '' : 'col-num'}>
                  <input
                    ref={(el) => {
                      refs.current[field] = el;
                    }}
                    data-testid={`entry-${field}`}
                    aria-label={t(field === 'descripcion' ? 'venta.descripcion' : field === 'cantidad' ? 'venta.cantidad' : field === 'precio' ? 'venta.precio' : 'venta.iva')}
                    aria-invalid={sale.draftError === field}
                    className={sale.draftError === field ? 'invalid' : ''}
                    inputMode={field === 'descripcion' ? 'text' : 'decimal'}
                    list={field === 'tipoIva' ? 'tipos-iva' : undefined}
                    autoComplete="off"
                    value={sale.draft[field]}
                    disabled={sale.busy}
                    onChange={(e) => sale.setDraft({ [field]: e.target.value })}
                    onKeyDown={onFieldKey(field)}
                  />
                </td>
              ))}
              <td />
              <td />
            </tr>
          </tbody>
        </table>
        <datalist id="tipos-iva">
          {TIPOS_IVA.map((r) => (
            <option key={r} value={r} />
          ))}
        </datalist>
        {sale.lines.length === 0 ? <p className="hint">{t('venta.sinLineas')}</p> : null}
        <p className="hint keys">{t('venta.ayuda')}</p>

        {sale.clienteAbierto ? (
          <fieldset className="cliente" data-testid="sale-cliente">
            <legend>{t('venta.cliente')}</legend>
            <label>
              {t('venta.clienteNif')}
              <input
                ref={clienteNifRef}
                data-testid="cliente-nif"
                value={sale.cliente.nif}
                autoComplete="off"
                onChange={(e) => sale.setCliente({ nif: e.target.value.toUpperCase() })}
                onKeyDown={(e) => {
                  if (e.key === 'Enter') {
                    e.preventDefault();
                    document.querySelector<HTMLInputElement>('[data-testid="cliente-nombre"]')?.focus();
                  }
                }}
              />
            </label>
            <label>
              {t('venta.clienteNombre')}
              <input
                data-testid="cliente-nombre"
                value={sale.cliente.nombre}
                autoComplete="off"
                onChange={(e) => sale.setCliente({ nombre: e.target.value })}
                onBlur={() => void sale.checkCenso()}
                onKeyDown={(e) => {
                  if (e.key === 'Enter') {
                    e.preventDefault();
                    void sale.checkCenso();
                    focus('descripcion');
                  }
                }}
              />
            </label>
            <div className="cliente-check" data-testid="cliente-check">
              {nifCheck ? (nifCheck.valid ? <span className="ok">✓ {t('venta.nifValido')}</span> : <span className="bad">✗ {t('venta.nifInvalido')}: {nifCheck.reason}</span>) : null}
              {sale.censo && nifCheck?.valid && sale.censo.nif === nifCheck.normalized ? (
                <span className={sale.censo.estado === 'identificado' ? 'ok' : 'warn'}>
                  {' '}
                  · {t('venta.censo')}: {sale.censo.estado}
                  {sale.censo.nombreCenso ? ` (${sale.censo.nombreCenso})` : ''}
                </span>
              ) : null}
            </div>
          </fieldset>
        ) : null}

        <div className="totals" data-testid="sale-totals">
          {totals.desglose.map((r) => (
            <div key={r.tipoIva} className="totals-row">
              <span>
                {t('venta.iva')} {formatAmount(lang, r.tipoIva)}
              </span>
              <span>
                {t('venta.base')} {money(r.base)}
              </span>
              <span>
                {t('venta.cuota')} {money(r.cuota)}
              </span>
            </div>
          ))}
          <div className="totals-total">
            <span>{t('venta.total')}</span>
            <strong data-testid="sale-total">{money(totals.importeTotal)} €</strong>
          </div>
          <button type="button" className="primary" data-testid="sale-complete" disabled={sale.busy || sale.lines.length === 0} onClick={() => void sale.complete()}>
            {sale.busy ? t('venta.emitiendo') : t('venta.cobrar')}
          </button>
        </div>
        {sale.error ? (
          <div className="banner banner-error" role="alert" data-testid="sale-error">
            {sale.error}
          </div>
        ) : null}
        {sale.aviso ? <div className="banner banner-warn">{sale.aviso}</div> : null}
      </section>

      <aside className="sale-result" data-testid="sale-result" data-id-factura={last?.sale.idFactura ?? ''}>
        <h2>{t('resultado.titulo')}</h2>
        {last && receipt ? (
          <>
            <dl className="facts">
              <dt>{t('resultado.factura')}</dt>
              <dd data-testid="sale-numero">{last.sale.numeroFactura}</dd>
              <dt>{t('resultado.estado')}</dt>
              <dd>
                <span className={`badge badge-${last.estado}`} data-testid="sale-status" data-estado={last.estado}>
                  {t(`estado.${last.estado}` as 'estado.registrada')}
                </span>
              </dd>
              <dt>{t('venta.total')}</dt>
              <dd>{money(receipt.importeTotal)} €</dd>
              {last.sale.huella ? (
                <>
                  <dt>{t('resultado.huella')}</dt>
                  <dd className="mono small">{last.sale.huella.slice(0, 16)}…</dd>
                </>
              ) : null}
            </dl>
            {last.avisos.length > 0 ? (
              <div className="banner banner-warn" data-testid="sale-avisos">
                {t('resultado.avisos')}: {last.avisos.join(' · ')}
              </div>
            ) : null}
            <div className="receipt-tools no-print">
              <span>{t('recibo.ancho')}:</span>
              {([80, 58] as const).map((w) => (
                <button key={w} type="button" className={settings.ancho === w ? 'on' : ''} data-testid={`receipt-width-${w}`} onClick={() => updateSettings({ ancho: w })}>
                  {w} mm
                </button>
              ))}
              <button type="button" data-testid="sale-print" onClick={() => void sale.print()}>
                {t('resultado.imprimir')}
              </button>
              <button type="button" data-testid="sale-reprint" onClick={() => void sale.print(true)}>
                {t('resultado.reimprimir')}
              </button>
            </div>
            {last.printed ? <div className={`banner ${last.printed.ok ? 'banner-ok' : 'banner-error'}`}>{last.printed.ok ? `${t('resultado.impreso')}: ${last.printed.impresora}` : last.printed.error}</div> : null}
            <div className="print-area">
              <ReceiptPreview
                receipt={receipt}
                qrBase64={last.sale.qrBase64}
                lang={lang}
                labels={{ fecha: t('recibo.fecha'), cliente: t('recibo.cliente'), base: t('venta.base'), cuota: t('venta.cuota'), total: t('venta.total'), copia: t('recibo.copia') }}
              />
            </div>
          </>
        ) : (
          <p className="hint">{t('resultado.ninguna')}</p>
        )}
      </aside>
    </div>
  );
}
