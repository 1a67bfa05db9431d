/** The API's origin from a base URL as given: no trailing slash, and no `/v1` (the paths carry it). */
export function apiOrigin(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
}
