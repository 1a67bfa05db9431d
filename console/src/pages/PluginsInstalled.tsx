import { useId, useState } from 'react';
import { usePlugins, useUsage } from '../api/queries.js';
import { PluginAccess } from '../components/PluginAccess.js';
import { UninstallDialog } from '../components/UninstallDialog.js';
import { Empty, ErrorState, Loading } from '../components/States.js';
import { useToast } from '../components/Toast.js';
import { formatDate, formatNumber } from '../format.js';
import type { Plugin, Usage } from '../types.js';

/** The calls an installed plugin made in the last 7 days, from `GET /usage` (`apps`). */
type AppUsage = Usage['apps'][number];

function InstalledCard({ plugin, usage }: { plugin: Plugin; usage?: AppUsage | undefined }) {
  const [removing, setRemoving] = useState(false);
  const toast = useToast();
  const titleId = useId();
  const installation = plugin.installation;
  return (
    <article className="plugin card" aria-labelledby={titleId} data-plugin={plugin.slug}>
      <header className="plugin-header">
        <div className="plugin-icon" aria-hidden="true">
          {plugin.name.charAt(0)}
        </div>
        <div className="plugin-title">
          <h2 id={titleId} className="plugin-name">
            {plugin.name}
          </h2>
          <p className="plugin-meta">
            by {plugin.author}
            {installation ? ` · installed ${formatDate(installation.installed_at)}` : ''}
          </p>
        </div>
      </header>
      <h3 className="plugin-section-title">Access</h3>
      <PluginAccess
        permissions={installation?.granted_permissions ?? plugin.permissions}
        events={installation?.granted_events ?? plugin.events}
      />
      <h3 className="plugin-section-title">Calls in the last 7 days</h3>
      {usage && usage.calls > 0 ? (
        <>
          <p data-testid="app-calls">
            {formatNumber(usage.calls)} call{usage.calls === 1 ? '' : 's'}, {formatNumber(usage.errors)} error
            {usage.errors === 1 ? '' : 's'}
          </p>
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Endpoint</th>
                <th scope="col">Calls</th>
                <th scope="col">Errors</th>
              </tr>
            </thead>
            <tbody>
              {usage.top_endpoints.map((row) => (
                <tr key={row.endpoint}>
                  <td className="mono">{row.endpoint}</td>
                  <td>{formatNumber(row.calls)}</td>
                  <td>{formatNumber(row.errors)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      ) : (
        <p className="muted" data-testid="app-calls">
          No calls yet.
        </p>
      )}
      <footer className="plugin-actions">
        <button
          type="button"
          className="button"
          aria-haspopup="dialog"
          aria-label={`Uninstall ${plugin.name}`}
          onClick={() => setRemoving(true)}
        >
          Uninstall
        </button>
      </footer>
      {removing ? (
        <UninstallDialog
          plugin={plugin}
          onClose={() => setRemoving(false)}
          onDone={() => toast(`${plugin.name} uninstalled.`)}
        />
      ) : null}
    </article>
  );
}

/** The plugins this store has installed: what each may do, what it did lately, and Uninstall. */
export function InstalledPlugins() {
  const installed = usePlugins({ installed: true });
  const usage = useUsage('7d');
  if (installed.data === undefined) {
    return installed.error !== undefined ? (
      <ErrorState error={installed.error} onRetry={installed.reload} />
    ) : (
      <Loading label="Loading installed plugins" rows={2} />
    );
  }
  if (installed.data.data.length === 0) {
    return <Empty title="No plugins installed">Install one from the marketplace.</Empty>;
  }
  const byPlugin = new Map((usage.data?.apps ?? []).map((app) => [app.plugin_id, app]));
  return (
    <div className="plugin-grid">
      {installed.data.data.map((plugin) => (
        <InstalledCard key={plugin.id} plugin={plugin} usage={byPlugin.get(plugin.id)} />
      ))}
    </div>
  );
}
