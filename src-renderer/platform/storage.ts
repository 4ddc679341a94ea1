/** A small key-value store (localStorage in the till window; a Map in tests). */
export interface KeyValueStore {
  get(key: string): string | null;
  set(key: string, value: string): void;
  remove(key: string): void;
}

export function memoryStore(): KeyValueStore {
  const map = new Map<string, string>();
  return {
    get: (k) => map.get(k) ?? null,
    set: (k, v) => void map.set(k, v),
    remove: (k) => void map.delete(k),
  };
}

/** The Web Storage calls used (written out so this file type-checks without the DOM library too). */
interface WebStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

export function browserStore(storage: WebStorage | undefined = (globalThis as { localStorage?: WebStorage }).localStorage): KeyValueStore {
  if (!storage) return memoryStore();
  return {
    get: (k) => storage.getItem(k),
    set: (k, v) => {
      try {
        storage.setItem(k, v);
      } catch {
        // Quota exceeded or storage disabled: the till keeps working without the cache.
      }
    },
    remove: (k) => storage.removeItem(k),
  };
}

export function readJson<T>(store: KeyValueStore, key: string, parse: (raw: unknown) => T | undefined): T | undefined {
  const raw = store.get(key);
  if (raw === null) return undefined;
  try {
    return parse(JSON.parse(raw));
  } catch {
    return undefined;
  }
}
