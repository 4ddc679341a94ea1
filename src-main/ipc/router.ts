// The till window's IPC: an allow-list of `till:*` channels, every argument parsed with zod before
// a handler sees it, and only the till window's own origin may call. Anything else is rejected.
import type { z } from 'zod';
import { isTillChannel, tillChannelArgs, TILL_CHANNEL_LIST, type TillChannel } from '../../src-shared/bridge';

type ArgsOf<C extends TillChannel> = z.infer<(typeof tillChannelArgs)[C]>;

export type TillHandlers = { [C in TillChannel]: (...args: ArgsOf<C>) => Promise<unknown> | unknown };

export class IpcRejected extends Error {
  constructor(
    readonly reason: 'unknown-channel' | 'bad-arguments' | 'foreign-sender',
    message: string,
  ) {
    super(message);
    this.name = 'IpcRejected';
  }
}

/** What main knows of the caller (from the IPC event): the URL of the frame that sent it. */
export interface IpcSender {
  url: string;
}

export interface TillIpcRouter {
  readonly channels: readonly TillChannel[];
  dispatch(channel: string, args: unknown[], sender: IpcSender): Promise<unknown>;
}

/** `allowedOrigin` returns the panel origin the till window loads (it may change on an engine restart). */
export function createTillIpcRouter(handlers: TillHandlers, allowedOrigin: () => string | undefined): TillIpcRouter {
  return {
    channels: TILL_CHANNEL_LIST,
    async dispatch(channel, args, sender) {
      if (!isTillChannel(channel)) throw new IpcRejected('unknown-channel', `IPC channel not allowed: ${String(channel).slice(0, 80)}`);
      const origin = allowedOrigin();
      let senderOrigin = '';
      try {
        senderOrigin = new URL(sender.url).origin;
      } catch {
        senderOrigin = '';
      }
      if (!origin || senderOrigin !== origin) throw new IpcRejected('foreign-sender', `IPC from an unexpected origin: ${senderOrigin || '(none)'}`);
      const parsed = tillChannelArgs[channel].safeParse(args);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new IpcRejected('bad-arguments', `${channel}: ${issue ? `${issue.path.join('.')}: ${issue.message}` : 'invalid arguments'}`);
      }
      const handler = handlers[channel] as (...a: unknown[]) => unknown;
      return handler(...(parsed.data as unknown[]));
    },
  };
}
