/**
 * The API version whose response shapes this code reads: every `/v1` call sends it as
 * `X-Service-Version`, so a store pinned to an older version still gets these shapes. Move it to
 * a newer version together with the code that reads that version's shapes.
 */
export const CONSOLE_API_VERSION = '2026-12-15';
