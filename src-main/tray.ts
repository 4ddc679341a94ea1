// The tray: the till keeps filing with the window closed; staff reopen it, see the engine's state,
// restart the engine or quit from here.
import { Menu, nativeImage, Tray } from 'electron';
import type { EngineState } from './engine-host';

// 32×32 PNG: a white ticket on the app's blue.
const ICON = 'iVBORw0KGgoAAAANSUhEUgAAACAAAAAgCAYAAABzenr0AAAArUlEQVR4AcXB0QmDQBBF0TuP/YsVbTuxrG0nVrT/EyGCCEYysHHOscfzxRfOWMaJwpHzP87O2Iidcx9nIz6c+zkrkUwkK4Dzg94qEdO88AMXyUQykawQNM0LV3qrRBSCequMJJKJZIWgaV640lslohDUW2UkkUwkKwRN88KV3ioRhaDeKiOJZCKZSCaSiWQimT2eL1ZODhPJRDLxYdzPWImdcR9jUzgyds5Yxok3WWIfE5Q+TckAAAAASUVORK5CYII=';

export interface TrayActions {
  show(): void;
  restartEngine(): void;
  quit(): void;
}

const LABELS: Record<EngineState, string> = {
  arrancando: 'Motor: arrancando',
  listo: 'Motor: en marcha',
  reiniciando: 'Motor: reiniciando',
  detenido: 'Motor: detenido',
};

export function createTray(actions: TrayActions): { setState(state: EngineState): void; destroy(): void } {
  const tray = new Tray(nativeImage.createFromDataURL(`data:image/png;base64,${ICON}`));
  const render = (state: EngineState) => {
    tray.setToolTip(`TPV Cumple · ${LABELS[state]}`);
    tray.setContextMenu(
      Menu.buildFromTemplate([
        { label: 'Abrir la caja', click: actions.show },
        { label: LABELS[state], enabled: false },
        { label: 'Reiniciar el motor', click: actions.restartEngine },
        { type: 'separator' },
        { label: 'Salir', click: actions.quit },
      ]),
    );
  };
  tray.on('click', actions.show);
  render('arrancando');
  return { setState: render, destroy: () => tray.destroy() };
}
