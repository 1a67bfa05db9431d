/**
 * The Content-Security-Policy of the pages this server serves (the console, `/docs`, the shop):
 * scripts, styles, images, fonts and fetches from this origin only, no plugins, no `<base>`, forms
 * posting here only, and no framing. A page adds sources where it needs more (the hash of an
 * inline script; inline styles; the shop's product images, which stores keep on other origins).
 */
export function sameOriginPolicy(
  extra: { scripts?: readonly string[]; styles?: readonly string[]; images?: readonly string[] } = {},
): string {
  return [
    "default-src 'self'",
    ["script-src 'self'", ...(extra.scripts ?? [])].join(' '),
    ["style-src 'self'", ...(extra.styles ?? [])].join(' '),
    ["img-src 'self' data:", ...(extra.images ?? [])].join(' '),
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}
