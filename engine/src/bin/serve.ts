/**
 * Headless start (`npm start`): migrates, seeds a demo account on an empty data dir, starts the
 * engine and prints the URLs and demo keys. Serves until SIGINT/SIGTERM, then shuts down cleanly.
 */
import { chmod, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CENSUS_SOAP_PATH, startEmulators } from '../../emulators/index';
import { seedDemoAccount } from '../account/demo';
import { configFromEnv } from '../config';
import { createEngine } from '../index';
import { readDemoKeys } from '../http/panel-api';
import { fileLogger } from '../platform/logger';

export interface DemoKeysFile {
  test: string;
  live: string;
  nifEmisor: string;
  billingUrl: string;
  manageUrl: string;
  panelUrl: string;
  emulatorUrl?: string;
}

async function main(): Promise<void> {
  const config = configFromEnv();
  const logger = fileLogger(path.resolve(config.dataDir), true);
  // The authorities are played by the shipped emulators unless real endpoints are configured.
  const emulators =
    process.env.POS_EMULATORS === 'off'
      ? undefined
      : await startEmulators({ dataDir: path.join(path.resolve(config.dataDir), 'emulators') });
  const aeatUrl = emulators ? `${emulators.url}/wlpl/TIKE-CONT/ws/SistemaFacturacion/VerifactuSOAP` : undefined;
  const engine = await createEngine({
    ...config,
    logger,
    // The built till UI (`vite build`, run by `prestart`), served beside the panel API.
    uiDir: process.env.POS_UI_DIR ?? path.resolve(import.meta.dirname, '../../../out/renderer'),
    ...(emulators ? { emulatorUrl: emulators.url } : {}),
    // The census NIF check: the started emulator unless POS_CENSUS_URL points elsewhere.
    census: { ...config.census, ...(emulators && !process.env.POS_CENSUS_URL ? { url: `${emulators.url}${CENSUS_SOAP_PATH}` } : {}) },
    submission: {
      ...config.submission,
      aeat: {
        url: {
          test: process.env.POS_AEAT_URL_TEST ?? aeatUrl ?? config.submission?.aeat?.url?.test ?? '',
          live: process.env.POS_AEAT_URL_LIVE ?? aeatUrl ?? config.submission?.aeat?.url?.live ?? '',
        },
      },
    },
  });
  const seeded = seedDemoAccount(engine.context);
  const urls = await engine.start();
  const dataDir = engine.context.config.dataDir;
  const known = seeded ?? (await readDemoKeys(dataDir));
  const panelUrl = `${urls.panel}/?token=${engine.panelToken}`;
  const file: DemoKeysFile = {
    test: known?.test ?? '',
    live: known?.live ?? '',
    nifEmisor: known?.nifEmisor ?? '',
    billingUrl: urls.billing,
    manageUrl: urls.manage,
    panelUrl,
    ...(emulators ? { emulatorUrl: emulators.url } : {}),
  };
  const keysPath = path.join(dataDir, 'demo-keys.json');
  await writeFile(keysPath, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  await chmod(keysPath, 0o600);

  process.stdout.write(
    [
      'Till compliance engine ready',
      `  billing API     ${urls.billing}`,
      `  management API  ${urls.manage}`,
      `  till UI / panel ${panelUrl}`,
      ...(emulators ? [`  emulators       ${emulators.url} (AEAT VeriFactu; control at /__control/)`] : []),
      `  TEST key        ${file.test}`,
      `  LIVE key        ${file.live}`,
      `  demo issuer     ${file.nifEmisor}`,
      `  keys file       ${keysPath}`,
      'READY',
      '',
    ].join('\n'),
  );

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down', { signal });
    await engine.stop();
    await emulators?.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((error: unknown) => {
  process.stderr.write(`engine failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
