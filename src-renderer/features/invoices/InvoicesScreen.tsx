// Invoices: list with filters and search, detail with records and the authority's replies, live
// status, cancel, correct a rejected invoice, refund a ticket (R5), reprint with the same QR.
import { useEffect, useRef } from 'react';
import { explainRechazo } from '../../api/problems';
import { confirmar } from '../../app/ConfirmDialog';
import { ProblemBanner } from '../../app/ProblemBanner';
import { useFormat, useSession, useT } from '../../app/session';
import { hasMessage } from '../../i18n';
import { DateField } from '../../app/DateField';
import { formatFechaMotor } from '../../i18n/format';
import { tillBridge } from '../../platform/bridge';
import { printPage } from '../../platform/page';
import { useNombreCaja } from '../device/names';
import type { Receipt } from '../../../src-shared/bridge';
import { ReceiptPreview } from '../sale/ReceiptPreview';
import { buildReceipt, buildReceiptFromTotals } from '../sale/receipt-model';
import { descripcionVisible } from './descripcion';
import { accionesDe, esFinal, estadoMostrado, type Accion } from './estado';
import { estadoVisible, nombreEmisorPara, useInvoices, visibleFacturas, type FacturaEnvelope, type FiltroEstado } from './store';


export function InvoicesScreen() {
  const t = useT();
  const fmt = useFormat();
  const emisor = useSession((s) => s.emisor);
  const inv = useInvoices();
  const searchRef = useRef<HTMLInputElement | null>(null);
  const listRef = useRef<HTMLTableSectionElement | null>(null);
  const rows = visibleFacturas(inv);
  const money = fmt.money;

  useEffect(() => {
    void useInvoices.getState().load(true);
  }, [emisor?.nif]);

  // Live status: refresh while the screen is open — every second while an invoice on screen is in
  // a state that is not final, else every 15 s (gently: each call counts against the till key's limits).
  const filing = inv.facturas.some((f) => !esFinal(estadoVisible(f, inv.anulacionesPendientes)));
  // refresh() reloads every row on screen, so the pages loaded with "más" stay.
  useEffect(() => {
    const timer = setInterval(() => void useInvoices.getState().refresh(), filing ? 1000 : 15_000);
    return () => clearInterval(timer);
  }, [filing, emisor?.nif]);

  // Back on this screen: the open detail and the rows are read again at once (a correction or a
  // refund issued from the sale screen meanwhile shows here as the engine has it).
  useEffect(() => {
    void useInvoices.getState().refreshDetail();
    if (useInvoices.getState().facturas.length > 0) void useInvoices.getState().refresh();
  }, []);

  // An open invoice in a state that is not final (being filed, its cancellation on its way, a
  // record still pending) is read every second until the authority has answered.
  const procesando =
    !!inv.detalle &&
    (!esFinal(estadoMostrado(inv.detalle)) || inv.detalle.factura.estadoFactura === 'procesando' || inv.detalle.registros.some((r) => r.estado === 'pendiente' || r.estado === 'procesando'));
  useEffect(() => {
    if (!procesando) return;
    const timer = setInterval(() => void useInvoices.getState().refreshDetail(), 1000);
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
          <DateField label={t('facturas.fechaExpedicion')} testid="invoices-search-fecha" value={inv.filtros.fecha} onChange={(fecha) => inv.setFiltros({ fecha })} />
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
          <DateField label={t('facturas.desde')} testid="invoices-desde" value={inv.filtros.desde} onChange={(desde) => inv.setFiltros({ desde })} />
          <DateField label={t('facturas.hasta')} testid="invoices-hasta" value={inv.filtros.hasta} onChange={(hasta) => inv.setFiltros({ hasta })} />
          <button type="button" data-testid="invoices-refresh" onClick={() => void inv.load(true)}>
            {t('facturas.actualizar')}
          </button>
        </header>
        <p className="hint keys">{t('facturas.ayuda')}</p>
        <ProblemBanner problem={inv.error} testid="invoices-error" />
        <ProblemBanner problem={inv.busqueda} testid="invoices-search-result" />
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
            {rows.map((f, i) => {
              const estado = estadoVisible(f, inv.anulacionesPendientes);
              return (
                <tr
                  key={f.idFactura}
                  data-testid="invoice-row"
                  data-numero={f.numeroFactura}
                  data-estado={estado}
                  aria-selected={inv.detalle?.factura.idFactura === f.idFactura}
                  className={`${i === inv.cursor ? 'cursor' : ''} ${inv.detalle?.factura.idFactura === f.idFactura ? 'selected' : ''}`}
                  onClick={() => {
                    useInvoices.setState({ cursor: i });
                    void inv.open(f.idFactura);
                  }}
                >
                  <td>
                    {/* The row's control: reachable by Tab, opened with Enter or Space. */}
                    <button
                      type="button"
                      className="link mono numero"
                      data-testid="invoice-open"
                      aria-label={t('facturas.abrir', { n: f.numeroFactura })}
                      onFocus={() => useInvoices.setState({ cursor: i })}
                      onClick={(e) => {
                        e.stopPropagation();
                        useInvoices.setState({ cursor: i });
                        void inv.open(f.idFactura);
                      }}
                    >
                      {f.numeroFactura}
                    </button>
                  </td>
                  <td>{fmt.dateTime(f.fechaRegistro)}</td>
                  <td>{f.tipoFactura ? t(`tipo.${f.tipoFactura}`) : '—'}</td>
                  <td className="col-num">{money(f.importeTotal)}</td>
                  <td>
                    <span className={`badge badge-${estado}`}>{t(`estado.${estado}`)}</span>
                  </td>
                </tr>
              );
            })}
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
  const fmt = useFormat();
  const settings = useSession((s) => s.settings);
  const emisor = useSession((s) => s.emisor);
  const lang = useSession((s) => s.lang);
  const nombreCaja = useNombreCaja();
  const inv = useInvoices();
  if (!detalle) {
    return (
      <aside className="invoice-detail" data-testid="invoice-detail">
        <ProblemBanner problem={inv.detalleError} />
      </aside>
    );
  }
  const f = detalle.factura;
  // One source of truth: the invoice's state as the engine has it (its cancellation on its way wins).
  const estado = estadoMostrado(detalle);
  // Actions open only where the engine would accept them; a closed one says why, beside it.
  const acciones = accionesDe(detalle);
  const motivo = (id: string, a: Accion) =>
    a.ok ? null : (
      <li id={`motivo-${id}`} data-testid={`invoice-${id}-motivo`}>
        <strong>{t(id === 'cancel' ? 'facturas.anular' : id === 'correct' ? 'facturas.subsanar' : 'facturas.devolver')}:</strong> {t(a.motivo)}
      </li>
    );
  const r = inv.reimpresion;
  const receipt = r
    ? r.sale
      ? buildReceipt({
          ancho: settings.ancho,
          idioma: settings.idiomaTicket,
          emisor: { nif: r.sale.nifEmisor, nombre: r.sale.nombreEmisor },
          rectificada: r.sale.rectificada,
          gracias: true,
          numeroFactura: f.numeroFactura,
          fechaExpedicion: f.fechaExpedicion,
          hora: r.sale.hora,
          tipoFactura: r.sale.tipoFactura,
          lines: r.sale.lines,
          destinatario: r.sale.destinatario,
          qr: f.idTbai ? { sistema: 'ticketbai', url: r.urlValidacion, idTbai: f.idTbai } : { sistema: 'verifactu', url: r.urlValidacion },
          copia: true,
          caja: f.idMaquina ? nombreCaja(f.idMaquina) : undefined,
        })
      : buildReceiptFromTotals({
          ancho: settings.ancho,
          idioma: settings.idiomaTicket,
          emisor: { nif: f.nifEmisor, nombre: nombreEmisorPara(f.nifEmisor, inv.emisorLista, emisor) },
          numeroFactura: f.numeroFactura,
          fechaExpedicion: f.fechaExpedicion,
          tipoFactura: (f.tipoFactura ?? 'F2') as Receipt['tipoFactura'],
          qr: f.idTbai ? { sistema: 'ticketbai', url: r.urlValidacion, idTbai: f.idTbai } : { sistema: 'verifactu', url: r.urlValidacion },
          copia: true,
          descripcion: f.descripcion,
          importeTotal: f.importeTotal ?? '0.00',
          cuotaTotal: f.cuotaTotal ?? '0.00',
        })
    : undefined;

  return (
    <aside className="invoice-detail" data-testid="invoice-detail" data-estado={estado} data-id-factura={f.idFactura}>
      <header className="toolbar">
        <h2>
          {t('resultado.factura')} <span className="mono numero">{f.numeroFactura}</span>
        </h2>
        <button type="button" onClick={() => inv.closeDetail()}>
          {t('facturas.cerrar')}
        </button>
      </header>
      <dl className="facts">
        <dt>{t('facturas.estado')}</dt>
        <dd aria-live="polite">
          <span className={`badge badge-${estado}`} data-testid="invoice-status" data-estado={estado}>
            {t(`estado.${estado}`)}
          </span>
        </dd>
        <dt>{t('facturas.tipo')}</dt>
        <dd>{f.tipoFactura ? t(`tipo.${f.tipoFactura}`) : '—'}</dd>
        <dt>{t('recibo.fecha')}</dt>
        <dd>{formatFechaMotor(f.fechaExpedicion)}</dd>
        <dt>{t('facturas.total')}</dt>
        <dd>{fmt.money(f.importeTotal)} €</dd>
        {f.csvAeat ? (
          <>
            <dt>{t('facturas.csv')}</dt>
            <dd className="mono">{f.csvAeat}</dd>
          </>
        ) : null}
        {f.idMaquina ? (
          <>
            <dt>{t('app.caja')}</dt>
            <dd data-testid="invoice-caja">{nombreCaja(f.idMaquina)}</dd>
          </>
        ) : null}
        {f.descripcion ? (
          <>
            <dt>{t('venta.descripcion')}</dt>
            <dd data-testid="invoice-descripcion">{descripcionVisible(f.descripcion, t)}</dd>
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
          disabled={!acciones.anular.ok}
          aria-describedby={acciones.anular.ok ? undefined : 'motivo-cancel'}
          onClick={() => {
            void confirmar(t('facturas.confirmarAnular', { n: f.numeroFactura })).then((ok) => (ok ? inv.anular() : undefined));
          }}
        >
          {t('facturas.anular')}
        </button>
        <button
          type="button"
          data-testid="invoice-correct"
          disabled={!acciones.subsanar.ok}
          aria-describedby={acciones.subsanar.ok ? undefined : 'motivo-correct'}
          onClick={() => inv.startCorrection('subsanar')}
        >
          {t('facturas.subsanar')}
        </button>
        <button
          type="button"
          data-testid="invoice-refund"
          disabled={!acciones.devolver.ok}
          aria-describedby={acciones.devolver.ok ? undefined : 'motivo-refund'}
          onClick={() => inv.startCorrection('devolucion')}
        >
          {t('facturas.devolver')}
        </button>
      </div>
      <ul className="plain hint acciones-motivos" data-testid="invoice-motivos">
        {motivo('cancel', acciones.anular)}
        {motivo('correct', acciones.subsanar)}
        {motivo('refund', acciones.devolver)}
      </ul>
      {/* Said while it stands, from the engine's records: gone once the authority answers. */}
      {estado === 'anulacion_pendiente' ? (
        <div className="banner banner-warn" role="status" data-testid="invoice-mensaje">
          {t('facturas.anulada')}
        </div>
      ) : null}
      <ProblemBanner problem={inv.detalleError} testid="invoice-error" />
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
              <td>{t(`registro.${reg.tipo === 'anulacion' ? 'anulacion' : 'alta'}`)}</td>
              <td>
                <span className={`badge badge-${reg.estado}`} data-testid="invoice-record-estado" data-estado={reg.estado}>
                  {t(`estado.${reg.estado}`)}
                </span>
              </td>
              <td data-testid="invoice-record-respuesta">
                <RespuestaRegistro registro={reg} sistema={f.sistemaFiscal === 'ticketbai' ? 'ticketbai' : 'verifactu'} lang={lang} />
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
            {t('facturas.respuesta')} · {inv.lote.estadoEnvio && hasMessage(`respuesta.${inv.lote.estadoEnvio}`) ? t(`respuesta.${inv.lote.estadoEnvio}`) : hasMessage(`lote.${inv.lote.estado}`) ? t(`lote.${inv.lote.estado}`) : ''}
          </h3>
          {/* The authority's SOAP is for support: folded away as the technical detail. */}
          <details className="problem-detail" data-testid="invoice-lote-xml">
            <summary>{t('error.detalle')}</summary>
            <pre className="xml">{inv.lote.respuesta ?? inv.lote.ultimoError ?? '—'}</pre>
          </details>
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
                else printPage();
              }}
            >
              {t('resultado.imprimir')}
            </button>
          </div>
          <ReceiptPreview receipt={receipt} qrBase64={r.qrBase64} />
        </div>
      ) : null}
    </aside>
  );
}

type Registro = FacturaEnvelope['registros'][number];

/** A record's answer: accepted ('—' or its code folded), rejected (why and what to do, the code folded). */
function RespuestaRegistro({ registro, sistema, lang }: { registro: Registro; sistema: 'verifactu' | 'ticketbai'; lang: ReturnType<typeof useSession.getState>['lang'] }) {
  const t = useT();
  const codigo = registro.codigoRespuestaAeat ?? registro.codigoRespuestaTbai;
  const texto = registro.descripcionRespuestaAeat ?? registro.mensajeRespuestaTbai;
  const rechazado = registro.estado === 'rechazada' || registro.estadoEnvioFinal === 'rechazada';
  if (!codigo && !texto) return <>—</>;
  const detalle = [codigo, texto].filter(Boolean).join(' ');
  return (
    <>
      {rechazado ? <span data-testid="invoice-record-que-hacer">{explainRechazo(lang, sistema, codigo, texto).mensaje}</span> : null}
      <details className="problem-detail">
        <summary>{t('error.detalle')}</summary>
        <code className="mono small">{detalle}</code>
      </details>
    </>
  );
}
