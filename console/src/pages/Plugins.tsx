import { useId, useMemo, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { api, describeFailure } from '../api.js';
import { StatusBadge } from '../components/Badge.js';
import { ConfirmDialog } from '../components/Dialog.js';
import { PageHeader } from '../components/Layout.js';
import { PluginAccess } from '../components/PluginAccess.js';
import { UninstallDialog } from '../components/UninstallDialog.js';
import { Empty, ErrorState, Loading } from '../components/States.js';
import { RateInput, Stars } from '../components/Stars.js';
import { useToast } from '../components/Toast.js';
import { formatNumber, humanize } from '../format.js';
import { useAction, useDebounced, useResource } from '../hooks.js';
import { usePageTitle } from '../title.js';
import type { Page, Plugin, Rating } from '../types.js';
import { InstalledPlugins } from './PluginsInstalled.js';
import { PublisherPlugins } from './PluginsPublisher.js';

const SORTS = [
  { value: 'installs', label: 'Most installed' },
  { value: 'rating', label: 'Best rated' },
  { value: 'name', label: 'Name' },
] as const;

/** Installing asks first, and says what the plugin is granted. */
function InstallDialog({
  plugin,
  onClose,
  onInstalled,
}: {
  plugin: Plugin;
  onClose: () => void;
  onInstalled: (plugin: Plugin) => void;
}) {
  const { busy, error, run } = useAction();

  function install() {
    void run(async () => {
      onInstalled(await api.post<Plugin>(`/plugins/${plugin.id}/install`));
      onClose();
    });
  }

  return (
    <ConfirmDialog
      title={`Install ${plugin.name}?`}
      tone="primary"
      confirmLabel="Install"
      busy={busy}
      error={error}
      onClose={onClose}
      onConfirm={install}
      message={
        <>
          <p>
            {plugin.name} by {plugin.author} gets its own access token to your store, able to do exactly this,
            and receives these events, until you uninstall it. It never sees your API keys.
          </p>
          <PluginAccess permissions={plugin.permissions} events={plugin.events} />
        </>
      }
    />
  );
}

function PluginCard({ plugin, onChange }: { plugin: Plugin; onChange: (plugin: Plugin) => void }) {
  const toast = useToast();
  const [busy, setBusy] = useState(false);
  const [installing, setInstalling] = useState(false);
  const [removing, setRemoving] = useState(false);
  /** Stars picked but not sent yet: a click only picks; Save sends, Cancel puts the saved value back. */
  const [picked, setPicked] = useState<number>();
  const titleId = useId();

  async function rate(stars: number) {
    setBusy(true);
    try {
      await api.post<Rating>(`/plugins/${plugin.id}/ratings`, { stars });
      setPicked(undefined);
      onChange(await api.get<Plugin>(`/plugins/${plugin.id}`));
      toast(`You rated ${plugin.name} ${stars} star${stars === 1 ? '' : 's'}.`);
    } catch (failure) {
      toast(describeFailure(failure), 'error');
    } finally {
      setBusy(false);
    }
  }

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
            by {plugin.author} · {humanize(plugin.category)}
          </p>
        </div>
        {plugin.installed ? <StatusBadge status="Installed" /> : null}
      </header>
      <p className="plugin-description">{plugin.description}</p>
      <div className="plugin-stats">
        <span className="plugin-rating" data-testid="rating">
          <Stars rating={plugin.rating} />
          <span className="rating-value">
            {plugin.rating_count === 0 ? 'No ratings' : plugin.rating.toFixed(1)}
          </span>
          {plugin.rating_count > 0 ? (
            <span className="muted">
              ({formatNumber(plugin.rating_count)}
              <span className="visually-hidden"> ratings</span>)
            </span>
          ) : null}
        </span>
        <span className="plugin-installs" data-testid="installs">
          {formatNumber(plugin.installs)} installs
        </span>
      </div>
      <PluginAccess permissions={plugin.permissions} events={plugin.events} max={3} />
      <footer className="plugin-actions">
        <button
          type="button"
          className={`button ${plugin.installed ? '' : 'button-primary'}`}
          disabled={busy}
          onClick={() => (plugin.installed ? setRemoving(true) : setInstalling(true))}
          aria-label={`${plugin.installed ? 'Uninstall' : 'Install'} ${plugin.name}`}
          aria-haspopup="dialog"
        >
          {plugin.installed ? 'Uninstall' : 'Install'}
        </button>
        {plugin.installed || plugin.my_rating !== null ? (
          <div className="plugin-rate">
            <RateInput
              name={plugin.name}
              value={picked ?? plugin.my_rating ?? undefined}
              onRate={(stars) => setPicked(stars === plugin.my_rating ? undefined : stars)}
              disabled={busy}
            />
            {picked !== undefined ? (
              <span className="plugin-rate-confirm">
                <button
                  type="button"
                  className="button button-primary button-small"
                  disabled={busy}
                  onClick={() => void rate(picked)}
                >
                  Save {picked} star{picked === 1 ? '' : 's'}
                </button>
                <button
                  type="button"
                  className="button button-small"
                  disabled={busy}
                  onClick={() => setPicked(undefined)}
                >
                  Cancel
                </button>
              </span>
            ) : null}
          </div>
        ) : null}
      </footer>
      {installing ? (
        <InstallDialog
          plugin={plugin}
          onClose={() => setInstalling(false)}
          onInstalled={(next) => {
            onChange(next);
            toast(`${plugin.name} installed.`);
          }}
        />
      ) : null}
      {removing ? (
        <UninstallDialog
          plugin={plugin}
          onClose={() => setRemoving(false)}
          onDone={(next) => {
            onChange(next);
            toast(`${plugin.name} uninstalled.`);
          }}
        />
      ) : null}
    </article>
  );
}

