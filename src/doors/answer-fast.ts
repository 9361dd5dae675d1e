import type { InteractionService } from '../core/interaction-service.js';
import { answerSurfaceOf, answerWith, CLIENT_HEADER } from './api.js';
import type { FastDoor } from './fast-door.js';

/**
 * `POST /api/interactions/{id}/answer` (scope `answer`) ahead of express (fast-door.ts): the same payload rules and
 * service call as the express door (`answerDoor`, through `answerWith`). Only an id that needs no decoding is taken
 * here: base64url, with `.<k>` when it lives in shard k ≥ 1 (core/shard-ids.ts).
 */
export function answerFastDoor(service: InteractionService): FastDoor {
  return {
    path: /^\/api\/interactions\/([A-Za-z0-9_-]+(?:\.\d{1,3})?)\/answer$/,
    scope: 'answer',
    serve: async (params, payload, identity, _signal, headers) => ({
      status: 200,
      body: {
        status: await answerWith(
          service,
          params[1] as string,
          payload,
          identity,
          answerSurfaceOf(headers[CLIENT_HEADER]),
        ),
      },
    }),
  };
}
