// One source of truth for what the screens show: every mutation the till makes (a sale, a
// correction, a refund, a cancellation, a retry, a pause, a device registered) says so here, and
// every store holding a view of the engine (invoice list and detail, the last sale, the sync view,
// the device card) reads it again at once — no view goes on showing a state the engine has left.
// Views also poll while they show a state that is not final (the stores decide which).

type Listener = () => void | Promise<void>;

const listeners = new Set<Listener>();

/** Subscribes a store's refresh; returns the unsubscribe. */
export function onEngineChange(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Called after every mutation the engine accepted: every subscribed view refreshes. */
export function engineChanged(): void {
  for (const listener of [...listeners]) {
    try {
      void Promise.resolve(listener()).catch(() => undefined);
    } catch {
      // One view failing to refresh never stops the others.
    }
  }
}
