import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { AppError } from '../../lib/errors.js';

/**
 * SSRF defence for webhook URLs. A URL must be https without credentials, and every address its
 * host stands for must be public unicast. The check runs when a URL is registered and again on
 * every connection a delivery opens: the connection resolves the name through `guardedLookup`,
 * which validates each address before the socket connects to exactly that address, so a name that
 * re-resolves to a private address after registration (DNS rebinding) is refused at send time.
 */

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to every address it has. Injected so tests never touch real DNS. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = (hostname) =>
  dns.promises.lookup(hostname, { all: true, verbatim: true });

/** Thrown by the connection's lookup when an address is refused. */
export class BlockedAddressError extends Error {
  readonly code = 'ERR_WEBHOOK_BLOCKED_ADDRESS';
  constructor(message: string) {
    super(message);
    this.name = 'BlockedAddressError';
  }
}

const RANGE_NAMES: Record<string, string> = {
  unspecified: 'an unspecified',
  broadcast: 'a broadcast',
  multicast: 'a multicast',
  linkLocal: 'a link-local',
  loopback: 'a loopback',
  carrierGradeNat: 'a carrier-grade NAT',
  private: 'a private',
  uniqueLocal: 'a unique-local (private)',
  ipv4Mapped: 'an IPv4-mapped',
  rfc6145: 'an IPv4-translated',
  rfc6052: 'an IPv4/IPv6 translation',
  '6to4': 'a 6to4',
  teredo: 'a Teredo',
};

// Everything routable on the IPv6 internet today is inside 2000::/3; the rest is special use.
const IPV6_GLOBAL_UNICAST = ipaddr.IPv6.parse('2000::');

/** Why `address` must not be called, or undefined for a public unicast address. */
export function blockedReason(address: string): string | undefined {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return `${address} is not an IP address`;
  }
  const range = parsed.range();
  if (range !== 'unicast') return `${address} is ${RANGE_NAMES[range] ?? 'a reserved'} address`;
  if (parsed.kind() === 'ipv6' && !(parsed as ipaddr.IPv6).match(IPV6_GLOBAL_UNICAST, 3)) {
    return `${address} is a reserved address`;
  }
  return undefined;
}

function refuse(detail: string): AppError {
  return new AppError('invalid_webhook_url', detail);
}

/** The URL's host without IPv6 brackets. */
export function hostOf(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/**
 * Parses and checks what needs no DNS: scheme, credentials, and the address when the host is an
 * IP literal (the WHATWG parser has already turned `2130706433` and `0x7f.0.0.1` into 127.0.0.1).
 * Throws 422 `invalid_webhook_url`.
 */
export function parseWebhookUrl(raw: string, allowInsecure: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refuse('url must be an absolute URL.');
  }
  const schemes = allowInsecure ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) throw refuse('url must use https.');
  if (url.username !== '' || url.password !== '') throw refuse('url must not contain credentials.');
  const host = hostOf(url);
  if (host === '') throw refuse('url must name a host.');
  if (!allowInsecure && net.isIP(host) !== 0) {
    const reason = blockedReason(host);
    if (reason) throw refuse(`url must not point at a non-public address: ${reason}.`);
  }
  return url;
}

/** Resolves `hostname` and refuses it when any address is not public unicast. */
async function resolvePublic(resolve: Resolver, hostname: string): Promise<ResolvedAddress[]> {
  const addresses = await resolve(hostname);
  if (addresses.length === 0) throw new BlockedAddressError(`${hostname} has no address`);
  for (const { address } of addresses) {
    const reason = blockedReason(address);
    if (reason) throw new BlockedAddressError(`${hostname} resolves to a non-public address (${reason})`);
  }
  return addresses;
}

/** The registration check: syntax, scheme, credentials and every resolved address. */
export async function assertSafeWebhookUrl(
  raw: string,
  options: { allowInsecure: boolean; resolve: Resolver },
): Promise<string> {
  const url = parseWebhookUrl(raw, options.allowInsecure);
  const host = hostOf(url);
  if (!options.allowInsecure && net.isIP(host) === 0) {
    try {
      await resolvePublic(options.resolve, host);
    } catch (error) {
      if (error instanceof BlockedAddressError) throw refuse(`url is refused: ${error.message}.`);
      throw refuse(`url host ${host} could not be resolved.`);
    }
  }
  return url.href;
}

/**
 * A `lookup` for `net.connect`/`tls.connect`: resolves through `resolve`, refuses the whole name
 * when any address is not public (unless `allowInsecure`), and hands the socket the validated
 * addresses only, so the connection goes to an address that was checked.
 */
export function guardedLookup(resolve: Resolver, allowInsecure: boolean): LookupFunction {
  return (hostname, options, callback) => {
    const found = allowInsecure ? resolve(hostname) : resolvePublic(resolve, hostname);
    found.then(
      (addresses) => {
        const family = options.family === 4 || options.family === 6 ? options.family : undefined;
        const usable = family ? addresses.filter((a) => a.family === family) : addresses;
        const first = usable[0];
        if (!first) {
          callback(new BlockedAddressError(`${hostname} has no IPv${family ?? ''} address`), '', 0);
        } else if (options.all) {
          callback(
            null,
            usable.map((a) => ({ address: a.address, family: a.family })),
          );
        } else {
          callback(null, first.address, first.family);
        }
      },
      (error: unknown) => {
        const failure = error instanceof Error ? error : new Error(String(error));
        callback(failure as NodeJS.ErrnoException, '', 0);
      },
    );
  };
}
