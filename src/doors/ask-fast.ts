import type { InteractionService } from '../core/interaction-service.js';
import type { FastDoor } from './fast-door.js';

/**
 * `POST /api/interactions` (scope `write`) ahead of express (fast-door.ts): the ask door's one service call
 * (`InteractionService.ask`, which applies every rule of the ask body) and its `201` with the record, as the express
 * route in api.ts answers. Every park goes through here, so the router and body-parser stack cost every park cycle.
 */
export function askFastDoor(service: InteractionService): FastDoor {
  return {
    path: /^\/api\/interactions$/,
    scope: 'write',
    serve: async (_params, payload, identity) => ({ status: 201, body: await service.ask(payload, identity) }),
  };
}
