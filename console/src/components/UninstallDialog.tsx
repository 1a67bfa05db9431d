import { useUninstallPlugin } from '../api/mutations.js';
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
  const uninstall = useUninstallPlugin();
  return (
    <ConfirmDialog
      title={`Uninstall ${plugin.name}?`}
      confirmLabel="Uninstall"
      busy={uninstall.isPending}
      error={uninstall.error}
      onClose={onClose}
      onConfirm={() =>
        uninstall.mutate(plugin.id, {
          onSuccess: (next) => {
            onDone(next);
            onClose();
          },
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
