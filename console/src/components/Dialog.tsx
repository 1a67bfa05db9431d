import { type KeyboardEvent, type ReactNode, useEffect, useId, useRef } from 'react';
import { createPortal } from 'react-dom';
import { CopyField } from './CopyField.js';
import { FormError } from './Form.js';
import { DialogToasts } from './Toast.js';

interface DialogProps {
  title: string;
  /** Called on Escape, the close button, or a click on the backdrop (when dismissible). */
  onClose: () => void;
  children: ReactNode;
  /** A short line under the title. */
  description?: ReactNode;
  size?: 'normal' | 'wide';
  /**
   * False for a dialog showing something that is shown only once (a new secret): it has no close
   * button, and Escape and the backdrop leave it open; only its own buttons close it.
   */
  dismissible?: boolean;
}

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/** Tab from the last control goes to the first, Shift+Tab from the first to the last. */
function keepFocusInside(dialog: HTMLDialogElement, event: KeyboardEvent<HTMLDialogElement>): void {
  const controls = [...dialog.querySelectorAll<HTMLElement>(FOCUSABLE)].filter(
    (el) => el.getClientRects().length > 0,
  );
  const first = controls[0];
  const last = controls[controls.length - 1];
  if (!first || !last) return;
  const active = document.activeElement;
  if (event.shiftKey && (active === first || !dialog.contains(active))) {
    event.preventDefault();
    last.focus();
  } else if (!event.shiftKey && (active === last || !dialog.contains(active))) {
    event.preventDefault();
    first.focus();
  }
}

/**
 * A modal on the native <dialog>: showModal() makes the rest of the page inert, Tab cycles through
 * the dialog's controls (never out to the browser), Escape closes it (unless it is not
 * dismissible), and focus goes back where it was when it closes. Rendered only while open, into
 * the document's body, so it takes no styles from where it was opened (a banner, a table row).
 */
export function Dialog({
  title,
  onClose,
  children,
  description,
  size = 'normal',
  dismissible = true,
}: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const descriptionId = useId();
  const close = useRef(onClose);
  useEffect(() => {
    close.current = onClose;
  });

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    dialog.showModal();
    const first = dialog.querySelector<HTMLElement>(
      '[autofocus], input, select, textarea, button:not(.dialog-close)',
    );
    first?.focus();
    return () => {
      if (dialog.open) dialog.close();
      if (opener?.isConnected) opener.focus();
    };
  }, []);

  return createPortal(
    <dialog
      ref={ref}
      className={`dialog dialog-${size}`}
      aria-labelledby={titleId}
      aria-describedby={description ? descriptionId : undefined}
      onCancel={(event) => {
        event.preventDefault();
        if (dismissible) close.current();
      }}
      onClose={() => {
        // The browser may close a modal itself (a repeated Escape without a user action in
        // between cannot be refused): the page follows, or one that must stay open shows again.
        const dialog = ref.current;
        if (!dialog?.isConnected || dialog.open) return;
        if (dismissible) close.current();
        else dialog.showModal();
      }}
      onMouseDown={(event) => {
        if (dismissible && event.target === ref.current) close.current();
      }}
      onKeyDown={(event) => {
        if (event.key === 'Tab' && ref.current) keepFocusInside(ref.current, event);
      }}
    >
      <div className="dialog-body">
        <header className="dialog-header">
          <h2 id={titleId}>{title}</h2>
          {dismissible ? (
            <button
              type="button"
              className="icon-button dialog-close"
              aria-label="Close"
              onClick={() => close.current()}
            >
              <span aria-hidden="true">×</span>
            </button>
          ) : null}
        </header>
        {description ? (
          <p id={descriptionId} className="dialog-description">
            {description}
          </p>
        ) : null}
        {children}
      </div>
      <DialogToasts />
    </dialog>,
    document.body,
  );
}

interface FormDialogProps {
  title: string;
  onClose: () => void;
  /** Called on submit (the default is prevented), also by Enter in a field. */
  onSubmit: () => void;
  /** The submit button says `submitLabel`, and `busyLabel` while `busy` (when it is disabled). */
  submitLabel: string;
  busyLabel: string;
  tone?: 'danger' | 'primary';
  busy?: boolean;
  /** Why the last submit failed: a message, or the failure (see FormError). */
  error?: unknown;
  size?: 'normal' | 'wide';
  children: ReactNode;
}

/** A dialog around a form: its fields, the error when it was refused, then Cancel and submit. */
export function FormDialog({
  title,
  onClose,
  onSubmit,
  submitLabel,
  busyLabel,
  tone = 'primary',
  busy,
  error,
  size,
  children,
}: FormDialogProps) {
  return (
    <Dialog title={title} onClose={onClose} size={size}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          onSubmit();
        }}
      >
        {children}
        <FormError error={error} />
        <div className="dialog-actions">
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className={`button button-${tone}`} disabled={busy}>
            {busy ? busyLabel : submitLabel}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

interface ConfirmProps {
  title: string;
  message: ReactNode;
  confirmLabel: string;
  tone?: 'danger' | 'primary';
  busy?: boolean;
  /** Why the last submit failed: a message, or the failure (see FormError). */
  error?: unknown;
  onConfirm: () => void;
  onClose: () => void;
  children?: ReactNode;
}

/** "Are you sure?" with the consequence spelled out; the confirm button names the action. */
export function ConfirmDialog({
  title,
  message,
  confirmLabel,
  tone = 'danger',
  busy,
  error,
  onConfirm,
  onClose,
  children,
}: ConfirmProps) {
  return (
    <FormDialog
      title={title}
      onClose={onClose}
      onSubmit={onConfirm}
      submitLabel={confirmLabel}
      busyLabel="Working…"
      tone={tone}
      busy={busy}
      error={error}
    >
      <div className="dialog-message">{message}</div>
      {children}
    </FormDialog>
  );
}

interface SecretProps {
  title: string;
  /** What the secret is for and that it is shown only once. */
  description: string;
  label: string;
  value: string;
  hint?: string;
  onClose: () => void;
  doneLabel?: string;
  /** More to show below the secret (how to use it). */
  children?: ReactNode;
}

/** Shows a secret the server returns only once, to copy; only the one button closes it. */
export function SecretDialog({
  title,
  description,
  label,
  value,
  hint,
  onClose,
  doneLabel = 'Done',
  children,
}: SecretProps) {
  return (
    <Dialog title={title} onClose={onClose} description={description} dismissible={false}>
      <CopyField label={label} value={value} hint={hint} />
      {children}
      <div className="dialog-actions">
        <button type="button" className="button button-primary" onClick={onClose}>
          {doneLabel}
        </button>
      </div>
    </Dialog>
  );
}
