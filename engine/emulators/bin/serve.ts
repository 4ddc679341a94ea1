import { readFileSync } from 'node:fs';
import { AEAT_SOAP_PATH, startEmulators } from '../index';
import type { TlsOptions } from '../router';

// Usage: tsx engine/emulators/bin/serve.ts
// Env: POS_EMULATOR_PORT (8790), POS_EMULATOR_DATA_DIR (./data/emulators),
// POS_EMULATOR_WAIT_S (60), POS_REFERENCE_DIR, and for mutual TLS
// POS_EMULATOR_TLS_KEY / _CERT / _CA (PEM files, see scripts/make-test-ca.sh);
// POS_EMULATOR_CONTROL_TOKEN: when set, /__control/ checks Host and takes changes only as
// application/json with `x-control-token: <it>` (npm start always guards them with a per-launch one).

function tlsFromEnv(): TlsOptions | undefined {
  const key = process.env.POS_EMULATOR_TLS_KEY;
  const cert = process.env.POS_EMULATOR_TLS_CERT;
  if (!key || !cert) return undefined;
  const ca = process.env.POS_EMULATOR_TLS_CA;
  return {
    key: readFileSync(key),
    cert: readFileSync(cert),
    ...(ca ? { ca: readFileSync(ca) } : {}),
    requestCert: true,
  };
}

// Caught before the emulators start (a signal during the start stops them once they are up):
// Node's default SIGINT/SIGTERM would kill the process without closing them.
let stopAsked: string | undefined;
let stopNow: ((signal: string) => void) | undefined;
const askStop = (signal: string): void => {
  if (stopAsked !== undefined) return;
  stopAsked = signal;
  stopNow?.(signal);
};
process.on('SIGINT', () => askStop('SIGINT'));
process.on('SIGTERM', () => askStop('SIGTERM'));

async function main(): Promise<void> {
  const tls = tlsFromEnv();
  const controlToken = process.env.POS_EMULATOR_CONTROL_TOKEN || undefined;
  const emus = await startEmulators({ ...(tls ? { tls } : {}), ...(controlToken ? { controlToken } : {}) });
  stopNow = (signal) => {
    process.stdout.write(`${signal}: shutting down emulators\n`);
    emus.close().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`shutdown failed: ${String(err)}\n`);
        process.exit(1);
      },
    );
  };
  if (stopAsked !== undefined) return stopNow(stopAsked);
  process.stdout.write(
    `AEAT VeriFactu emulator: ${emus.url}${AEAT_SOAP_PATH}\n` +
      `control API: ${emus.url}/__control/health\n`,
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`emulators failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
