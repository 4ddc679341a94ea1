// TicketBAI issuing in process, next to the raw RSA-2048 signing rate of node:crypto measured in
// the same run (the goal: issuing ≥ 40 % of the raw rate). One "doc" is what crear does before
// its transaction: zod parse of the body, the XML, the XAdES signature, the identifier, the QR URL
// and the QR PNG, chained invoice after invoice. Run: npx tsx test/bench/ticketbai-sign.ts
import { createPrivateKey, sign as rsaSign } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { Decimal } from 'decimal.js';
import { ticketbaiCrearBody } from '../../src-shared/api/ticketbai';
import { identificadorTbai } from '../../engine/src/regimes/ticketbai/record/identificador';
import { POLITICAS_FIRMA } from '../../engine/src/regimes/ticketbai/politicas';
import { qrTbaiPng, urlQrTbai } from '../../engine/src/regimes/ticketbai/record/qr';
import { signTicketBai, signTicketBaiXmlCrypto, type SignTicketBaiOptions } from '../../engine/src/regimes/ticketbai/record/xades';
import { buildTicketBaiAlta, importeTotalFacturaTbai, type FacturaAnteriorTbai } from '../../engine/src/regimes/ticketbai/record/xml';
import { aCertificadoTbai, aDetalleTbai, aFacturaTbai, aLineaTbai, aSoftwareTbai, GENERADO_EN } from '../engine/ticketbai/fixtures';

export interface TicketbaiSignBenchResult {
  /** Issued documents per second (best round). */
  docsPerSecond: number;
  /** crypto.sign('sha256', ~1 KB, RSA-2048 KeyObject) per second (best round), same run. */
  rawRsaSignaturesPerSecond: number;
  /** docsPerSecond / rawRsaSignaturesPerSecond. */
  ratio: number;
  /** Where the time goes: each stage alone, per second (best round). */
  breakdown: {
    /** signTicketBai on builder output (canonicalInput: no DOM). */
    signCanonicalPerSecond: number;
    /** signTicketBai with the DOM path (one xmldom parse + C14N of the document). */
    signDomPerSecond: number;
    /** xml-crypto's computeSignature for the same signature (reference implementation). */
    signXmlCryptoPerSecond: number;
    /** zod parse + buildTicketBaiAlta. */
    parseAndXmlPerSecond: number;
    qrPngPerSecond: number;
  };
  docs: number;
}

/** Distinct bodies as they arrive from JSON.parse: tickets with one to three lines. */
function sampleBodies(count: number): unknown[] {
  const bodies: unknown[] = [];
  for (let k = 0; k < count; k++) {
    const n = 1 + (k % 3);
    const lineas = [];
    let base = new Decimal(0);
    for (let j = 0; j < n; j++) {
      const unit = new Decimal(((k * 37 + j * 11) % 5000) + 100).dividedBy(100);
      const qty = new Decimal(1 + ((k + j) % 4));
      lineas.push(aLineaTbai({ descripcion: `Artículo ${j} & co`, cantidad: qty.toString(), importeUnitario: unit.toString(), importeTotal: unit.times(qty).times('1.21').toFixed(8) }));
      base = base.plus(unit.times(qty));
    }
    const cuota = base.times('0.21').toDecimalPlaces(2);
    bodies.push(
      JSON.parse(
        JSON.stringify(
          aFacturaTbai({
            numero: String(k),
            importeTotal: base.plus(cuota).toFixed(2),
            desglose: [aDetalleTbai({ baseImponible: base.toFixed(2), cuota: cuota.toFixed(2) })],
            lineas,
          }),
        ),
      ),
    );
  }
  return bodies;
}

/** Best and median of `rounds` timings of `run(n)`, as operations per second. */
function measure(rounds: number, n: number, run: (n: number) => void): { best: number; median: number } {
  const rates: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = process.hrtime.bigint();
    run(n);
    rates.push((n * 1e9) / Number(process.hrtime.bigint() - t0));
  }
  rates.sort((a, b) => a - b);
  return { best: rates[rates.length - 1] ?? 0, median: rates[Math.floor(rates.length / 2)] ?? 0 };
}

