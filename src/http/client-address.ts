import ipaddr from 'ipaddr.js';
import { LRUCache } from 'lru-cache';

/**
 * What a throttle counts a client by: its address (`request.ip`), an IPv6 address by its /64
 * (one host or one home network gets a whole /64, so counting single addresses would count
 * nothing), an IPv4-mapped IPv6 address as the IPv4 address it is.
 */
export function clientAddressKey(address: string): string {
  if (!address.includes(':')) return address;
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return address;
  }
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  return `${new ipaddr.IPv6([...v6.parts.slice(0, 4), 0, 0, 0, 0]).toNormalizedString()}/64`;
}

export interface FailureWindowRule {
  /** Failures within `windowMs` at which a client is refused. */
  limit: number;
  windowMs: number;
  /** Clients remembered at most; the one whose last failure is oldest is forgotten first. */
  maxClients: number;
}

/**
 * Failures per client in a sliding window, in this process's memory: the instants of each
 * client's last `limit` failures. A client is over when its `limit`-th latest failure is still
 * inside the window, until that failure leaves it. Memory is at most `maxClients * limit` instants.
 */
export function createFailureWindow(rule: FailureWindowRule) {
  const { limit, windowMs, maxClients } = rule;
  /** Each client's latest failures, oldest first; the least recently failing client goes first. */
  const failures = new LRUCache<string, number[]>({ max: maxClients });

  return {
    /** Milliseconds until `client` is under the limit again; 0 when it is. */
    waitMs(client: string, now: number): number {
      const instants = failures.peek(client);
      if (instants === undefined || instants.length < limit) return 0;
      return Math.max(0, (instants[0] ?? 0) + windowMs - now);
    },

    record(client: string, now: number): void {
      const instants = failures.get(client) ?? [];
      instants.push(now);
      if (instants.length > limit) instants.shift();
      failures.set(client, instants);
    },
  };
}

export type FailureWindow = ReturnType<typeof createFailureWindow>;
