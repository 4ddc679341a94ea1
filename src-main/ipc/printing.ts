// till:print — the receipt (already parsed by the router) to the configured printer.
import type { PrintResult, Receipt } from '../../src-shared/bridge';

export function printHandler(print: (receipt: Receipt) => Promise<PrintResult>): (receipt: Receipt) => Promise<PrintResult> {
  return async (receipt) => {
    try {
      return await print(receipt);
    } catch (error) {
      return { ok: false, error: error instanceof Error ? error.message : String(error) };
    }
  };
}
