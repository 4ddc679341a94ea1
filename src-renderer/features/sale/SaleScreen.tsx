// The till's sale screen, keyboard first: description ⏎ quantity ⏎ price ⏎ VAT ⏎ adds a line;
// ⏎ on the empty description completes the sale. F4 customer (full invoice F1), Esc clears,
// Supr/Delete on the empty description removes the last line, F9 prints the last ticket.
import { useCallback, useEffect, useMemo, useRef, type KeyboardEvent } from 'react';
import { validateNif } from '../../../src-shared/nif';
import { explainRechazo, nifProblem } from '../../api/problems';
import { confirmando, confirmar } from '../../app/ConfirmDialog';
import { ProblemBanner } from '../../app/ProblemBanner';
import { useFormat, useSession, useT } from '../../app/session';
import { autoridadesCaidas, useSync } from '../sync/store';
import { computeTotals, DESCRIPCION_MAX, lineImporte, superaLimiteF2, TIPOS_IVA } from './cart';
import { ReceiptPreview } from './ReceiptPreview';
import { receiptOf, useSale, type Draft } from './store';

const FIELDS: (keyof Draft)[] = ['descripcion', 'cantidad', 'precio', 'tipoIva'];

/** The description counter shows from here on (the cut at 120 is said before it happens). */
const AVISO_DESCRIPCION = 100;

/** Completes the sale, asking first when it adds up to nothing (a 0,00 € sale is rarely meant). */
async function completar(): Promise<void> {
  const s = useSale.getState();
  if (s.lines.length === 0) return;
  if (computeTotals(s.lines).importeTotal === '0.00' && !(await confirmar(useSession.getState().t('venta.confirmarCero')))) return;
  await s.complete();
}

/** A simplified invoice is being built (not a correction of a full one, not a refund). */
function tipoF2(sale: { mode: { kind: string; original?: { tipoFactura: string } }; tipoFactura: string }): boolean {
  if (sale.mode.kind === 'devolucion') return false;
  if (sale.mode.kind === 'subsanar') return sale.mode.original?.tipoFactura === 'F2';
  return sale.tipoFactura === 'F2';
}