function Marketplace() {
  const [query, setQuery] = useState('');
  const [category, setCategory] = useState('');
  const [sort, setSort] = useState<string>('installs');
  const q = useDebounced(query.trim(), 250);
  const searchId = useId();
  const categoryId = useId();
  const sortId = useId();
  // Every category that has plugins, from the unfiltered catalog.
  const catalog = useResource<Page<Plugin>>('/plugins?limit=100');
  const params = new URLSearchParams({ limit: '100', sort });
  if (q) params.set('q', q.slice(0, 100));
  if (category) params.set('category', category);
  const results = useResource<Page<Plugin>>(`/plugins?${params.toString()}`);
  const categories = useMemo(
    () => [...new Set((catalog.data?.data ?? []).map((p) => p.category))].sort(),
    [catalog.data],
  );

  function replace(next: Plugin) {
    if (!results.data) return;
    results.set({ ...results.data, data: results.data.data.map((p) => (p.id === next.id ? next : p)) });
  }

  let body;
  if (results.data === undefined) {
    body =
      results.error !== undefined ? (
        <ErrorState error={results.error} onRetry={results.reload} />
      ) : (
        <Loading label="Loading plugins" rows={4} />
      );
  } else if (results.data.data.length === 0) {
    body = (
      <Empty
        title="No plugins match"
        action={
          <button
            type="button"
            className="button"
            onClick={() => {
              setQuery('');
              setCategory('');
            }}
          >
            Clear filters
          </button>
        }
      >
        Try other words or another category.
      </Empty>
    );
  } else {
    body = (
      <div className="plugin-grid" aria-busy={results.loading}>
        {results.data.data.map((plugin) => (
          <PluginCard key={plugin.id} plugin={plugin} onChange={replace} />
        ))}
      </div>
    );
  }

  return (
    <>
      <form className="filters" role="search" onSubmit={(event) => event.preventDefault()}>
        <div className="field field-grow">
          <label htmlFor={searchId}>Search</label>
          <input
            id={searchId}
            type="search"
            placeholder="Stock, AI, descriptions…"
            value={query}
            onChange={(e) => setQuery(e.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor={categoryId}>Category</label>
          <select id={categoryId} value={category} onChange={(e) => setCategory(e.target.value)}>
            <option value="">All categories</option>
            {categories.map((c) => (
              <option key={c} value={c}>
                {humanize(c)}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={sortId}>Sort by</label>
          <select id={sortId} value={sort} onChange={(e) => setSort(e.target.value)}>
            {SORTS.map((s) => (
              <option key={s.value} value={s.value}>
                {s.label}
              </option>
            ))}
          </select>
        </div>
      </form>
      <p className="result-count" role="status" aria-live="polite">
        {results.data ? `${results.data.total} plugin${results.data.total === 1 ? '' : 's'}` : ''}
      </p>
      {body}
    </>
  );
}

const VIEWS = [
  { value: 'marketplace', label: 'Marketplace' },
  { value: 'installed', label: 'Installed' },
  { value: 'publisher', label: 'Your plugins' },
] as const;

export function Plugins() {
  usePageTitle('Plugins');
  const [params] = useSearchParams();
  const view = VIEWS.find((v) => v.value === params.get('view'))?.value ?? 'marketplace';
  return (
    <>
      <PageHeader
        title="Plugins"
        description="Apps for your store. Installing one gives it its own token, limited to the permissions it lists, and sends it the events it lists."
      />
      <nav className="plugin-views" aria-label="Plugin views">
        {VIEWS.map((v) => (
          <Link
            key={v.value}
            to={v.value === 'marketplace' ? '?' : `?view=${v.value}`}
            className={`plugin-view${v.value === view ? ' plugin-view-current' : ''}`}
            aria-current={v.value === view ? 'page' : undefined}
          >
            {v.label}
          </Link>
        ))}
      </nav>
      {view === 'installed' ? (
        <InstalledPlugins />
      ) : view === 'publisher' ? (
        <PublisherPlugins />
      ) : (
        <Marketplace />
      )}
    </>
  );
}
