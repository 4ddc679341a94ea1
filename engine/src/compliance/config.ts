/** Who made this software and how it identifies itself to the AEAT (SistemaInformatico). */
export interface SoftwareIdentity {
  productorNombre: string;
  productorNif: string;
  nombreSistema: string;
  /** IdSistemaInformatico: two characters assigned by the producer. */
  idSistema: string;
  version: string;
  /** TicketBAI software licence (assigned by the treasuries). */
  licenciaTbai: string;
}

export const DEFAULT_SOFTWARE: SoftwareIdentity = {
  productorNombre: 'TPV Cumple SL',
  productorNif: 'B87654323',
  nombreSistema: 'TPV Cumple',
  idSistema: 'TC',
  version: '0.1.0',
  licenciaTbai: 'TBAIPRUEBA0000000001',
};
