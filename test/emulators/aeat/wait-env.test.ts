import { afterEach, describe, expect, it } from 'vitest';
import { createAeatEmulator, type AeatEmulator } from '../../../engine/emulators/aeat/index';

const saved = process.env.POS_EMULATOR_WAIT_S;
let emu: AeatEmulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
  if (saved === undefined) delete process.env.POS_EMULATOR_WAIT_S;
  else process.env.POS_EMULATOR_WAIT_S = saved;
});

const waitSeconds = (options: { waitSeconds?: number } = {}) => {
  emu = createAeatEmulator({ xsdPoolSize: 1, ...options });
  return emu.config().waitSeconds;
};

describe("POS_EMULATOR_WAIT_S sets the AEAT emulator's TiempoEsperaEnvio", () => {
  it('defaults to 60 (AEAT’s initial value) when unset or empty', async () => {
    delete process.env.POS_EMULATOR_WAIT_S;
    expect(waitSeconds()).toBe(60);
    await emu?.close();
    process.env.POS_EMULATOR_WAIT_S = '';
    expect(waitSeconds()).toBe(60);
  });

  it('reads the variable, 0 included (no wait)', async () => {
    process.env.POS_EMULATOR_WAIT_S = '5';
    expect(waitSeconds()).toBe(5);
    await emu?.close();
    process.env.POS_EMULATOR_WAIT_S = '0';
    expect(waitSeconds()).toBe(0);
  });

  it('ignores a value that is not a whole number of seconds', () => {
    process.env.POS_EMULATOR_WAIT_S = 'soon';
    expect(waitSeconds()).toBe(60);
  });

  it('an explicit waitSeconds option wins over the variable', () => {
    process.env.POS_EMULATOR_WAIT_S = '5';
    expect(waitSeconds({ waitSeconds: 30 })).toBe(30);
  });
});
