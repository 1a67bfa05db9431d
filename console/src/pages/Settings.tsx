import { useState } from 'react';
import { formErrors } from '../api/errors.js';
import { useOrders } from '../api/queries.js';
import { useUpdateSettings } from '../api/store-mutations.js';
import { useSettings } from '../api/store-queries.js';
import { Field, FormError, SelectField } from '../components/Form.js';
import { PageHeader } from '../components/Layout.js';
import { ErrorState, Loading } from '../components/States.js';
import { useToast } from '../components/Toast.js';
import { formatNumber } from '../format.js';
import { parseCount } from '../money.js';
import { useSession } from '../session.js';
import { usePageTitle } from '../title.js';
import type { JsonBody, Settings as StoreSettings } from '../types.js';

/** The fields, by their name in the API, and their labels (a refusal names the field). */
const LABELS = {
  name: 'Store name',
  currency: 'Currency',
  unpaid_order_expiry_minutes: 'Unpaid orders expire after',
  'storefront.hold_minutes': 'Hold stock for',
  'storefront.abandoned_after_minutes': 'A cart is abandoned after',
  'storefront.recovery_url_template': 'Recovery link template',
  'storefront.requests_per_minute': 'Shop requests a minute per shopper',
};

/** The form as typed. */
interface Draft {
  name: string;
  currency: string;
  expiry: string;
  holds: boolean;
  holdMinutes: string;
  abandonedAfter: string;
  recoveryTemplate: string;
  requestsPerMinute: string;
}

function draftOf(settings: StoreSettings): Draft {
  return {
    name: settings.name,
    currency: settings.currency,
    expiry: String(settings.unpaid_order_expiry_minutes),
    holds: settings.storefront.hold_minutes !== null,
    holdMinutes: String(settings.storefront.hold_minutes ?? 15),
    abandonedAfter: String(settings.storefront.abandoned_after_minutes),
    recoveryTemplate: settings.storefront.recovery_url_template ?? '',
    requestsPerMinute: String(settings.storefront.requests_per_minute),
  };
}

/** "1 day", "2 hours 30 minutes", "never": minutes as a person says them. */
function duration(minutes: number | null | undefined): string {
  if (minutes === null || minutes === undefined) return '';
  if (minutes === 0) return 'never';
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const rest = minutes % 60;
  const parts = [
    days ? `${formatNumber(days)} day${days === 1 ? '' : 's'}` : '',
    hours ? `${hours} hour${hours === 1 ? '' : 's'}` : '',
    rest ? `${rest} minute${rest === 1 ? '' : 's'}` : '',
  ];
  return parts.filter(Boolean).join(' ');
}

/** The members that changed, as `PATCH /v1/settings` takes them, or the field that is not a number. */
function changes(
  settings: StoreSettings,
  draft: Draft,
): { body: JsonBody<'updateSettings'> } | { field: string } {
  const numbers = {
    unpaid_order_expiry_minutes: parseCount(draft.expiry),
    // Holds on need their minutes: empty is not "off".
    'storefront.hold_minutes': draft.holds ? (parseCount(draft.holdMinutes) ?? undefined) : null,
    'storefront.abandoned_after_minutes': parseCount(draft.abandonedAfter),
    'storefront.requests_per_minute': parseCount(draft.requestsPerMinute),
  };
  for (const [field, value] of Object.entries(numbers)) {
    if (value === undefined || (value === null && field !== 'storefront.hold_minutes')) return { field };
  }
  const body: JsonBody<'updateSettings'> = {};
  const storefront: NonNullable<JsonBody<'updateSettings'>['storefront']> = {};
  const current = settings.storefront;
  if (draft.name.trim() !== settings.name) body.name = draft.name.trim();
  if (draft.currency !== settings.currency) body.currency = draft.currency;
  const expiry = numbers.unpaid_order_expiry_minutes as number;
  if (expiry !== settings.unpaid_order_expiry_minutes) body.unpaid_order_expiry_minutes = expiry;
  const hold = numbers['storefront.hold_minutes'] ?? null;
  if (hold !== current.hold_minutes) storefront.hold_minutes = hold;
  const abandoned = numbers['storefront.abandoned_after_minutes'] as number;
  if (abandoned !== current.abandoned_after_minutes) storefront.abandoned_after_minutes = abandoned;
  const template = draft.recoveryTemplate.trim() || null;
  if (template !== current.recovery_url_template) storefront.recovery_url_template = template;
  const perMinute = numbers['storefront.requests_per_minute'] as number;
  if (perMinute !== current.requests_per_minute) storefront.requests_per_minute = perMinute;
  if (Object.keys(storefront).length > 0) body.storefront = storefront;
  return { body };
}

/** The currencies a store may choose, with their names ("EUR · Euro"). */
function currencyChoices(current: string): { code: string; label: string }[] {
  const names = new Intl.DisplayNames(['en'], { type: 'currency' });
  const codes = new Set([...Intl.supportedValuesOf('currency'), current]);
  return [...codes].sort().map((code) => ({ code, label: `${code} · ${names.of(code) ?? code}` }));
}

