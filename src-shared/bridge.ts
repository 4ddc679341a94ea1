// The preload bridge between the till window and the Electron main process (STYLE.md, "The bridge
// is small and typed"). The preload exposes one object, `window.till`, that `satisfies TillBridge`;
// main parses every argument with these schemas. zod only: shared by main, preload and renderer.
import { z } from 'zod';

/** The only IPC channels the till window may use: an allow-list, checked in preload and in main. */
export const TILL_CHANNELS = {
  print: 'till:print',
  deviceInfo: 'till:device-info',
  appInfo: 'till:app-info',
} as const;
export type TillChannel = (typeof TILL_CHANNELS)[keyof typeof TILL_CHANNELS];
export const TILL_CHANNEL_LIST: readonly TillChannel[] = Object.values(TILL_CHANNELS);

export function isTillChannel(channel: unknown): channel is TillChannel {
  return typeof channel === 'string' && (TILL_CHANNEL_LIST as readonly string[]).includes(channel);
}

const amount = z.string().regex(/^-?\d{1,12}(\.\d{1,8})?$/, { error: 'amount must be a decimal string' });
const shortText = (max: number) => z.string().max(max);

/** The QR of the fiscal system, printed 30–40 mm with its legend (FACTS.md, "VeriFactu QR"). */
export const receiptQrSchema = z.discriminatedUnion('sistema', [
  z.strictObject({
    sistema: z.literal('verifactu'),
    /** The AEAT validation URL the QR encodes. */
    url: z.url({ protocol: /^https$/ }).max(600),
  }),
  z.strictObject({
    sistema: z.literal('ticketbai'),
    url: z.url({ protocol: /^https$/ }).max(600),
    /** The TicketBAI identifier, printed under its QR. */
    idTbai: shortText(39),
  }),
]);
export type ReceiptQr = z.infer<typeof receiptQrSchema>;

export const receiptLineSchema = z.strictObject({
  descripcion: shortText(120),
  cantidad: amount,
  precio: amount,
  importe: amount,
  tipoIva: amount,
});

/** A receipt to print: what the customer's ticket shows, already computed by the till. */
export const receiptSchema = z.strictObject({
  /** Paper width in mm. */
  ancho: z.union([z.literal(80), z.literal(58)]),
  emisor: z.strictObject({ nif: shortText(20), nombre: shortText(120) }),
  titulo: shortText(80),
  numeroFactura: shortText(120),
  fechaExpedicion: shortText(10),
  hora: shortText(8).optional(),
  tipoFactura: z.enum(['F1', 'F2', 'F3', 'R1', 'R2', 'R3', 'R4', 'R5']),
  destinatario: z.strictObject({ nif: shortText(20), nombre: shortText(120), direccion: shortText(200).optional() }).optional(),
  /** A rectifying ticket names the invoice it corrects ("Rectifica la factura T-1 del 25/11/2026"). */
  rectifica: shortText(200).optional(),
  /** The ticket's words in the shop's document language (Spanish when absent). */
  etiquetas: z
    .strictObject({ cliente: shortText(60), base: shortText(60), cuota: shortText(60), total: shortText(60), copia: shortText(60), fecha: shortText(60) })
    .optional(),
  lineas: z.array(receiptLineSchema).max(500),
  desglose: z.array(z.strictObject({ tipoIva: amount, base: amount, cuota: amount })).max(12),
  cuotaTotal: amount,
  importeTotal: amount,
  qr: receiptQrSchema,
  /** "COPIA" on a reprint. */
  copia: z.boolean().optional(),
  pie: shortText(500).optional(),
  /** The till (idMaquina) that issued it. */
  caja: shortText(64).optional(),
});
export type Receipt = z.infer<typeof receiptSchema>;

export const printResultSchema = z.discriminatedUnion('ok', [
  z.strictObject({ ok: z.literal(true), via: z.enum(['sistema', 'escpos']), impresora: z.string() }),
  z.strictObject({ ok: z.literal(false), error: z.string() }),
]);
export type PrintResult = z.infer<typeof printResultSchema>;

export const deviceInfoSchema = z.strictObject({
  /** Stable till identity, sent as `idMaquina` with every sale. */
  idMaquina: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/),
  nombreEquipo: z.string(),
  plataforma: z.string(),
  impresora: z.strictObject({
    tipo: z.enum(['sistema', 'escpos-red', 'escpos-dispositivo', 'ninguna']),
    nombre: z.string(),
    ancho: z.union([z.literal(80), z.literal(58)]),
  }),
});
export type DeviceInfo = z.infer<typeof deviceInfoSchema>;

export const appInfoSchema = z.strictObject({
  nombre: z.string(),
  version: z.string(),
  electron: z.string(),
  /** The panel API's origin and per-launch token (the renderer needs no ?token= in Electron). */
  panelUrl: z.string(),
  panelToken: z.string(),
  carpetaDatos: z.string(),
  archivoLog: z.string(),
  motor: z.enum(['arrancando', 'listo', 'reiniciando', 'detenido']),
});
export type AppInfo = z.infer<typeof appInfoSchema>;

/** Arguments of each channel, as main parses them. */
export const tillChannelArgs = {
  [TILL_CHANNELS.print]: z.tuple([receiptSchema]),
  [TILL_CHANNELS.deviceInfo]: z.tuple([]),
  [TILL_CHANNELS.appInfo]: z.tuple([]),
} as const satisfies Record<TillChannel, z.ZodType<unknown[]>>;

/** `window.till` in the Electron till window; absent in a plain browser (headless UI). */
export interface TillBridge {
  print(receipt: Receipt): Promise<PrintResult>;
  deviceInfo(): Promise<DeviceInfo>;
  appInfo(): Promise<AppInfo>;
}
