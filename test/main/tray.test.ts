import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createTray } from '../../src-main/tray';
import { FakeTray } from './electron-mock';

vi.mock('electron', async () => (await import('./electron-mock')).electronMock('/tmp'));

beforeEach(() => {
  FakeTray.instances = [];
});

function aTray() {
  const actions = { show: vi.fn(), restartEngine: vi.fn(), quit: vi.fn() };
  const handle = createTray(actions);
  return { actions, handle, tray: FakeTray.instances.at(-1)! };
}

describe('Tray: the till keeps filing with the window closed', () => {
  it('menu: open the till, the engine’s state (not clickable), restart the engine, quit — each wired to its action', () => {
    const { actions, tray } = aTray();
    expect(tray.menu.map((i) => i.label ?? i.type)).toEqual(['Abrir la caja', 'Motor: arrancando', 'Reiniciar el motor', 'separator', 'Salir']);
    expect(tray.menu[1]).toMatchObject({ enabled: false });
    expect(tray.menu[1]!.click).toBeUndefined();
    tray.menu[0]!.click!();
    expect(actions.show).toHaveBeenCalledTimes(1);
    tray.menu[2]!.click!();
    expect(actions.restartEngine).toHaveBeenCalledTimes(1);
    tray.menu[4]!.click!();
    expect(actions.quit).toHaveBeenCalledTimes(1);
    expect(actions.show).toHaveBeenCalledTimes(1);
  });

  it('a click on the icon opens the till', () => {
    const { actions, tray } = aTray();
    tray.handlers.get('click')!();
    expect(actions.show).toHaveBeenCalledTimes(1);
  });

  it('tooltip and menu follow the engine’s state; destroy removes the icon', () => {
    const { handle, tray } = aTray();
    expect(tray.setToolTip).toHaveBeenLastCalledWith('TPV Cumple · Motor: arrancando');
    for (const [state, label] of [
      ['listo', 'Motor: en marcha'],
      ['reiniciando', 'Motor: reiniciando'],
      ['detenido', 'Motor: detenido'],
    ] as const) {
      handle.setState(state);
      expect(tray.setToolTip).toHaveBeenLastCalledWith(`TPV Cumple · ${label}`);
      expect(tray.menu[1]).toMatchObject({ label, enabled: false });
    }
    handle.destroy();
    expect(tray.destroy).toHaveBeenCalledTimes(1);
  });
});
