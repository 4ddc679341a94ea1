import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import { forbiddenWebhookAddress } from '../../../src-shared/api/webhooks';

/** One address a host name resolves to (node:dns `lookup` with `all: true`). */
export interface ResolvedAddress {
  address: string;
  family: number;
}

/** How webhook host names are resolved: node:dns by default; tests inject a fixed table. */
export type WebhookResolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: WebhookResolver = (hostname) => lookup(hostname, { all: true, verbatim: true });

/** A creation or change waits this long for DNS; a name that does not resolve by then is checked at delivery. */
const CREATION_LOOKUP_MS = 3000;

export type AddressVerdict =
  /** Refused: why, in words for the caller (the 400 naming `url`, or the failed attempt's error). */
  | { ok: false; problem: string }
  /** Allowed; `pinned`: the vetted address the delivery must connect to (never resolved again). */
  | { ok: true; pinned?: ResolvedAddress };

function isLoopback(address: string): boolean {
  const a = address.toLowerCase();
  return a.startsWith('127.') || a === '::1' || a.startsWith('::ffff:127.') || a.startsWith('::ffff:7f');
}

/** This machine's own addresses (every interface), where the engine or its emulators may listen. */
function machineAddresses(): Set<string> {
  const own = new Set<string>();
  for (const list of Object.values(networkInterfaces())) {
    for (const entry of list ?? []) own.add(entry.address.toLowerCase());
  }
  return own;
}

/**
 * Where a webhook may never be delivered (issue 28): link-local, unspecified, multicast and
 * broadcast addresses, their IPv4-mapped IPv6 forms, and names that resolve to any of them; and
 * the engine's own listening ports and its emulators' port, on loopback or on this machine's
 * addresses (a webhook must not make the engine call its own APIs). Loopback and private-network
 * receivers stay allowed. Checked when a webhook is created or its URL changed, and again before
 * every delivery, whose connection then goes to the address vetted here (DNS rebinding).
 */
export class WebhookAddressPolicy {
  private guarded = new Set<number>();

  constructor(
    private readonly resolve: WebhookResolver = systemResolver,
    private readonly ownAddresses: () => Set<string> = machineAddresses,
  ) {}

  /** The engine's listening ports and the emulators' port, once they are known. */
  guardPorts(ports: readonly number[]): void {
    this.guarded = new Set(ports.filter((p) => Number.isInteger(p) && p > 0));
  }

  get guardedPorts(): number[] {
    return [...this.guarded];
  }

  /**
   * At creation or change: a name that cannot be resolved now is accepted (the receiver may not
   * exist yet); every delivery checks again and sends nothing while it resolves to nothing allowed.
   */
  async checkForCreation(rawUrl: string): Promise<string | null> {
    const verdict = await this.check(rawUrl, { lookupMs: CREATION_LOOKUP_MS, unresolvable: 'accept' });
    return verdict.ok ? null : verdict.problem;
  }

  /** Before a delivery: refused, or the one address to connect to; the lookup within the delivery's time-out. */
  async checkForDelivery(rawUrl: string, timeoutMs?: number): Promise<AddressVerdict> {
    const verdict = await this.check(rawUrl, { unresolvable: 'refuse', ...(timeoutMs !== undefined ? { lookupMs: timeoutMs } : {}) });
    return verdict.ok || verdict.problem.startsWith('no enviada') ? verdict : { ok: false, problem: `no enviada, dirección no permitida: ${verdict.problem}` };
  }

  private async check(rawUrl: string, options: { lookupMs?: number; unresolvable: 'accept' | 'refuse' }): Promise<AddressVerdict> {
    let url: URL;
    try {
      url = new URL(rawUrl);
    } catch {
      return { ok: false, problem: 'url is not a valid absolute URL' };
    }
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    const port = url.port !== '' ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
    let addresses: ResolvedAddress[];
    const byDns = isIP(host) === 0 && host !== 'localhost' && !host.endsWith('.localhost');
    if (host === 'localhost' || host.endsWith('.localhost')) {
      // Loopback by definition (RFC 6761), whatever a resolver says.
      addresses = [{ address: '127.0.0.1', family: 4 }];
    } else if (isIP(host) !== 0) {
      addresses = [{ address: host, family: isIP(host) }];
    } else {
      try {
        addresses = await this.lookup(host, options.lookupMs);
      } catch (error) {
        if (options.unresolvable === 'accept') return { ok: true };
        const code = (error as NodeJS.ErrnoException).code;
        return { ok: false, problem: `no enviada: ${host} no se ha podido resolver${code ? ` (${code})` : ''}` };
      }
      if (addresses.length === 0) {
        return options.unresolvable === 'accept' ? { ok: true } : { ok: false, problem: `no enviada: ${host} no se ha podido resolver` };
      }
    }
    const own = this.guarded.has(port) ? this.ownAddresses() : undefined;
    for (const { address } of addresses) {
      const forbidden = forbiddenWebhookAddress(address);
      if (forbidden !== null) {
        const via = address === host ? '' : ` (${host} resolves to ${address})`;
        return { ok: false, problem: `url must not point to a ${forbidden}${via}: no webhook is delivered there` };
      }
      if (own && (isLoopback(address) || own.has(address.toLowerCase()))) {
        return { ok: false, problem: `url must not point to the engine's own port ${port} (its APIs or its emulators) on this machine` };
      }
    }
    const first = addresses[0]!;
    return { ok: true, ...(byDns ? { pinned: first } : {}) };
  }

  private lookup(host: string, timeoutMs: number | undefined): Promise<ResolvedAddress[]> {
    const resolving = this.resolve(host);
    if (timeoutMs === undefined) return resolving;
    return new Promise<ResolvedAddress[]>((resolve, reject) => {
      const timer = setTimeout(() => reject(Object.assign(new Error('lookup timed out'), { code: 'ETIMEOUT' })), timeoutMs);
      timer.unref();
      resolving.then(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
  }
}

/** The ports of these URLs (the engine's APIs, its emulators), for WebhookAddressPolicy.guardPorts. */
export function portsOf(urls: readonly (string | undefined)[]): number[] {
  const ports: number[] = [];
  for (const raw of urls) {
    if (!raw) continue;
    try {
      const url = new URL(raw);
      ports.push(url.port !== '' ? Number(url.port) : url.protocol === 'https:' ? 443 : 80);
    } catch {
      // Not a URL: nothing to guard.
    }
  }
  return ports;
}
