import fs from 'node:fs';

/**
 * DATA_DIR holds the SQLite store (webhook signing secrets among its rows), the TLS key and the
 * demo credentials, so what the server creates there is for its own user only: directories 0700,
 * files 0600, whatever the umask. SQLite creates a database's `-wal` and `-shm` files with the
 * mode of the database file, so a store created 0600 keeps them 0600 too.
 */

/** Creates `dir` and its missing parents 0700; an existing directory keeps its mode. */
export function ensurePrivateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
}

/** The permission bits of `path` that let other users in, or 0; undefined if it does not exist. */
export function openToOthers(path: string): number | undefined {
  const stat = fs.statSync(path, { throwIfNoEntry: false });
  return stat === undefined ? undefined : stat.mode & 0o077;
}

/**
 * Makes `file` readable and writable by this user only: created empty when `create` and missing,
 * and an existing one this user owns that others may read (made by an earlier version) is
 * changed to 0600.
 */
export function ensurePrivateFile(file: string, options: { create?: boolean } = {}): void {
  const stat = fs.statSync(file, { throwIfNoEntry: false });
  if (stat === undefined) {
    if (options.create) fs.closeSync(fs.openSync(file, 'a', 0o600));
    return;
  }
  if ((stat.mode & 0o077) !== 0 && stat.uid === process.getuid?.()) fs.chmodSync(file, 0o600);
}
