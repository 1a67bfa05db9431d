import { api } from '../api.js';
import { useAction } from '../hooks.js';
import type { Plugin } from '../types.js';
import { ConfirmDialog } from './Dialog.js';

/** Uninstall, confirmed first: what it ends is said before it is done. */
export function UninstallDialog({
  plugin,
  onClose,
  onDone,
}: {
  plugin: Plugin;
  onClose: () => void;
  onDone: (plugin: Plugin) => void;
}) {
  const { busy, error, run } = useAction();
  return (
    <ConfirmDialog
      title={`Uninstall ${plugin.name}?`}
      confirmLabel="Uninstall"
      busy={busy}
      error={error}
      onClose={onClose}
      onConfirm={() =>
        void run(async () => {
          onDone(await api.delete<Plugin>(`/plugins/${plugin.id}/install`));
          onClose();
        })
      }
      message={
        <p>
          Its access token stops working at once, it receives no more events from your store, and it is told
          it was uninstalled. Installing it again gives it a new token.
        </p>
      }
    />
  );
}
