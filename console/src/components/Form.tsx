import { type InputHTMLAttributes, type SelectHTMLAttributes, useId } from 'react';
import { describeError } from '../api/errors.js';
import { RequestId } from './States.js';

/** Under a field: its error, else its hint, else nothing (the element its `aria-describedby` names). */
function FieldNote({
  id,
  hint,
  error,
}: {
  id: string;
  hint?: string | undefined;
  error?: string | undefined;
}) {
  if (error) {
    return (
      <p id={id} className="field-error">
        {error}
      </p>
    );
  }
  return hint ? (
    <p id={id} className="hint">
      {hint}
    </p>
  ) : null;
}

/** A labelled input with an optional hint, or the field's error in its place. */
export function Field({
  label,
  hint,
  error,
  ...input
}: { label: string; hint?: string; error?: string } & InputHTMLAttributes<HTMLInputElement>) {
  const id = useId();
  const hintId = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        aria-describedby={hint || error ? hintId : undefined}
        aria-invalid={error ? true : undefined}
        {...input}
      />
      <FieldNote id={hintId} hint={hint} error={error} />
    </div>
  );
}

/** A labelled select (its options as children) with an optional hint, or the field's error in its place. */
export function SelectField({
  label,
  hint,
  error,
  children,
  ...select
}: { label: string; hint?: string; error?: string } & SelectHTMLAttributes<HTMLSelectElement>) {
  const id = useId();
  const hintId = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select
        id={id}
        aria-describedby={hint || error ? hintId : undefined}
        aria-invalid={error ? true : undefined}
        {...select}
      >
        {children}
      </select>
      <FieldNote id={hintId} hint={hint} error={error} />
    </div>
  );
}

/**
 * Why a form was not accepted (a message, or the failure: with its request id when the server
 * failed), announced as it appears; nothing when there is no error.
 */
export function FormError({ error }: { error: unknown }) {
  return error !== undefined && error !== null && error !== '' ? (
    <div className="form-error" role="alert">
      <p>{describeError(error)}</p>
      <RequestId error={error} />
    </div>
  ) : null;
}

/** Checkboxes in labelled groups (permissions by area, events by resource), each value in mono. */
export function CheckboxGroups<T extends string>({
  groups,
  checked,
  onChange,
  disabled,
}: {
  groups: [string, readonly T[]][];
  checked: (value: T) => boolean;
  onChange: (value: T, on: boolean) => void;
  disabled?: boolean;
}) {
  return (
    <div className="permission-groups">
      {groups.map(([group, values]) => (
        <div key={group} className="permission-group">
          <span className="permission-area">{group}</span>
          {values.map((value) => (
            <label key={value} className="check">
              <input
                type="checkbox"
                disabled={disabled}
                checked={checked(value)}
                onChange={(e) => onChange(value, e.target.checked)}
              />
              <span className="mono">{value}</span>
            </label>
          ))}
        </div>
      ))}
    </div>
  );
}