function SettingsForm({ settings }: { settings: StoreSettings }) {
  const [draft, setDraft] = useState(() => draftOf(settings));
  const [unsent, setUnsent] = useState<string>();
  const update = useUpdateSettings();
  const { refresh } = useSession();
  const toast = useToast();
  const anyOrder = useOrders({ limit: 1 });
  const hasOrders = (anyOrder.data?.total ?? 0) > 0;
  const { fields, form } = formErrors(unsent ?? update.error, LABELS);
  const edit = (change: Partial<Draft>) => setDraft((current) => ({ ...current, ...change }));

  function submit() {
    const result = changes(settings, draft);
    if ('field' in result) {
      setUnsent(`${LABELS[result.field as keyof typeof LABELS]} must be a whole number.`);
      return;
    }
    setUnsent(undefined);
    if (Object.keys(result.body).length === 0) {
      toast('Nothing to save: no setting changed.');
      return;
    }
    update.mutate(result.body, {
      onSuccess: (saved) => {
        setDraft(draftOf(saved));
        toast('Settings saved.');
        // The store's name and currency show across the console: the session says them.
        if (result.body.name !== undefined || result.body.currency !== undefined) void refresh();
      },
    });
  }

  return (
    <form
      className="settings-form"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
    >
      <section className="card" aria-labelledby="store-title">
        <h2 id="store-title">Store</h2>
        <div className="form-row">
          <Field
            label={LABELS.name}
            required
            maxLength={200}
            value={draft.name}
            error={fields.name}
            onChange={(e) => edit({ name: e.target.value })}
          />
          <SelectField
            label={LABELS.currency}
            value={draft.currency}
            disabled={hasOrders}
            error={fields.currency}
            hint={
              hasOrders
                ? 'Fixed since the store’s first order.'
                : 'New products are priced in it, and the wallet and sales use it. It can change until the first order.'
            }
            onChange={(e) => edit({ currency: e.target.value })}
          >
            {currencyChoices(settings.currency).map(({ code, label }) => (
              <option key={code} value={code}>
                {label}
              </option>
            ))}
          </SelectField>
        </div>
      </section>
      <section className="card" aria-labelledby="orders-settings-title">
        <h2 id="orders-settings-title">Orders</h2>
        <Field
          label={`${LABELS.unpaid_order_expiry_minutes} (minutes)`}
          inputMode="numeric"
          className="input-narrow"
          value={draft.expiry}
          error={fields.unpaid_order_expiry_minutes}
          hint={`An unpaid order is cancelled after this long (${duration(parseCount(draft.expiry)) || '…'}), its stock given back. 0: never; at most 43,200 (30 days).`}
          onChange={(e) => edit({ expiry: e.target.value })}
        />
      </section>
      <section className="card" aria-labelledby="shop-settings-title">
        <h2 id="shop-settings-title">Shop</h2>
        <label className="check check-strong">
          <input type="checkbox" checked={draft.holds} onChange={(e) => edit({ holds: e.target.checked })} />
          <span>Hold a cart’s stock while its shopper checks out</span>
        </label>
        {draft.holds ? (
          <Field
            label={`${LABELS['storefront.hold_minutes']} (minutes)`}
            inputMode="numeric"
            className="input-narrow"
            value={draft.holdMinutes}
            error={fields['storefront.hold_minutes']}
            hint="1 to 60 minutes; a shopper holds at most 3 carts at once."
            onChange={(e) => edit({ holdMinutes: e.target.value })}
          />
        ) : null}
        <div className="form-row">
          <Field
            label={`${LABELS['storefront.abandoned_after_minutes']} (minutes)`}
            inputMode="numeric"
            className="input-narrow"
            value={draft.abandonedAfter}
            error={fields['storefront.abandoned_after_minutes']}
            hint={`Unchanged this long (${duration(parseCount(draft.abandonedAfter)) || '…'}), with an email and a line: cart.abandoned is sent once. 1 to 10,080 (7 days).`}
            onChange={(e) => edit({ abandonedAfter: e.target.value })}
          />
          <Field
            label={LABELS['storefront.requests_per_minute']}
            inputMode="numeric"
            className="input-narrow"
            value={draft.requestsPerMinute}
            error={fields['storefront.requests_per_minute']}
            hint="10 to 10,000; past it a shopper’s browser is asked to wait (429)."
            onChange={(e) => edit({ requestsPerMinute: e.target.value })}
          />
        </div>
        <Field
          label={LABELS['storefront.recovery_url_template']}
          type="url"
          placeholder="https://shop.example.com/cart/{cart_id}"
          value={draft.recoveryTemplate}
          error={fields['storefront.recovery_url_template']}
          hint="An https address of your shop’s cart page with {cart_id} in it: each abandoned cart’s link to bring its shopper back. Empty: none."
          onChange={(e) => edit({ recoveryTemplate: e.target.value })}
        />
      </section>
      <div className="form-footer">
        <FormError error={form} />
        <button type="submit" className="button button-primary" disabled={update.isPending}>
          {update.isPending ? 'Saving…' : 'Save settings'}
        </button>
      </div>
    </form>
  );
}

export function Settings() {
  usePageTitle('Settings');
  const settings = useSettings();
  return (
    <>
      <PageHeader
        title="Settings"
        description="Your store’s name and currency, unpaid orders, and how your shop behaves."
      />
      {settings.data ? (
        <SettingsForm settings={settings.data} />
      ) : settings.error !== undefined ? (
        <ErrorState error={settings.error} onRetry={settings.reload} title="Settings could not be loaded" />
      ) : (
        <Loading label="Loading settings" />
      )}
    </>
  );
}
