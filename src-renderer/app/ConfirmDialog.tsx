// In-app confirmations instead of the browser's native dialogs: keyboard first (Intro confirms,
// Esc cancels, Tab stays inside), announced (role="alertdialog" with its question as the
// description), and the focus goes back where it was. While one is open no screen key (Esc
// clearing the sale, F4…) reaches the screen underneath.
import { useEffect, useRef } from 'react';
import { create } from 'zustand';
import { useT } from './session';

interface Pending {
  mensaje: string;
  resolve: (ok: boolean) => void;
}

const useConfirmState = create<{ pending: Pending | undefined }>(() => ({ pending: undefined }));

/** Asks staff; resolves true (Intro, «Sí») or false (Esc, «No»). A second question waits for none: it replaces the first, answered no. */
export function confirmar(mensaje: string): Promise<boolean> {
  return new Promise((resolve) => {
    useConfirmState.getState().pending?.resolve(false);
    useConfirmState.setState({ pending: { mensaje, resolve } });
  });
}

/** Whether a confirmation is on screen (screen-wide keys stand still meanwhile). */
export function confirmando(): boolean {
  return useConfirmState.getState().pending !== undefined;
}

export function ConfirmDialog() {
  const t = useT();
  const pending = useConfirmState((s) => s.pending);
  const yesRef = useRef<HTMLButtonElement | null>(null);
  const noRef = useRef<HTMLButtonElement | null>(null);

  useEffect(() => {
    if (!pending) return;
    const before = document.activeElement as HTMLElement | null;
    yesRef.current?.focus();
    const answer = (ok: boolean) => {
      useConfirmState.setState({ pending: undefined });
      pending.resolve(ok);
    };
    // Capture phase, before any screen's own keys.
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape' || e.key === 'Enter') {
        e.preventDefault();
        e.stopImmediatePropagation();
        // Enter on «No» answers no, as a button would.
        answer(e.key === 'Enter' && document.activeElement !== noRef.current);
      } else if (e.key === 'Tab') {
        e.preventDefault();
        e.stopImmediatePropagation();
        (document.activeElement === yesRef.current ? noRef.current : yesRef.current)?.focus();
      } else {
        e.stopImmediatePropagation();
      }
    };
    window.addEventListener('keydown', onKey, true);
    return () => {
      window.removeEventListener('keydown', onKey, true);
      if (before && document.contains(before)) before.focus();
    };
  }, [pending]);

  if (!pending) return null;
  const answer = (ok: boolean) => {
    useConfirmState.setState({ pending: undefined });
    pending.resolve(ok);
  };
  return (
    <div className="modal-backdrop" data-testid="confirm-backdrop">
      <div className="modal" role="alertdialog" aria-modal="true" aria-labelledby="confirm-titulo" aria-describedby="confirm-mensaje" data-testid="confirm">
        <h2 id="confirm-titulo">{t('confirmar.titulo')}</h2>
        <p id="confirm-mensaje" data-testid="confirm-mensaje">
          {pending.mensaje}
        </p>
        <div className="actions">
          <button ref={yesRef} type="button" className="primary" data-testid="confirm-si" onClick={() => answer(true)}>
            {t('confirmar.aceptar')}
          </button>
          <button ref={noRef} type="button" data-testid="confirm-no" onClick={() => answer(false)}>
            {t('confirmar.cancelar')}
          </button>
        </div>
      </div>
    </div>
  );
}
