/** Injected time source so tests can move the emulator's clock. */
export type Clock = () => Date;

/** Injected id source: every call must return a fresh, unique string. */
export type IdSource = () => string;
