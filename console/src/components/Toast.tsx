import {
  createContext,
  type ReactNode,
  useCallback,
  useContext,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
} from 'react';

interface Toast {
  id: number;
  message: string;
  tone: 'success' | 'error';
}

interface ShownToasts {
  toasts: Toast[];
  /** Moves the toasts into an open modal dialog, until the returned function is called. */
  claim: () => () => void;
}

const ToastContext = createContext<((message: string, tone?: Toast['tone']) => void) | null>(null);
const ShownContext = createContext<ShownToasts | null>(null);

function ToastItems({ toasts }: { toasts: Toast[] }) {
  return toasts.map((toast) => (
    <div key={toast.id} className={`toast toast-${toast.tone}`}>
      {toast.message}
    </div>
  ));
}

/**
 * Short confirmations ("API key revoked") in a polite live region. While a modal dialog is open
 * they show inside it (DialogToasts): the dialog's backdrop covers the page, and makes it inert.
 */
export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const [dialogs, setDialogs] = useState(0);
  const next = useRef(0);
  const show = useCallback((message: string, tone: Toast['tone'] = 'success') => {
    const id = ++next.current;
    setToasts((current) => [...current.slice(-2), { id, message, tone }]);
    setTimeout(() => setToasts((current) => current.filter((t) => t.id !== id)), 5000);
  }, []);
  const claim = useCallback(() => {
    setDialogs((n) => n + 1);
    return () => setDialogs((n) => n - 1);
  }, []);
  const shown = useMemo(() => ({ toasts, claim }), [toasts, claim]);
  return (
    <ToastContext.Provider value={show}>
      <ShownContext.Provider value={shown}>
        {children}
        {/* Always in the page, so a toast shown as a dialog closes is still announced. */}
        <div className="toasts" role="status" aria-live="polite">
          {dialogs === 0 ? <ToastItems toasts={toasts} /> : null}
        </div>
      </ShownContext.Provider>
    </ToastContext.Provider>
  );
}

/** The toasts, inside the open modal dialog that renders this (above its backdrop). */
export function DialogToasts() {
  const shown = useContext(ShownContext);
  const claim = shown?.claim;
  useLayoutEffect(() => claim?.(), [claim]);
  if (!shown) return null;
  return (
    <div className="toasts" role="status" aria-live="polite">
      <ToastItems toasts={shown.toasts} />
    </div>
  );
}

export function useToast(): (message: string, tone?: Toast['tone']) => void {
  const show = useContext(ToastContext);
  if (!show) throw new Error('useToast outside ToastProvider');
  return show;
}
