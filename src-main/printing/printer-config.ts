// Which printer the till uses, kept in userData/printer.json (support staff edit it; the settings
// screen shows it). Parsed with zod: a broken file falls back to the system's default printer.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

const ancho = z.union([z.literal(80), z.literal(58)]).default(80);

export const printerConfigSchema = z.discriminatedUnion('tipo', [
  /** The OS printer (driver), printed without a dialog: `nombre` or the default printer. */
  z.strictObject({ tipo: z.literal('sistema'), nombre: z.string().min(1).optional(), ancho }),
  /** A thermal printer on the network speaking ESC/POS (raw TCP, usually port 9100). */
  z.strictObject({ tipo: z.literal('escpos-red'), host: z.string().min(1), puerto: z.number().int().min(1).max(65535).default(9100), ancho, modelo: z.string().optional() }),
  /** A thermal printer as a device file (/dev/usb/lp0, a serial port…). */
  z.strictObject({ tipo: z.literal('escpos-dispositivo'), ruta: z.string().min(1), ancho, modelo: z.string().optional() }),
  z.strictObject({ tipo: z.literal('ninguna'), ancho }),
]);
export type PrinterConfig = z.infer<typeof printerConfigSchema>;

export const DEFAULT_PRINTER: PrinterConfig = { tipo: 'sistema', ancho: 80 };

export function loadPrinterConfig(userDataDir: string, warn: (message: string) => void = () => {}): PrinterConfig {
  const file = path.join(userDataDir, 'printer.json');
  let raw: string;
  try {
    raw = readFileSync(file, 'utf8');
  } catch {
    return DEFAULT_PRINTER;
  }
  try {
    return printerConfigSchema.parse(JSON.parse(raw));
  } catch (error) {
    warn(`printer.json is not valid, using the system printer: ${error instanceof Error ? error.message : String(error)}`);
    return DEFAULT_PRINTER;
  }
}
