import { validationFailed } from '../../lib/errors.js';

/**
 * The browser origins a publishable key answers: what a merchant may list, in the one form a
 * browser sends in `Origin` (RFC 6454's serialisation: lowercase scheme and host, no default
 * port, no path), so a request's origin is compared with the list as a string.
 */

/** Origins a publishable key may list at most. */
export const MAX_ALLOWED_ORIGINS = 20;

/** `scheme://host[:port]` and at most one trailing slash: no user, path, query or fragment. */
const ORIGIN_SHAPE = /^https?:\/\/[^/?#@\\\s]+\/?$/i;

/** A host as URL leaves it: DNS labels (IDNs in punycode) or a bracketed IPv6 address. */
const HOST_SHAPE = /^(?:[a-z0-9_-]+\.)*[a-z0-9_-]+$|^\[[0-9a-f:.]+\]$/;

/** The hosts a development origin may name over plain `http://`. */
const DEVELOPMENT_HOSTS = new Set(['localhost', '127.0.0.1']);

/**
 * `value` as an origin in its normal form (`HTTPS://Shop.Example.com:443/` is
 * `https://shop.example.com`), or why it is not one a key may list: an `https://` origin, or
 * `http://localhost[:port]` / `http://127.0.0.1[:port]` for development.
 */
export function normaliseOrigin(value: string): { origin: string } | { problem: string } {
  const shape =
    'must be an origin: https:// and a host with an optional port, without a path (https://shop.example.com)';
  if (!ORIGIN_SHAPE.test(value)) return { problem: shape };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { problem: shape };
  }
  // No wildcard or other character a browser never sends in an origin's host.
  if (!HOST_SHAPE.test(url.hostname)) return { problem: shape };
  if (url.protocol === 'http:' && !DEVELOPMENT_HOSTS.has(url.hostname)) {
    return {
      problem: 'must use https://; plain http:// is allowed only for http://localhost and http://127.0.0.1',
    };
  }
  return { origin: url.origin };
}

/**
 * An `Origin` header a key could allow: one already in normal form (a browser sends nothing
 * else), else undefined (`null`, an opaque origin, or anything malformed).
 */
export function requestOrigin(header: string | undefined): string | undefined {
  if (header === undefined || header.length > 300) return undefined;
  const normalised = normaliseOrigin(header);
  return 'origin' in normalised && normalised.origin === header ? header : undefined;
}

/**
 * The origins a key is created with, normalised and without repeats; a bad one is a 400 naming
 * it (`allowed_origins[2]`).
 */
export function allowedOrigins(values: readonly string[]): string[] {
  const errors: { field: string; message: string }[] = [];
  const origins = new Set<string>();
  values.forEach((value, index) => {
    const normalised = normaliseOrigin(value);
    if ('origin' in normalised) origins.add(normalised.origin);
    else errors.push({ field: `allowed_origins[${index}]`, message: normalised.problem });
  });
  if (errors.length > 0) throw validationFailed(errors);
  if (origins.size > MAX_ALLOWED_ORIGINS) {
    throw validationFailed([
      { field: 'allowed_origins', message: `must have at most ${MAX_ALLOWED_ORIGINS} origins` },
    ]);
  }
  return [...origins];
}
