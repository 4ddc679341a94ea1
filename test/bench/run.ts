/**
 * `npm run bench`: every figure next to a baseline measured in the same run, printed as JSON.
 * No thresholds: the goals are in DEVELOPERS.md and the issue notes say where we stand.
 */
import { load, ratio, startServer } from './harness';

interface Report {
  [name: string]: unknown;
}

async function httpBaseline(report: Report): Promise<number> {
  const echo = await startServer('echo');
  try {
    const saturated = await load({ url: `${echo.info.url}/echo`, method: 'POST', body: (i) => JSON.stringify({ i }) });
    const at250 = await load({ url: `${echo.info.url}/echo`, method: 'POST', body: (i) => JSON.stringify({ i }), rate: 250, connections: 10 });
    report.echo = { saturated, at250 };
    return saturated.requestsPerSecond;
  } finally {
    await echo.stop();
  }
}

async function cuenta(report: Report, echoRps: number): Promise<void> {
  const engine = await startServer('engine');
  try {
    const saturated = await load({ url: `${engine.info.url}/v1/cuenta`, headers: { 'x-api-key': engine.info.key ?? '' } });
    report.cuenta = { saturated, ratioToEcho: ratio(saturated.requestsPerSecond, echoRps) };
  } finally {
    await engine.stop();
  }
}

const only = process.argv[2];
const report: Report = { machine: { node: process.version, cpus: (await import('node:os')).cpus().length } };
const echoRps = await httpBaseline(report);
if (!only || only === 'cuenta') await cuenta(report, echoRps);
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
