/**
 * The names of the files this browser sent to import, by import id, kept in its local storage: the
 * API keeps no file name (an import's body is the file alone), so the history names the files sent
 * from here, and says so of the others.
 */

const KEY = 'console.import-file-names';
/** The most names kept: the newest. */
const KEEP = 500;

function read(): [string, string][] {
  try {
    const value: unknown = JSON.parse(localStorage.getItem(KEY) ?? '[]');
    return Array.isArray(value)
      ? value.filter((entry): entry is [string, string] => Array.isArray(entry) && entry.length === 2)
      : [];
  } catch {
    return [];
  }
}

/** Keeps the name of the file an import (or a check) was started with. */
export function rememberFileName(importId: string, fileName: string): void {
  const entries = read().filter(([id]) => id !== importId);
  entries.push([importId, fileName]);
  try {
    localStorage.setItem(KEY, JSON.stringify(entries.slice(-KEEP)));
  } catch {
    // Storage full or refused (a private window): the name is not kept, nothing else is lost.
  }
}

/** The name of the file an import was started with from this browser, if it was. */
export function fileNameOf(importId: string): string | undefined {
  return read().find(([id]) => id === importId)?.[1];
}
