import type { ImportSettings } from '../../api/mutations.js';
import { ConfirmDialog } from '../../components/Dialog.js';
import { formatNumber, plural } from '../../format.js';
import type { Import } from '../../types.js';
import { matchedBy } from './describe.js';

/** "Import “file.csv”?", with what it will do, and what its check found when it had one. */
export function ConfirmImport({
  file,
  settings,
  check,
  busy,
  error,
  onConfirm,
  onClose,
}: {
  file: File;
  settings: ImportSettings;
  check: Import | undefined;
  busy: boolean;
  error: unknown;
  onConfirm: () => void;
  onClose: () => void;
}) {
  const what = settings.resource;
  return (
    <ConfirmDialog
      title={`Import “${file.name}”?`}
      tone="primary"
      confirmLabel="Import"
      busy={busy}
      error={error}
      onClose={onClose}
      onConfirm={onConfirm}
      message={
        <>
          <p>
            This writes to your store’s {what}.{' '}
            {settings.mode === 'upsert'
              ? `Each row matches ${matchedBy(what)} and changes it, or creates a new one.`
              : `Each row creates a new one; a row matching ${matchedBy(what)} is an error.`}{' '}
            {settings.onError === 'abort'
              ? 'If any row has an error, nothing is imported.'
              : 'Rows with errors are skipped; the others are imported.'}
          </p>
          {check ? (
            <p>
              The check of this file found: {formatNumber(check.created_count)} to create,{' '}
              {formatNumber(check.updated_count)} to update, {formatNumber(check.unchanged_count)} unchanged,{' '}
              {plural(check.error_count, 'error')}.
            </p>
          ) : (
            <p>
              This file has not been checked: “Check file” shows what it would do without writing anything.
            </p>
          )}
        </>
      }
    />
  );
}
