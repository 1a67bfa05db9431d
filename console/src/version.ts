import { API_VERSION } from '../../clients/typescript/src/generated/operations.js';

/**
 * The API version whose response shapes this code reads: the one the generated client's types
 * (types.ts) describe. Every `/v1` call sends it as `X-Service-Version`, so a store pinned to an
 * older version still gets these shapes; a client generated for a newer version moves the console
 * to it together with the types its code is checked against.
 */
export const CONSOLE_API_VERSION = API_VERSION;
