import { useEffect, useState } from 'react';
import { formatNumber, humanize } from '../format.js';
import { useAccount, useSession } from '../session.js';
import type { Account } from '../types.js';
import { CopyField } from './CopyField.js';
import { Dialog } from './Dialog.js';
import { Preformatted } from './Preformatted.js';

type PlanItem = Account['plans'][number];

/** What the operator runs to move the store to `next`, or on the largest plan to raise its limits. */
function operatorCommand(account: Account, next: PlanItem | undefined): string {
  const lines = ['npm run --silent admin -- tenant:set-limits', `--tenant ${account.tenant.id}`];
  if (next) {
    lines.push(`--plan ${next.name}`);
    // The store's own limits outlast a plan change: `default` drops them, so the plan's apply.
    if (account.limits.custom) lines.push('--hourly default --monthly default');
  } else {
    lines.push('--hourly N --monthly N');
  }
  // One flag a line, continued as a shell reads it, so it pastes as one command.
  return lines.join(' \\\n  ');
}

/**
 * The plans and their limits, the store's own limits when the operator set some, and how a plan
 * changes: there is no self-serve change, the platform operator runs `tenant:set-limits`. Every
 * number comes from the server: the session's account, asked for again when this is shown, as the
 * operator changes plans outside the console.
 */
export function PlanOptions() {
  const account = useAccount();
  const { refresh } = useSession();
  useEffect(() => {
    void refresh();
  }, [refresh]);
  const { limits, plans } = account;
  const next = plans[plans.findIndex((plan) => plan.current) + 1];
  return (
    <div className="plan-options">
      <p>
        You are on the <strong>{humanize(account.tenant.plan)}</strong> plan.
      </p>
      {limits.custom ? (
        <p className="banner banner-neutral banner-inline">
          Your store has limits of its own, set by the platform operator:{' '}
          <strong>{formatNumber(limits.monthly)}</strong> calls a month and{' '}
          <strong>{formatNumber(limits.hourly)}</strong> calls an hour.
        </p>
      ) : null}
      <div className="plans">
        {plans.map((plan) => (
          <div
            key={plan.name}
            className={`plan-card${plan.current ? ' plan-current' : ''}`}
            aria-current={plan.current ? 'true' : undefined}
            data-plan={plan.name}
          >
            <h3>{humanize(plan.name)}</h3>
            <p>
              <strong>{formatNumber(plan.monthly)}</strong> calls a month
            </p>
            <p>
              <strong>{formatNumber(plan.hourly)}</strong> calls an hour
            </p>
            {plan.current ? <span className="badge badge-info">Current plan</span> : null}
          </div>
        ))}
      </div>
      <h3>Changing your plan</h3>
      <p>
        Plans are not changed in the console: the operator of this platform changes them. Send them your store
        ID and the plan you want.
      </p>
      <CopyField label="Store ID" value={account.tenant.id} />
      <p>
        {next
          ? `To move your store to ${humanize(next.name)}, they run:`
          : `${humanize(account.tenant.plan)} is the largest plan; to give your store higher limits of its own, they run:`}
      </p>
      <Preformatted label="Operator command" text={operatorCommand(account, next)} />
    </div>
  );
}

/** A button that opens the plans in a dialog. */
export function PlansButton({ label, className = 'button' }: { label: string; className?: string }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" className={className} aria-haspopup="dialog" onClick={() => setOpen(true)}>
        {label}
      </button>
      {open ? (
        <Dialog title="Plans and limits" size="wide" onClose={() => setOpen(false)}>
          <PlanOptions />
        </Dialog>
      ) : null}
    </>
  );
}
