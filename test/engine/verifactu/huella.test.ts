import { describe, expect, it } from 'vitest';
import { cadenaHuellaAlta, huellaAlta, huellaAnulacion } from '../../../engine/src/regimes/verifactu/record/huella';

const H1 = '3C464DAF61ACB827C65FDA19F352A4E3BDC2C640E9E9FC4CC058073F38F12F60';
const H2 = 'F7B94CFD8924EDFF273501B01EE5153E4CE8F259766F88CF6ACB8935802A2B97';
const H3 = '177547C0D57AC74748561D054A9CEC14B4C4EA23D1BEFD6F2E69E3A388F90C68';

describe('Huella: official examples of the AEAT hash specification', () => {
  it('Caso 1: first record (alta), Huella empty', () => {
    expect(
      huellaAlta({
        IDEmisorFactura: '89890001K',
        NumSerieFactura: '12345678/G33',
        FechaExpedicionFactura: '01-01-2024',
        TipoFactura: 'F1',
        CuotaTotal: '12.35',
        ImporteTotal: '123.45',
        Huella: null,
        FechaHoraHusoGenRegistro: '2024-01-01T19:20:30+01:00',
      }),
    ).toBe(H1);
  });

  it('Caso 2: second record (alta), chained to caso 1', () => {
    expect(
      huellaAlta({
        IDEmisorFactura: '89890001K',
        NumSerieFactura: '12345679/G34',
        FechaExpedicionFactura: '01-01-2024',
        TipoFactura: 'F1',
        CuotaTotal: '12.35',
        ImporteTotal: '123.45',
        Huella: H1,
        FechaHoraHusoGenRegistro: '2024-01-01T19:20:35+01:00',
      }),
    ).toBe(H2);
  });

  it('Caso 3: cancellation of caso 2, chained to it', () => {
    expect(
      huellaAnulacion({
        IDEmisorFacturaAnulada: '89890001K',
        NumSerieFacturaAnulada: '12345679/G34',
        FechaExpedicionFacturaAnulada: '01-01-2024',
        Huella: H2,
        FechaHoraHusoGenRegistro: '2024-01-01T19:20:40+01:00',
      }),
    ).toBe(H3);
  });
});

describe('Huella: values trimmed, absent value written as "Name="', () => {
  const campos = {
    IDEmisorFactura: '89890001K',
    NumSerieFactura: ' 12345678/G33 ',
    FechaExpedicionFactura: '01-01-2024',
    TipoFactura: 'F1',
    CuotaTotal: '12.35',
    ImporteTotal: '123.45',
    FechaHoraHusoGenRegistro: '2024-01-01T19:20:30+01:00',
  };

  it('writes Huella= when there is no previous record', () => {
    expect(cadenaHuellaAlta(campos)).toBe(
      'IDEmisorFactura=89890001K&NumSerieFactura=12345678/G33&FechaExpedicionFactura=01-01-2024&TipoFactura=F1&CuotaTotal=12.35&ImporteTotal=123.45&Huella=&FechaHoraHusoGenRegistro=2024-01-01T19:20:30+01:00',
    );
  });

  it('hashes trimmed values (same result as caso 1)', () => {
    expect(huellaAlta(campos)).toBe(H1);
  });

  it('is 64 upper-case hex characters', () => {
    expect(huellaAlta({ ...campos, Huella: H1 })).toMatch(/^[0-9A-F]{64}$/);
  });
});
