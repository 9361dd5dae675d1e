import type { InteractionService } from '../core/interaction-service.js';
import { answerFastDoor } from './answer-fast.js';
import { askFastDoor } from './ask-fast.js';
import type { FastDoor } from './fast-door.js';

/**
 * The doors served ahead of express (fast-door.ts): the plain answer and ask requests. The gateway serves these;
 * the OpenAPI conformance test reads the same list, so a fast door added here without being documented fails it.
 */
export function hotDoors(service: InteractionService): FastDoor[] {
  return [answerFastDoor(service), askFastDoor(service)];
}
