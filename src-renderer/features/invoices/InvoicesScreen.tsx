// Invoices: list with filters and search, detail with records and the authority's replies, live
// status, cancel, correct a rejected invoice, refund a ticket (R5), reprint with the same QR.
import { useEffect, useRef } from 'react';
import { useSession, useT } from '../../app/session';
import { formatAmount } from '../../i18n';
import { tillBridge } from '../../platform/bridge';
import { formatTimestamp } from '../../platform/dates';
import { ReceiptPreview } from '../sale/ReceiptPreview';
import { buildReceipt, buildReceiptFromTotals } from '../sale/receipt-model';
import { estadoDe, nombreEmisorPara, useInvoices, visibleFacturas, type FacturaEnvelope, type FiltroEstado } from './store';

export function InvoicesScreen() {
  const t = useT();
  const lang = useSession((s) => s.lang);
  const emisor = useSession((s) => s.emisor);
  const inv = useInvoices();
  const searchRef = useRef<HTMLInputElement | null>(null);
  const listRef = useRef<HTMLTableSectionElement | null>(null);
  const rows = visibleFacturas(inv);
  const money = (v: string | undefined) => formatAmount(lang, v);

  useEffect(() => {
    void useInvoices.getState().load(true);
  }, [emisor?.nif]);

  // Live status: refresh while the screen is open — every 2 s while an invoice on screen is still
  // being filed, else every 15 s (gently: each call counts against the till key's limits).
  const filing = inv.facturas.some((f) => f.estadoFactura === undefined && f.estadoEnvio !== 'rechazada');
  // refresh() reloads every row on screen, so the pages loaded with "más" stay.
  useEffect(() => {
    const timer = setInterval(() => void useInvoices.getState().refresh(), filing ? 2000 : 15_000);
    return () => clearInterval(timer);
  }, [filing, emisor?.nif]);

  // An invoice still being filed (or with a record still pending, e.g. its cancellation) refreshes
  // its detail until the authority has answered.
  const procesando =
    inv.detalle?.factura.estadoFactura === 'procesando' || (inv.detalle?.registros ?? []).some((r) => r.estado === 'pendiente' || r.estado === 'procesando');
  useEffect(() => {
    if (!procesando) return;
    const timer = setInterval(() => void useInvoices.getState().refreshDetail(), 2000);
    return () => clearInterval(timer);
  }, [procesando, inv.detalle?.factura.idFactura]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement | null;
      const typing = target?.tagName === 'INPUT' || target?.tagName === 'SELECT';
      const s = useInvoices.getState();
      if (e.key === '/' && !typing) {
        e.preventDefault();
        searchRef.current?.focus();
      } else if ((e.key === 'ArrowDown' || e.key === 'ArrowUp') && (!typing || target === searchRef.current)) {
        e.preventDefault();
        s.moveCursor(e.key === 'ArrowDown' ? 1 : -1);
      } else if (e.key === 'Enter' && target === searchRef.current && s.filtros.texto.trim()) {
        // The number typed: a row of that exact number opens, a row picked with ↑/↓ opens, else
        // the engine is asked (the list holds only the pages loaded).
        e.preventDefault();
        const rows = visibleFacturas(s);
        const texto = s.filtros.texto.trim().toUpperCase();
        const row = rows.find((f) => f.numeroFactura.toUpperCase() === texto) ?? (s.cursor > 0 ? rows[s.cursor] : undefined);
        if (row) void s.open(row.idFactura);
        else void s.buscar();
      } else if (e.key === 'Enter' && (!typing || target === searchRef.current)) {
        const row = visibleFacturas(s)[s.cursor];
        if (row) {
          e.preventDefault();
          void s.open(row.idFactura);
        }
      } else if (e.key === 'Escape' && s.detalle) {
        s.closeDetail();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  return (
    <div className="invoices" data-testid="screen-facturas">
      <section className="invoices-list">
        <header className="toolbar">
          <h1>{t('facturas.titulo')}</h1>
          <input
            ref={searchRef}
            data-testid="invoices-search"
            placeholder={t('facturas.buscar')}
            value={inv.filtros.texto}
            onChange={(e) => inv.setFiltros({ texto: e.target.value })}
          />
          <label>
            {t('facturas.fechaExpedicion')}
            <input type="date" data-testid="invoices-search-fecha" value={inv.filtros.fecha} onChange={(e) => inv.setFiltros({ fecha: e.target.value })} />
          </label>
          <button type="button" data-testid="invoices-search-engine" disabled={!inv.filtros.texto.trim()} onClick={() => void inv.buscar()}>
            {t('facturas.buscarMotor')}
          </button>
          <label>
            {t('facturas.estado')}
            <select data-testid="invoices-estado" value={inv.filtros.estado} onChange={(e) => inv.setFiltros({ estado: e.target.value as FiltroEstado })}>
              <option value="">{t('facturas.todas')}</option>
              <option value="registrada">{t('estado.registrada')}</option>
              <option value="anulada">{t('estado.anulada')}</option>
              <option value="rectificada">{t('estado.rectificada')}</option>
              <option value="pendiente">{t('facturas.filtroPendientes')}</option>
              <option value="rechazada">{t('facturas.filtroRechazadas')}</option>
            </select>
          </label>
          <label>
            {t('facturas.desde')}
            <input type="date" value={inv.filtros.desde} onChange={(e) => inv.setFiltros({ desde: e.target.value })} />
          </label>
          <label>
            {t('facturas.hasta')}
            <input type="date" value={inv.filtros.hasta} onChange={(e) => inv.setFiltros({ hasta: e.target.value })} />
          </label>
          <button type="button" data-testid="invoices-refresh" onClick={() => void inv.load(true)}>
            {t('facturas.actualizar')}
          </button>
        </header>
        <p className="hint keys">{t('facturas.ayuda')}</p>
        {inv.error ? <div className="banner banner-error">{inv.error}</div> : null}
        {inv.busqueda ? (
          <div className="banner banner-error" data-testid="invoices-search-result">
            {inv.busqueda}
          </div>
        ) : null}
        <table className="grid" data-testid="invoices-table">
          <thead>
            <tr>
              <th>{t('facturas.numero')}</th>
              <th>{t('facturas.fecha')}</th>
              <th>{t('facturas.tipo')}</th>
              <th className="col-num">{t('facturas.total')}</th>
              <th>{t('facturas.estado')}</th>
            </tr>
          </thead>
          <tbody ref={listRef}>
            {rows.map((f, i) => (
              <tr
                key={f.idFactura}
                data-testid="invoice-row"
                data-numero={f.numeroFactura}
                data-estado={estadoDe(f)}
                className={`${i === inv.cursor ? 'cursor' : ''} ${inv.detalle?.factura.idFactura === f.idFactura ? 'selected' : ''}`}
                onClick={() => {
                  useInvoices.setState({ cursor: i });
                  void inv.open(f.idFactura);
                }}
              >
                <td className="mono">{f.numeroFactura}</td>
                <td>{formatTimestamp(f.fechaRegistro)}</td>
                <td>{f.tipoFactura ?? '—'}</td>
                <td className="col-num">{money(f.importeTotal)}</td>
                <td>
                  <span className={`badge badge-${estadoDe(f)}`}>{t(`estado.${estadoDe(f)}`)}</span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {rows.length === 0 && !inv.loading ? <p className="hint">{t('facturas.ninguna')}</p> : null}
        {inv.proximaPagina ? (
          <button type="button" onClick={() => void inv.load(false)}>
            {t('facturas.mas')}
          </button>
        ) : null}
      </section>
      {inv.detalle || inv.detalleError ? <InvoiceDetail detalle={inv.detalle} /> : null}
    </div>
  );
}

function InvoiceDetail({ detalle }: { detalle: FacturaEnvelope | undefined }) {
  const t = useT();
  const lang = useSession((s) => s.lang);
  const settings = useSession((s) => s.settings);
  const emisor = useSession((s) => s.emisor);
  const inv = useInvoices();
  if (!detalle) {
    return (
      <aside className="invoice-detail" data-testid="invoice-detail">
        <div className="banner banner-error">{inv.detalleError}</div>
      </aside>
    );
  }
  const f = detalle.factura;
  const estado = estadoDe(f);
  const rechazada = detalle.registros.some((r) => r.tipo !== 'anulacion' && (r.estado === 'rechazada' || r.estadoEnvioFinal === 'rechazada'));
  const anulada = f.estadoFactura === 'anulada';
  const r = inv.reimpresion;
  const receipt = r
    ? r.sale
      ? buildReceipt({
          ancho: settings.ancho,
          emisor: { nif: r.sale.nifEmisor, nombre: r.sale.nombreEmisor },
          titulo: r.sale.tipoFactura === 'F2' ? t('recibo.simplificada') : r.sale.tipoFactura === 'F1' ? t('recibo.completa') : t('recibo.rectificativa'),
          numeroFactura: f.numeroFactura,
          fechaExpedicion: f.fechaExpedicion,
          hora: r.sale.hora,
          tipoFactura: r.sale.tipoFactura,
          lines: r.sale.lines,
          destinatario: r.sale.destinatario,
          qr: f.idTbai ? { sistema: 'ticketbai', url: r.urlValidacion, idTbai: f.idTbai } : { sistema: 'verifactu', url: r.urlValidacion },
          copia: true,
          caja: f.idMaquina,
        })
      : buildReceiptFromTotals({
          ancho: settings.ancho,
          emisor: { nif: f.nifEmisor, nombre: nombreEmisorPara(f.nifEmisor, inv.emisorLista, emisor) },
          titulo: f.tipoFactura === 'F1' ? t('recibo.completa') : f.tipoFactura?.startsWith('R') ? t('recibo.rectificativa') : t('recibo.simplificada'),
          numeroFactura: f.numeroFactura,
          fechaExpedicion: f.fechaExpedicion,
          tipoFactura: (f.tipoFactura ?? 'F2') as 'F2',
          qr: f.idTbai ? { sistema: 'ticketbai', url: r.urlValidacion, idTbai: f.idTbai } : { sistema: 'verifactu', url: r.urlValidacion },
          copia: true,
          descripcion: f.descripcion,
          importeTotal: f.importeTotal ?? '0.00',
          cuotaTotal: f.cuotaTotal ?? '0.00',
        })
    : undefined;

  return (
    <aside className="invoice-detail" data-testid="invoice-detail" data-estado={estado}>
      <header className="toolbar">
        <h2>
          {t('resultado.factura')} <span className="mono">{f.numeroFactura}</span>
        </h2>
        <button type="button" onClick={() => inv.closeDetail()}>
          {t('facturas.cerrar')}
        </button>
      </header>
      <dl className="facts">
        <dt>{t('facturas.estado')}</dt>
        <dd>
          <span className={`badge badge-${estado}`} data-testid="invoice-status" data-estado={estado}>
            {t(`estado.${estado}`)}
          </span>
        </dd>
        <dt>{t('facturas.tipo')}</dt>
        <dd>{f.tipoFactura ?? '—'}</dd>
        <dt>{t('recibo.fecha')}</dt>
        <dd>{f.fechaExpedicion}</dd>
        <dt>{t('facturas.total')}</dt>
        <dd>{formatAmount(lang, f.importeTotal)} €</dd>
        {f.csvAeat ? (
          <>
            <dt>{t('facturas.csv')}</dt>
            <dd className="mono">{f.csvAeat}</dd>
          </>
        ) : null}
        {f.idMaquina ? (
          <>
            <dt>{t('app.caja')}</dt>
            <dd className="mono">{f.idMaquina}</dd>
          </>
        ) : null}
        {f.descripcion ? (
          <>
            <dt>{t('venta.descripcion')}</dt>
            <dd>{f.descripcion}</dd>
          </>
        ) : null}
      </dl>
      <div className="actions">
        <button type="button" data-testid="invoice-reprint" onClick={() => void inv.reprint()}>
          {t('resultado.reimprimir')}
        </button>
        <button
          type="button"
          data-testid="invoice-cancel"
          disabled={anulada}
          onClick={() => {
            if (window.confirm(t('facturas.confirmarAnular', { n: f.numeroFactura }))) void inv.anular();
          }}
        >
          {t('facturas.anular')}
        </button>
        <button type="button" data-testid="invoice-correct" disabled={!rechazada || anulada} onClick={() => inv.startCorrection('subsanar')}>
          {t('facturas.subsanar')}
        </button>
        <button type="button" data-testid="invoice-refund" disabled={anulada || f.tipoFactura !== 'F2'} onClick={() => inv.startCorrection('devolucion')}>
          {t('facturas.devolver')}
        </button>
      </div>
      {inv.mensaje ? <div className="banner banner-ok">{inv.mensaje}</div> : null}
      {inv.detalleError ? <div className="banner banner-error">{inv.detalleError}</div> : null}
      <h3>{t('facturas.registros')}</h3>
      <table className="grid" data-testid="invoice-records">
        <thead>
          <tr>
            <th>{t('facturas.tipo')}</th>
            <th>{t('facturas.estado')}</th>
            <th>{t('facturas.codigo')}</th>
            <th>{t('facturas.csv')}</th>
            <th>{t('facturas.lote')}</th>
          </tr>
        </thead>
        <tbody>
          {detalle.registros.map((reg) => (
            <tr key={reg.idRegistro} data-testid="invoice-record">
              <td>{reg.tipo}</td>
              <td>
                <span className={`badge badge-${reg.estado}`}>{t(`estado.${reg.estado}`)}</span>
                {reg.estadoEnvio ? <span className="small"> · {t(`estado.${reg.estadoEnvio}`)}</span> : null}
              </td>
              <td>
                {reg.codigoRespuestaAeat ?? reg.codigoRespuestaTbai ?? '—'}
                {reg.descripcionRespuestaAeat ?? reg.mensajeRespuestaTbai ? <div className="small">{reg.descripcionRespuestaAeat ?? reg.mensajeRespuestaTbai}</div> : null}
              </td>
              <td className="mono small">{reg.csvAeat ?? '—'}</td>
              <td>
                {reg.idLote ? (
                  <button type="button" className="link" onClick={() => void inv.openLote(reg.idLote ?? '')}>
                    {t('facturas.verRespuesta')}
                  </button>
                ) : (
                  '—'
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {inv.lote ? (
        <div className="lote" data-testid="invoice-lote">
          <h3>
            {t('facturas.respuesta')} · {inv.lote.idLote} · {inv.lote.estadoEnvio ?? inv.lote.estado}
          </h3>
          <pre className="xml">{inv.lote.respuesta ?? inv.lote.ultimoError ?? '—'}</pre>
        </div>
      ) : null}
      {receipt && r ? (
        <div className="print-area" data-testid="invoice-reprint-preview">
          <div className="receipt-tools no-print">
            <button
              type="button"
              data-testid="invoice-print"
              onClick={() => {
                const bridge = tillBridge();
                if (bridge) void bridge.print(receipt);
                else window.print();
              }}
            >
              {t('resultado.imprimir')}
            </button>
          </div>
          <ReceiptPreview
            receipt={receipt}
            qrBase64={r.qrBase64}
            lang={lang}
            labels={{ fecha: t('recibo.fecha'), cliente: t('recibo.cliente'), base: t('venta.base'), cuota: t('venta.cuota'), total: t('venta.total'), copia: t('recibo.copia') }}
          />
        </div>
      ) : null}
    </aside>
  );
}
