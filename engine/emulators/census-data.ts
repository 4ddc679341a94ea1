import { z } from 'zod';

// Fictitious taxpayers shared by the AEAT emulator and the future census
// emulator. Check digits are valid so engine-side NIF validation passes; the
// people and companies do not exist.

export const TaxpayerEstado = z.enum(['alta', 'baja', 'revocado']);
export type TaxpayerEstado = z.infer<typeof TaxpayerEstado>;

export const TaxpayerSchema = z.object({
  nif: z
    .string()
    .trim()
    .toUpperCase()
    .regex(/^[0-9A-Z]{9}$/, 'NIF must be 9 letters/digits'),
  nombre: z.string().trim().min(1).max(120),
  estado: TaxpayerEstado.default('alta'),
});
export type Taxpayer = z.output<typeof TaxpayerSchema>;

export const SEED_TAXPAYERS: readonly Taxpayer[] = Object.freeze([
  { nif: 'B12345674', nombre: 'COMERCIAL DEMO SL', estado: 'alta' }, // demo account
  { nif: '89890001K', nombre: 'CONTRIBUYENTE PRUEBAS AEAT', estado: 'alta' }, // AEAT's example NIF
  { nif: '89890002E', nombre: 'PRESENTADOR PRUEBAS AEAT', estado: 'alta' }, // presenter in AEAT examples
  { nif: '12345678Z', nombre: 'GARCIA LOPEZ MARIA', estado: 'alta' },
  { nif: '11111111H', nombre: 'PEREZ MARTIN JUAN', estado: 'alta' },
  { nif: 'X1234567L', nombre: 'SMITH JOHN', estado: 'alta' },
  { nif: 'A23456783', nombre: 'DISTRIBUCIONES EJEMPLO SA', estado: 'alta' },
  { nif: 'B76543214', nombre: 'CAFETERIA LA PRUEBA SL', estado: 'alta' },
  { nif: 'B99999997', nombre: 'ASESORIA FISCAL MODELO SL', estado: 'alta' },
  { nif: 'B22222228', nombre: 'TIENDA CERRADA SL', estado: 'baja' }, // deregistered
  { nif: 'A11111119', nombre: 'SOCIEDAD REVOCADA SA', estado: 'revocado' }, // NIF revoked
]);

/**
 * In-memory census. "Identified" follows AEAT's wording: a deregistered (baja)
 * taxpayer still exists in the census and may send records for past invoices;
 * a revoked NIF does not identify anyone.
 */
export class CensusDirectory {
  private readonly byNif = new Map<string, Taxpayer>();

  constructor(private readonly seed: readonly Taxpayer[] = SEED_TAXPAYERS) {
    this.reset();
  }

  get(nif: string): Taxpayer | undefined {
    return this.byNif.get(nif.trim().toUpperCase());
  }

  isIdentified(nif: string): boolean {
    const t = this.get(nif);
    return t !== undefined && t.estado !== 'revocado';
  }

  /** Adds or replaces a taxpayer. */
  addTaxpayer(input: z.input<typeof TaxpayerSchema>): Taxpayer {
    const t = TaxpayerSchema.parse(input);
    this.byNif.set(t.nif, t);
    return t;
  }

  list(): Taxpayer[] {
    return [...this.byNif.values()];
  }

  /** Back to the seed set (drops taxpayers added at run time). */
  reset(): void {
    this.byNif.clear();
    for (const t of this.seed) this.byNif.set(t.nif, { ...t });
  }
}