export async function benchTicketbaiSign(options: { docs?: number; rounds?: number } = {}): Promise<TicketbaiSignBenchResult> {
  const docsPerRound = options.docs ?? 2_000;
  const rounds = options.rounds ?? 5;
  const cert = aCertificadoTbai();
  const software = aSoftwareTbai();
  const bodies = sampleBodies(512);
  const firma: SignTicketBaiOptions = {
    privateKeyPem: cert.privateKeyPem,
    certificatePem: cert.certificatePem,
    policy: POLITICAS_FIRMA.gipuzkoa,
    signingTime: GENERADO_EN,
  };

  const key = createPrivateKey(cert.privateKeyPem);
  const signedInfoLike = Buffer.alloc(1200, 'SignedInfo ');
  const raw = (n: number) => {
    for (let i = 0; i < n; i++) rsaSign('sha256', signedInfoLike, key);
  };

  let anterior: FacturaAnteriorTbai | null = null;
  let i = 0;
  const issue = (n: number, qr: boolean) => {
    for (let k = 0; k < n; k++, i++) {
      const factura = ticketbaiCrearBody.parse(bodies[i % bodies.length]);
      const xml = buildTicketBaiAlta({ factura, anterior, software, generadoEn: GENERADO_EN });
      const { signatureValue } = signTicketBai(xml, { ...firma, canonicalInput: true });
      const idTbai = identificadorTbai({ nif: factura.emisor.nif, fechaExpedicion: factura.fechaExpedicion, signatureValue });
      const url = urlQrTbai({ provincia: factura.provincia, entorno: 'test', idTbai, serie: factura.serie, numero: factura.numero, importeTotal: importeTotalFacturaTbai(factura) });
      if (qr) qrTbaiPng(url);
      anterior = { serie: factura.serie, numero: factura.numero, fechaExpedicion: factura.fechaExpedicion, signatureValue };
    }
  };
  const xmls = bodies.slice(0, 64).map((b) => buildTicketBaiAlta({ factura: ticketbaiCrearBody.parse(b), anterior: null, software, generadoEn: GENERADO_EN }));
  const stage = (f: (xml: string) => unknown) => (n: number) => {
    for (let k = 0; k < n; k++) f(xmls[k % xmls.length] ?? '');
  };

  // Warm up the JIT (and the per-certificate caches) before any timing.
  raw(200);
  issue(Math.min(docsPerRound, 500), true);

  // Interleaved rounds, best of each: the machine is shared, and a descheduled round measures
  // the neighbours, not this code.
  const rawRates: number[] = [];
  const docRates: number[] = [];
  for (let r = 0; r < rounds; r++) {
    rawRates.push(measure(1, docsPerRound, raw).best);
    docRates.push(measure(1, docsPerRound, (n) => issue(n, true)).best);
  }
  const best = (xs: number[]) => Math.max(...xs);
  const rawRsaSignaturesPerSecond = best(rawRates);
  const docsPerSecond = best(docRates);

  const small = Math.max(50, Math.floor(docsPerRound / 10));
  const breakdown = {
    signCanonicalPerSecond: Math.round(measure(rounds, docsPerRound, stage((xml) => signTicketBai(xml, { ...firma, canonicalInput: true }))).best),
    signDomPerSecond: Math.round(measure(rounds, docsPerRound, stage((xml) => signTicketBai(xml, firma))).best),
    signXmlCryptoPerSecond: Math.round(measure(Math.min(rounds, 3), small, stage((xml) => signTicketBaiXmlCrypto(xml, firma))).best),
    parseAndXmlPerSecond: Math.round(
      measure(rounds, docsPerRound, (n) => {
        for (let k = 0; k < n; k++) buildTicketBaiAlta({ factura: ticketbaiCrearBody.parse(bodies[k % bodies.length]), anterior: null, software, generadoEn: GENERADO_EN });
      }).best,
    ),
    qrPngPerSecond: Math.round(measure(rounds, docsPerRound, (n) => {
      for (let k = 0; k < n; k++) qrTbaiPng(`https://tbai.prep.gipuzkoa.eus/qr/?id=TBAI-B12345674-020326-${String(k).padStart(13, 'x')}-123&s=T&nf=${k}&i=12.10&cr=123`);
    }).best),
  };
  return {
    docsPerSecond: Math.round(docsPerSecond),
    rawRsaSignaturesPerSecond: Math.round(rawRsaSignaturesPerSecond),
    ratio: Math.round((docsPerSecond / rawRsaSignaturesPerSecond) * 1000) / 1000,
    breakdown,
    docs: docsPerRound * rounds,
  };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(JSON.stringify(await benchTicketbaiSign(), null, 2));
}
