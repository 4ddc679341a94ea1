/**
 * The engine's four listeners (billing, management, panel, emulators) on ports the system picks,
 * as environment for a started engine: a test never takes the default ports, which are shared.
 */
export const FREE_PORTS_ENV = { POS_BILLING_PORT: '0', POS_MANAGE_PORT: '0', POS_PANEL_PORT: '0', POS_EMULATOR_PORT: '0' } as const;
