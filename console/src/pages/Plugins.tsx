import { useId, useMemo, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { describeFailure } from '../api/errors.js';
import { useInstallPlugin, useRatePlugin } from '../api/mutations.js';
import { type PluginFilters, usePlugins } from '../api/queries.js';
import { StatusBadge } from '../components/Badge.js';
import { ConfirmDialog } from '../components/Dialog.js';
import { PageHeader } from '../components/Layout.js';
import { PluginAccess } from '../components/PluginAccess.js';
import { UninstallDialog } from '../components/UninstallDialog.js';
import { Empty, ErrorState, Loading } from '../components/States.js';
import { RateInput, Stars } from '../components/Stars.js';
import { useToast } from '../components/Toast.js';
import { formatNumber, humanize } from '../format.js';
import { useDebounced } from '../timing.js';
import { usePageTitle } from '../title.js';
import type { Plugin } from '../types.js';
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
  onInstalled: () => void;
}) {
  const installing = useInstallPlugin();

  function install() {
    installing.mutate(plugin.id, {
      onSuccess: () => {
        onInstalled();
        onClose();
      },
    });
  }

  return (
    <ConfirmDialog
      title={`Install ${plugin.name}?`}
      tone="primary"
      confirmLabel="Install"
      busy={installing.isPending}
      error={installing.error}
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

function PluginCard({ plugin }: { plugin: Plugin }) {
  const toast = useToast();
  const rating = useRatePlugin();
  const busy = rating.isPending;
  const [installing, setInstalling] = useState(false);
  const [removing, setRemoving] = useState(false);
  /** Stars picked but not sent yet: a click only picks; Save sends, Cancel puts the saved value back. */
  const [picked, setPicked] = useState<number>();
  const titleId = useId();

  function rate(stars: number) {
    rating.mutate(
      { id: plugin.id, stars },
      {
        onSuccess: () => {
          setPicked(undefined);
          toast(`You rated ${plugin.name} ${stars} star${stars === 1 ? '' : 's'}.`);
        },
        onError: (failure) => toast(describeFailure(failure), 'error'),
      },
    );
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
                  onClick={() => rate(picked)}
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
          onInstalled={() => toast(`${plugin.name} installed.`)}
        />
      ) : null}
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

function Marketplace() {
  const [query, setQuery] = useState('');
  const [category, setCategory] = useState<Plugin['category'] | ''>('');
  const [sort, setSort] = useState<NonNullable<PluginFilters['sort']>>('installs');
  const q = useDebounced(query.trim(), 250);
  const searchId = useId();
  const categoryId = useId();
  const sortId = useId();
  // Every category that has plugins, from the unfiltered catalog.
  const catalog = usePlugins({});
  const results = usePlugins({
    sort,
    ...(q ? { q: q.slice(0, 100) } : {}),
    ...(category ? { category } : {}),
  });
  const categories = useMemo(
    () => [...new Set((catalog.data?.data ?? []).map((p) => p.category))].sort(),
    [catalog.data],
  );

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
          <PluginCard key={plugin.id} plugin={plugin} />
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
          <select
            id={categoryId}
            value={category}
            onChange={(e) => setCategory(categories.find((c) => c === e.target.value) ?? '')}
          >
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
          <select
            id={sortId}
            value={sort}
            onChange={(e) => setSort(SORTS.find((s) => s.value === e.target.value)?.value ?? 'installs')}
          >
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
