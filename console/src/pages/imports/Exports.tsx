import { useState } from 'react';
import { describeFailure } from '../../api/errors.js';
import { downloadExport, type ExportResource } from '../../api/queries.js';
import { useToast } from '../../components/Toast.js';
import { saveDownload as save } from '../../download.js';

const EXPORTS: { resource: ExportResource; label: string; note: string }[] = [
  { resource: 'products', label: 'Products', note: 'One row per variant; imports back as it is.' },
  { resource: 'customers', label: 'Customers', note: 'One row per address; imports back as it is.' },
  { resource: 'orders', label: 'Orders', note: 'One row per order line.' },
];

const EXPORT_FORMATS: { format: 'csv' | 'jsonl'; label: string }[] = [
  { format: 'csv', label: 'CSV' },
  { format: 'jsonl', label: 'JSON Lines' },
];

/** Every row of the store as a file, fetched through the session and saved under the server's name. */
export function Exports() {
  const toast = useToast();
  const [busy, setBusy] = useState<string>();

  async function download(resource: ExportResource, format: 'csv' | 'jsonl') {
    const key = `${resource} ${format}`;
    setBusy(key);
    try {
      const file = await downloadExport(resource, format);
      save(file);
      toast(`Downloaded ${file.filename}.`);
    } catch (failure) {
      toast(describeFailure(failure), 'error');
    } finally {
      setBusy(undefined);
    }
  }

  return (
    <section className="card" aria-labelledby="exports-title">
      <div className="card-header">
        <h2 id="exports-title">Exports</h2>
        <span className="hint">Every row of the store: CSV for spreadsheets, JSON Lines for programs</span>
      </div>
      <ul className="export-list">
        {EXPORTS.map(({ resource, label, note }) => (
          <li key={resource} className="export-item">
            <div>
              <strong>{label}</strong>
              <div className="hint">{note}</div>
            </div>
            <div className="export-actions">
              {EXPORT_FORMATS.map(({ format, label: formatLabel }) => (
                <button
                  key={format}
                  type="button"
                  className="button button-small"
                  disabled={busy !== undefined}
                  aria-label={`Download ${resource} as ${formatLabel}`}
                  onClick={() => void download(resource, format)}
                >
                  {busy === `${resource} ${format}` ? 'Preparing…' : formatLabel}
                </button>
              ))}
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}
