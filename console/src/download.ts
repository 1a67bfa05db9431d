import type { DownloadedFile } from './api/client.js';

/** Saves a downloaded file (an export) under its name, as a link to it would. */
export function saveDownload({ blob, filename }: DownloadedFile): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // The browser has taken the file by the next task; the URL goes then (a minute later, to be sure).
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
