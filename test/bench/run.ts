/**
 * `npm run bench`: every figure next to a baseline measured in the same run, printed as JSON.
 * No thresholds: the goals, the machine and the latest figures are in docs/benchmarks.md.
 */
import { coldStart, load, ratio, startServer } from './harness';
import { benchDrain } from './drain';
import { profileCrear } from './profile';
import { benchReads } from './reads';
import { benchTicketbaiSign } from './ticketbai-sign';
import { benchVerifactuRecord } from './verifactu-record';

interface Report {
  [name: string]: unknown;
}

async function httpBaseline(report: Report): Promise<{ saturated: number; p99At250: number }> {
  const echo = await startServer('echo');
  try {
    const saturated = await load({ url: `${echo.info.url}/echo`, method: 'POST', body: (i) => JSON.stringify({ i }) });
    const at250 = await load({ url: `${echo.info.url}/echo`, method: 'POST', body: (i) => JSON.stringify({ i }), rate: 250, connections: 10 });
    report.echo = { saturated, at250 };
    return { saturated: saturated.requestsPerSecond, p99At250: at250.p99Ms };
  } finally {
    await echo.stop();
  }
}

async function cuenta(report: Report, echo: { saturated: number }): Promise<void> {
  const engine = await startServer('engine');
  try {
    const saturated = await load({ url: `${engine.info.url}/v1/cuenta`, headers: { 'x-api-key': engine.info.key ?? '' } });
    report.cuenta = { saturated, ratioToEcho: ratio(saturated.requestsPerSecond, echo.saturated) };
  } finally {
    await engine.stop();
  }
}

/** A distinct simplified invoice per request, so every request is a new chained record. */
function facturaBody(nif: string, run: string) {
  return (i: number) =>
    JSON.stringify({
      version: '1.0',
      emisor: { nif, nombre: 'COMERCIAL DEMO SL' },
      cabecera: { serie: `B${run}-`, numero: String(i), fechaExpedicion: '20-11-2026', tipoFactura: 'F2', descripcion: 'Venta' },
      detalleDesglose: [{ claveRegimen: '01', calificacionOperacion: 'S1', baseImponible: '10.00', tipoImpositivo: '21.00', cuotaRepercutida: '2.10' }],
      totales: { cuotaTotal: '2.10', importeTotal: '12.10' },
    });
}

async function verifactuCrear(report: Report, echo: { saturated: number; p99At250: number }): Promise<void> {
  const engine = await startServer('engine');
  try {
    const url = `${engine.info.url}/v1/verifactu/crear`;
    const headers = { 'x-api-key': engine.info.key ?? '' };
    const saturated = await load({ url, method: 'POST', headers, body: facturaBody(engine.info.nif ?? '', 's') });
    const at250 = await load({ url, method: 'POST', headers, body: facturaBody(engine.info.nif ?? '', 'r'), rate: 250, connections: 10 });
    report.verifactuCrear = {
      saturated,
      at250,
      ratioToEcho: ratio(saturated.requestsPerSecond, echo.saturated),
      p99At250RatioToEcho: ratio(at250.p99Ms, Math.max(echo.p99At250, 1)),
      goal: 'ratioToEcho >= 0.30, p99At250RatioToEcho <= 5',
    };
  } finally {
    await engine.stop();
  }
}

function ticketbaiBody(run: string) {
  return (i: number) =>
    JSON.stringify({
      provincia: 'gipuzkoa',
      emisor: { nif: 'A58818501', nombre: 'EMISOR GIPUZKOA SL' },
      serie: `B${run}`,
      numero: String(i),
      fechaExpedicion: '20-11-2026',
      horaExpedicion: '10:00:00',
      tipoFactura: 'F2',
      importeTotal: '12.10',
      desglose: [{ baseImponible: '10.00', tipoImpositivo: '21.00', cuota: '2.10', calificacionOperacion: 'S1' }],
      lineas: [{ descripcion: 'Café', cantidad: '2', importeUnitario: '5.00', importeTotal: '12.10' }],
    });
}

async function ticketbai(report: Report, echo: { saturated: number }): Promise<void> {
  const inProcess = await benchTicketbaiSign();
  const engine = await startServer('engine');
  try {
    const saturated = await load({
      url: `${engine.info.url}/v1/ticketbai/crear`,
      method: 'POST',
      headers: { 'x-api-key': engine.info.key ?? '' },
      body: ticketbaiBody('t'),
    });
    report.ticketbaiCrear = {
      http: saturated,
      inProcess,
      ratioHttpToRawRsa: ratio(saturated.requestsPerSecond, inProcess.rawRsaSignaturesPerSecond),
      ratioHttpToEcho: ratio(saturated.requestsPerSecond, echo.saturated),
      goal: 'ratioHttpToRawRsa >= 0.25',
    };
  } finally {
    await engine.stop();
  }
}

async function recordBuilding(report: Report): Promise<void> {
  const result = await benchVerifactuRecord();
  report.verifactuRecordInProcess = { ...result, goal: '>= 110000 records/s (public TypeScript peer ≈ 38000/s)' };
}

async function coldStarts(report: Report): Promise<void> {
  const echo = await coldStart('echo', '/echo', 'POST');
  const engine = await coldStart('engine', '/v1/cuenta');
  report.coldStart = { echo, engine, ratioToEcho: ratio(engine.first200Ms, Math.max(echo.first200Ms, 1)) };
}

/** Every section is also written to stderr as it ends, so a failing later section loses nothing. */
function section(name: string): void {
  process.stderr.write(`bench ${name}: ${JSON.stringify(report[name])}\n`);
}

const os = await import('node:os');
const only = process.argv[2];
const report: Report = {
  machine: { node: process.version, cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, memoryGiB: Math.round(os.totalmem() / 2 ** 30) },
};
const echo = await httpBaseline(report);
section('echo');
if (!only || only === 'cold') {
  await coldStarts(report);
  section('coldStart');
}
if (!only || only === 'profile') {
  report.crearCpuBudget = await profileCrear();
  section('crearCpuBudget');
}
if (!only || only === 'cuenta') {
  await cuenta(report, echo);
  section('cuenta');
}
if (!only || only === 'crear') {
  await verifactuCrear(report, echo);
  section('verifactuCrear');
}
if (!only || only === 'record') {
  await recordBuilding(report);
  section('verifactuRecordInProcess');
}
if (!only || only === 'tbai') {
  await ticketbai(report, echo);
  section('ticketbaiCrear');
}
if (!only || only === 'reads') {
  report.readsAtScale = await benchReads();
  section('readsAtScale');
}
if (!only || only === 'drain') {
  const one = await benchDrain(undefined, 1);
  const four = await benchDrain(undefined, 4);
  report.backlogDrain = {
    oneObligado: { ...one, ratioToRawUpdates: ratio(one.drainRecordsPerSecond, one.rawSqliteUpdatesPerSecond) },
    fourObligados: { ...four, ratioToRawUpdates: ratio(four.drainRecordsPerSecond, four.rawSqliteUpdatesPerSecond) },
    goal: '>= 5000 records/s',
  };
  section('backlogDrain');
}
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
