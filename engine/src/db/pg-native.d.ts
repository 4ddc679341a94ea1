// pg-native ships no types: the part of its synchronous API the PostgreSQL seam uses (db/postgres.ts).
declare module 'pg-native' {
  interface TypeParsers {
    getTypeParser(oid: number, format?: string): (value: string) => unknown;
  }
  interface PQ {
    cmdTuples(): string;
    transactionStatus(): number;
    resultErrorFields(): { sqlState?: string } | null;
    errorMessage(): string;
    finish(): void;
  }
  class Client {
    constructor(config?: { types?: TypeParsers });
    readonly pq: PQ;
    connectSync(params?: string): void;
    querySync(text: string, values?: unknown[]): Record<string, unknown>[];
    prepareSync(statementName: string, text: string, nParams: number): void;
    executeSync(statementName: string, parameters: unknown[]): Record<string, unknown>[];
    end(cb?: () => void): void;
  }
  export default Client;
}
