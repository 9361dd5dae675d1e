import type { InteractionService } from '../core/interaction-service.js';
import type { HandlerClaims } from '../runs/handler-claims.js';
import { answerFastDoor } from './answer-fast.js';
import { askFastDoor } from './ask-fast.js';
import { continuationFastDoors } from './continuations-fast.js';
import type { FastDoor } from './fast-door.js';

/**
 * The doors served ahead of express (fast-door.ts): the plain answer and ask requests, and a handler worker's
 * claims and reports (none on the in-memory store, which has no claims port). The gateway serves these;
 * the OpenAPI conformance test reads the same list, so a fast door added here without being documented fails it.
 */
export function hotDoors(service: InteractionService, claims: HandlerClaims | null): FastDoor[] {
  return [answerFastDoor(service), askFastDoor(service), ...continuationFastDoors(claims)];
}
