import { SEED_TAXPAYERS, type Taxpayer } from '../census-data';

// Fictitious taxpayers of the census service emulator, on top of the shared seed (which the AEAT
// VeriFactu emulator also reads). Every NIF has a valid check character; none of these people or
// companies exist. Names follow the census's own form: surnames first, upper case, for persons.
//
// What each entry is for:
//   persons    — exact, partial ("FERNANDEZ GOMEZ") and accent-insensitive matches; an NIE; a K NIF
//   near-miss  — FERNANDEZ GOMEZ LAURA / FERNANDEZ GOMEZ LAUREANO are two people whose names are
//                one typo apart: a query mixing them answers NO IDENTIFICADO-SIMILAR
//   baja       — a deregistered person and company: IDENTIFICADO-BAJA
//   revocado   — a revoked person NIF and company NIF: IDENTIFICADO-REVOCADO
//   provinces  — companies and self-employed people in Bizkaia, Gipuzkoa and Araba for TicketBAI
// Valid NIFs that are deliberately absent (NO IDENTIFICADO): 44444444A, 55555555K, B88888888.
export const CENSUS_EXTRA_TAXPAYERS: readonly Taxpayer[] = Object.freeze([
  { nif: '23456789D', nombre: 'ETXEBERRIA GOIKOETXEA MIKEL', estado: 'alta' },
  { nif: '34567890V', nombre: 'FERNANDEZ GOMEZ LAURA', estado: 'alta' },
  { nif: '45678901G', nombre: 'FERNANDEZ GOMEZ LAUREANO', estado: 'alta' },
  { nif: '56789012B', nombre: 'RUIZ MORENO ANTONIO', estado: 'baja' },
  { nif: '67890123B', nombre: 'SANCHEZ DIAZ CARMEN', estado: 'revocado' },
  { nif: '78901234X', nombre: 'LOPEZ AGIRRE ANE', estado: 'alta' },
  { nif: 'Y2345678Z', nombre: 'MULLER ANNA', estado: 'alta' },
  { nif: 'K1234567L', nombre: 'PEREZ NUÑEZ LUCIA', estado: 'alta' },
  { nif: 'B48123459', nombre: 'TALLERES BILBAO ZAHARRA SL', estado: 'alta' },
  { nif: 'B20123451', nombre: 'SAGARDOTEGI ERREKA SL', estado: 'alta' },
  { nif: 'B01123454', nombre: 'VINOS RIOJA ALAVESA SL', estado: 'alta' },
  { nif: 'F48765432', nombre: 'COOPERATIVA GOIERRI S COOP', estado: 'alta' },
  { nif: 'B55555551', nombre: 'PANADERIA LA ESPIGA SL', estado: 'alta' },
  { nif: 'B66666660', nombre: 'PANADERIA LA ESPIGA DORADA SL', estado: 'alta' },
  { nif: 'B77777779', nombre: 'GESTORIA EJEMPLO SL', estado: 'alta' },
  { nif: 'B33333337', nombre: 'COMERCIO CERRADO NORTE SL', estado: 'baja' },
  { nif: 'A44444446', nombre: 'INVERSIONES REVOCADAS SA', estado: 'revocado' },
]);

/** The directory the shipped emulators start with: the shared seed plus the census extras. */
export const CENSUS_SEED: readonly Taxpayer[] = Object.freeze([...SEED_TAXPAYERS, ...CENSUS_EXTRA_TAXPAYERS]);