export function SaleScreen() {
  const t = useT();
  const fmt = useFormat();
  const lang = fmt.lang;
  const entorno = useSession((s) => s.entorno);
  const caidas = autoridadesCaidas(useSync((s) => s.resumen), entorno, useSync((s) => s.alcance));
  const emisor = useSession((s) => s.emisor);
  const settings = useSession((s) => s.settings);
  const updateSettings = useSession((s) => s.updateSettings);
  const sale = useSale();
  const refs = useRef<Partial<Record<keyof Draft, HTMLInputElement | null>>>({});
  const clienteNifRef = useRef<HTMLInputElement | null>(null);
  // F4 focuses the customer's NIF as the field mounts (in React's commit), not a timer later: keys
  // typed right after F4 must land in the NIF, never in the field that had focus before.
  const focusClienteAlMontar = useRef(false);
  const clienteNifMontado = useCallback((el: HTMLInputElement | null) => {
    clienteNifRef.current = el;
    if (el && focusClienteAlMontar.current) {
      focusClienteAlMontar.current = false;
      el.focus();
    }
  }, []);
  const totals = useMemo(() => computeTotals(sale.lines), [sale.lines]);
  const money = fmt.money;

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
      if (confirmando()) return;
      if (e.key === 'F4') {
        // F4 goes to the customer (opening it for a full invoice); it never closes it: «Quitar el cliente» does.
        e.preventDefault();
        if (useSale.getState().mode.kind === 'devolucion') return;
        if (clienteNifRef.current) clienteNifRef.current.focus();
        else focusClienteAlMontar.current = true;
        useSale.getState().toggleCliente(true);
      } else if (e.key === 'F9') {
        e.preventDefault();
        void useSale.getState().print();
      } else if (e.key === 'Escape') {
        e.preventDefault();
        const s = useSale.getState();
        const leave = () => {
          const now = useSale.getState();
          if (now.mode.kind !== 'venta') now.exitMode();
          else now.clear();
          focus('descripcion');
        };
        // Esc on a sale with lines would lose them: ask first (in the till, Intro yes, Esc no).
        if (s.lines.length === 0) leave();
        else void confirmar(useSession.getState().t('venta.confirmarVaciar', { n: s.lines.length })).then((ok) => (ok ? leave() : focus('descripcion')));
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
      if (s.lines.length > 0) void completar().then(() => focus('descripcion'));
      return;
    }
    // Each field is checked as Enter leaves it: a bad price is said in the price, not one field later.
    if (field !== 'descripcion' && !s.checkField(field)) return;
    const next = FIELDS[FIELDS.indexOf(field) + 1];
    if (next) {
      focus(next);
      return;
    }
    if (s.addLine()) focus('descripcion');
  };

  const nifCheck = sale.cliente.nif ? validateNif(sale.cliente.nif) : undefined;
  const overLimit = tipoF2(sale) && superaLimiteF2(totals.importeTotal);
  const descLength = sale.draft.descripcion.length;
  const tipo = sale.mode.kind === 'devolucion' ? 'R5' : sale.mode.kind === 'subsanar' ? sale.mode.original.tipoFactura : sale.tipoFactura;
  const last = sale.last;
  const receipt = last ? receiptOf(last) : undefined;
  const nifError = nifCheck && !nifCheck.valid ? nifProblem(lang, sale.cliente.nif) : undefined;
  const rechazoOriginal = sale.mode.kind === 'subsanar' && sale.mode.original.rechazo ? explainRechazo(lang, sale.mode.original.rechazo.sistema, sale.mode.original.rechazo.codigo, sale.mode.original.rechazo.descripcion) : undefined;
  const rechazoUltima = last?.estado === 'rechazada' && last.rechazo ? explainRechazo(lang, last.rechazo.sistema, last.rechazo.codigo, last.rechazo.descripcion) : undefined;
  const cobrarLabel = sale.mode.kind === 'devolucion' ? t('venta.cobrarDevolucion') : sale.mode.kind === 'subsanar' ? t('venta.cobrarSubsanar') : t('venta.cobrar');
  const ayuda = sale.mode.kind === 'devolucion' ? t('venta.ayudaDevolucion') : sale.mode.kind === 'subsanar' ? t('venta.ayudaSubsanar') : t('venta.ayuda');

  return (
    <div className="sale" data-testid="screen-venta">
      <section className="sale-main">
        <header className="sale-head">
          <h1 data-testid="sale-titulo">
            {sale.mode.kind === 'subsanar'
              ? t('venta.subsanarTitulo', { n: sale.mode.original.numeroFactura })
              : sale.mode.kind === 'devolucion'
                ? t('venta.devolucionTitulo', { n: sale.mode.original.numeroFactura })
                : t('venta.titulo')}
          </h1>
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
        {caidas.length > 0 ? (
          <div className="banner banner-warn" role="status" data-testid="sale-autoridad-caida">
            {t('venta.autoridadCaida', { autoridades: caidas.map((a) => t(`emulador.${a}`)).join(', ') })}
          </div>
        ) : null}
        {sale.mode.kind !== 'venta' ? (
          <div className="banner banner-mode" data-testid="sale-mode">
            {sale.mode.kind === 'subsanar' ? t('venta.modoSubsanar') : t('venta.modoDevolucion')} <strong>{sale.mode.original.numeroFactura}</strong>
            <button type="button" onClick={() => sale.exitMode()}>
              {t('venta.salirModo')}
            </button>
          </div>
        ) : null}
        {rechazoOriginal ? (
          <div className="banner banner-error" data-testid="sale-motivo-rechazo">
            <strong>{t('venta.motivoRechazo')}:</strong> {rechazoOriginal.mensaje}
            {rechazoOriginal.detalle ? (
              <details className="problem-detail">
                <summary>{t('error.detalle')}</summary>
                <code className="mono small">{rechazoOriginal.detalle}</code>
              </details>
            ) : null}
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
                <td className="col-num">{fmt.amount(l.cantidad)}</td>
                <td className="col-num">{money(l.precio)}</td>
                <td className="col-num">{fmt.amount(l.tipoIva)}</td>
                <td className="col-num">{money(lineImporte(l))}</td>
                <td>
                  <button type="button" className="link" data-testid="sale-line-remove" aria-label={t('venta.quitarLinea', { d: l.descripcion })} onClick={() => sale.removeLine(l.id)}>
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
                    aria-describedby={
                      [sale.draftError === field ? 'draft-motivo' : '', field === 'descripcion' && descLength >= AVISO_DESCRIPCION ? 'draft-descripcion-cuenta' : ''].filter(Boolean).join(' ') ||
                      undefined
                    }
                    maxLength={field === 'descripcion' ? DESCRIPCION_MAX : 24}
                    className={sale.draftError === field ? 'invalid' : ''}
                    inputMode={field === 'descripcion' ? 'text' : 'decimal'}
                    list={field === 'tipoIva' ? 'tipos-iva' : undefined}
                    size={field === 'tipoIva' ? 4 : undefined}
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
        {/* Why the field was refused, next to it and announced; the description's length before it is cut. */}
        <p id="draft-motivo" className="field-error" data-testid="draft-motivo" data-campo={sale.draftError ?? ''} aria-live="assertive">
          {sale.draftMotivo ?? ''}
        </p>
        {descLength >= AVISO_DESCRIPCION ? (
          <p id="draft-descripcion-cuenta" className={descLength >= DESCRIPCION_MAX ? 'field-error' : 'hint'} data-testid="draft-descripcion-cuenta" aria-live="polite">
            {t('venta.caracteres', { n: descLength, max: DESCRIPCION_MAX })}
            {descLength >= DESCRIPCION_MAX ? ` · ${t('venta.descripcionLimite', { max: DESCRIPCION_MAX })}` : ''}
          </p>
        ) : null}
        {/* The VAT rate the entry line took over from the previous line, said (and announced) while it stands. */}
        <p className="hint" data-testid="draft-iva-heredado" aria-live="polite">
          {sale.ivaHeredado && sale.draft.tipoIva === sale.ivaHeredado ? t('venta.ivaHeredado', { tipo: fmt.amount(sale.ivaHeredado) }) : ''}
        </p>
        {sale.lines.length === 0 ? <p className="hint">{t('venta.sinLineas')}</p> : null}
        <p className="hint keys" data-testid="sale-ayuda">
          {ayuda}
        </p>

        {sale.clienteAbierto ? (
          <fieldset className="cliente" data-testid="sale-cliente">
            <legend>{t('venta.cliente')}</legend>
            <label>
              {t('venta.clienteNif')}
              <input
                ref={clienteNifMontado}
                data-testid="cliente-nif"
                value={sale.cliente.nif}
                aria-invalid={nifError !== undefined}
                aria-describedby={nifError !== undefined ? 'cliente-nif-error' : undefined}
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
            <label>
              {t('venta.clienteDireccion')}
              <input
                data-testid="cliente-direccion"
                value={sale.cliente.direccion}
                autoComplete="off"
                maxLength={200}
                onChange={(e) => sale.setCliente({ direccion: e.target.value })}
                onKeyDown={(e) => {
                  if (e.key === 'Enter') {
                    e.preventDefault();
                    void sale.checkCenso();
                    focus('descripcion');
                  }
                }}
              />
            </label>
            <button
              type="button"
              className="link"
              data-testid="cliente-quitar"
              onClick={() => {
                sale.toggleCliente(false);
                focus('descripcion');
              }}
            >
              {t('venta.quitarCliente')}
            </button>
            <div className="cliente-check" data-testid="cliente-check" aria-live="polite">
              {nifCheck ? (
                nifCheck.valid ? (
                  <span className="ok">✓ {t('venta.nifValido')}</span>
                ) : (
                  <span className="bad" id="cliente-nif-error" data-testid="cliente-nif-error">
                    ✗ {t('venta.nifInvalido')}: {nifError}
                  </span>
                )
              ) : null}
              {sale.censo && nifCheck?.valid && sale.censo.nif === nifCheck.normalized ? (
                <span className={sale.censo.estado === 'identificado' ? 'ok' : 'warn'}>
                  {' '}
                  · {t('venta.censo')}: {t(`censo.${sale.censo.estado}`)}
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
                {t('venta.iva')} {fmt.amount(r.tipoIva)}
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
          <button
            type="button"
            className="primary"
            data-testid="sale-complete"
            disabled={sale.busy || sale.lines.length === 0}
            onClick={() => void completar().then(() => focus('descripcion'))}
          >
            {sale.busy ? t('venta.emitiendo') : cobrarLabel}
          </button>
        </div>
        {overLimit ? (
          <div className="banner banner-warn" role="status" data-testid="sale-limite-f2">
            {t('error.limiteF2')}
          </div>
        ) : null}
        {/* The F2 limit is said once: while it shows above, its refusal does not repeat it. */}
        <ProblemBanner problem={overLimit && sale.error?.campo === 'limiteF2' ? undefined : sale.error} testid="sale-error" />
        {sale.aviso ? (
          <div className="banner banner-warn" role="status" data-testid="sale-aviso">
            {sale.aviso}
          </div>
        ) : null}
      </section>

      <aside className="sale-result" data-testid="sale-result" data-id-factura={last?.sale.idFactura ?? ''}>
        <h2>{t('resultado.titulo')}</h2>
        {last && receipt ? (
          <>
            <dl className="facts">
              <dt>{t('resultado.factura')}</dt>
              <dd data-testid="sale-numero">{last.sale.numeroFactura}</dd>
              <dt>{t('resultado.estado')}</dt>
              <dd aria-live="polite">
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
            {rechazoUltima ? (
              <div className="banner banner-error" role="alert" data-testid="sale-rechazo">
                <strong>{t('venta.rechazadaQueHacer')}:</strong> {rechazoUltima.mensaje}
                <details className="problem-detail">
                  <summary>{t('error.detalle')}</summary>
                  <code className="mono small">{rechazoUltima.detalle}</code>
                </details>
              </div>
            ) : null}
            {last.avisos.length > 0 ? (
              <div className="banner banner-warn" data-testid="sale-avisos">
                {t('resultado.avisos')}: {t('venta.avisosTexto')}
                <details className="problem-detail">
                  <summary>{t('error.detalle')}</summary>
                  <code className="mono small">{last.avisos.join(' · ')}</code>
                </details>
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
              <ReceiptPreview receipt={receipt} qrBase64={last.sale.qrBase64} />
            </div>
          </>
        ) : (
          <p className="hint">{t('resultado.ninguna')}</p>
        )}
      </aside>
    </div>
  );
}
