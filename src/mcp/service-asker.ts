import { AskgateError } from '../core/errors.js';
import type { InteractionService } from '../core/interaction-service.js';
import type { Identity } from '../core/types.js';
import type { Asker } from 'askgate-sdk';
import type { PresetService } from '../confirmations/presets.js';
import type { PresetDoor } from './preset-tools.js';

/**
 * Asking inside the gateway's own process (the `/mcp` door): the same rules, the same record and the same identity
 * as `POST /api/interactions` with the session's token, without a round trip through the doors.
 */
export function serviceAsker(service: InteractionService, identity: Identity): Asker {
  return {
    create: (body) => service.ask(body, identity),
    result: (id, waitSeconds, options = {}) => abortable(service.waitForResult(id, waitSeconds), options.signal),
    cancel: (id) => service.cancel(id, identity),
  };
}

/** The wait, given up the moment `signal` aborts (the wait itself ends at its own timeout). */
function abortable<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return work;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason ?? new AskgateError('conflict', 'the wait was abandoned.'));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** The preset door inside the gateway's process: the preset service, asking as the session's identity. */
export function servicePresetDoor(presets: PresetService, identity: Identity): PresetDoor {
  return {
    read: async (name) => {
      const preset = await presets.get(name);
      const { ask, confirmation } = preset.body;
      return { version: preset.version, ask, ...(confirmation === undefined ? {} : { confirmation }) };
    },
    ask: (name, fields) => presets.ask(name, fields, identity),
  };
}
