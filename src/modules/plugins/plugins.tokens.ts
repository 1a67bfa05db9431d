import { randomBase62 } from '../../lib/ids.js';
import { APP_TOKEN_PREFIX, hashKey } from '../api-keys/index.js';

/** A new installation token: its value (sent once, in `app.installed`), its SHA-256 and last four. */
export function mintInstallationToken(): { value: string; hash: string; last4: string } {
  const value = APP_TOKEN_PREFIX + randomBase62(40);
  return { value, hash: hashKey(value), last4: value.slice(-4) };
}
