// Issuing one sale with the till's numbering, safe against the three ways a number goes wrong:
//  - the counter was lost and the number is taken: the engine answers a replay (`yaExistente`) of
//    another sale, or 409 INVOICE_IDENTITY_CONFLICT → the next number, never the other sale's QR;
//  - the key's per-second limit (429 RATE_LIMITED, nothing written) → wait Retry-After and resend;
//  - no definitive answer (network failure, 5xx): the sale may be on disk → the next attempt of the
//    same sale reuses its number and takes the replay as its own answer (never a double ticket).
import { ApiError } from '../../api/engine-client';
import type { Numbering, NumberingScope } from './numbering';

export interface EmisionAnswer {
  idFactura: string;
  numeroFactura: string;
  urlValidacion: string;
  qrBase64: string;
  huella?: string | undefined;
  idTbai?: string | undefined;
  avisos?: string[] | undefined;
  yaExistente?: boolean | undefined;
}

export interface IssueRequest {
  scope: NumberingScope;
  /** The sale's content (lines, type, customer, date): the same sale retried has the same key. */
  key: string;
  /** A correction (subsanar) keeps its identity: no numbering. */
  fixedNumero?: string | undefined;
  send(numero: string): Promise<EmisionAnswer>;
}

export interface IssueResult {
  answer: EmisionAnswer;
  numero: string;
  /** The first number was taken: issued with a later one. */
  renumbered: boolean;
}

export class SaleIssuer {
  private unanswered: { key: string; numero: string } | undefined;

  constructor(
    private readonly numbering: Numbering,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  ) {}

  async issue(req: IssueRequest): Promise<IssueResult> {
    const fixed = req.fixedNumero !== undefined;
    const retry = !fixed && this.unanswered?.key === req.key ? this.unanswered : undefined;
    let numero = req.fixedNumero ?? retry?.numero ?? this.numbering.peek(req.scope);
    let acceptReplay = retry !== undefined;
    let renumbered = false;
    const next = () => {
      this.numbering.commit(req.scope, numero);
      numero = this.numbering.peek(req.scope);
      acceptReplay = false;
      renumbered = true;
    };
    for (let attempt = 0; ; attempt++) {
      let answer: EmisionAnswer;
      try {
        answer = await req.send(numero);
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        if (!fixed && error.code === 'INVOICE_IDENTITY_CONFLICT' && attempt < 50) {
          next();
          continue;
        }
        if (error.code === 'RATE_LIMITED' && (error.retryAfterSeconds ?? 1) <= 2 && attempt < 5) {
          await this.sleep((error.retryAfterSeconds ?? 1) * 1000);
          continue;
        }
        if (!fixed && (error.status === 0 || error.status >= 500)) this.unanswered = { key: req.key, numero };
        throw error;
      }
      if (answer.yaExistente && !fixed && !acceptReplay && attempt < 50) {
        next();
        continue;
      }
      this.unanswered = undefined;
      if (!fixed) this.numbering.commit(req.scope, numero);
      return { answer, numero, renumbered };
    }
  }
}
