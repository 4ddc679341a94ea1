// A node:fs whose fsync can be held: tests that prove nothing leaves before the WAL is on disk
// hold every fsync, watch what happens meanwhile, then release them in order.
import type * as NodeFs from 'node:fs';

export interface FsyncControl {
  calls: number;
  held: (() => void)[];
  hold: boolean;
}

/** The real module with its fsync counted and, while `control.hold`, held until released. */
export function withHoldableFsync(real: typeof NodeFs, control: FsyncControl) {
  const fsync = (fd: number, callback: (error: NodeJS.ErrnoException | null) => void): void => {
    control.calls++;
    const run = (): void => real.fsync(fd, callback);
    if (control.hold) control.held.push(run);
    else run();
  };
  return { ...real, default: { ...real, fsync }, fsync };
}

/** Runs every held fsync, in the order they were asked for. */
export function releaseHeldFsyncs(control: FsyncControl): void {
  for (const run of control.held.splice(0)) run();
}
