// What the AEAT and TicketBAI test harnesses share: a hand-moved clock,
// deterministic ids, starting an emulator on a free port, and its JSON control API.

/** A clock tests move by hand. */
export class TestClock {
  constructor(public ms: number) {}
  now = (): Date => new Date(this.ms);
  advance(seconds: number): void {
    this.ms += seconds * 1000;
  }
}

export const T0 = Date.parse('2025-03-01T10:00:00Z');

/** Ids `test-1`, `test-2`, … (the emulators hash them into CSVs and identifiers). */
export function testIds(): () => string {
  let n = 0;
  return () => `test-${++n}`;
}

/** Listens on a free local port, waits for the XSD workers to warm up, and returns the base URL. */
export async function listenWarm(emu: { listen(port?: number): Promise<number>; ready(): Promise<void> }): Promise<string> {
  const port = await emu.listen(0);
  await emu.ready();
  return `http://127.0.0.1:${port}`;
}

/** Calls the JSON control API: the status and the parsed body (null when empty). */
export function controlClient(base: string): (method: string, path: string, body?: unknown) => Promise<{ status: number; json: unknown }> {
  return async (method, path, body) => {
    const r = await fetch(base + path, {
      method,
      ...(body !== undefined ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}),
    });
    const t = await r.text();
    return { status: r.status, json: t ? (JSON.parse(t) as unknown) : null };
  };
}
