import type { HandlerClaims } from '../runs/handler-claims.js';
import { continuationDoors } from './continuation-bodies.js';
import type { FastDoor } from './fast-door.js';

/** For a door declared abortable the signal is always given; this stands in for the type only. */
const NEVER = new AbortController().signal;

/** A resume id as the gateway makes them (`resume-<base64url>-<n>`, `turn-<base64url>`): no decoding needed. */
const RESUME_ID = '([A-Za-z0-9_-]{1,400})';

/**
 * The continuation doors ahead of express (fast-door.ts): a handler worker claims and completes once per
 * continuation, so at a worker's full rate these are half of every park cycle's requests; the router and
 * body-parser stack cost more than their work. Each calls the same door function as its express route
 * (continuation-bodies.ts). None without a claims port (the in-memory store): express answers those with 409.
 */
export function continuationFastDoors(claims: HandlerClaims | null): FastDoor[] {
  if (claims === null) return [];
  return [
    {
      path: /^\/api\/continuations\/claim$/,
      scope: 'write',
      abortable: true,
      serve: (_params, payload, identity, signal) =>
        continuationDoors.claim(claims, identity, payload, signal ?? NEVER),
    },
    {
      path: new RegExp(`^/api/continuations/${RESUME_ID}/complete$`),
      scope: 'write',
      abortable: true,
      serve: (params, payload, identity, signal) =>
        continuationDoors.complete(claims, identity, params[1] as string, payload, signal ?? NEVER),
    },
    {
      path: new RegExp(`^/api/continuations/${RESUME_ID}/extend$`),
      scope: 'write',
      serve: (params, payload, identity) => continuationDoors.extend(claims, identity, params[1] as string, payload),
    },
    {
      path: new RegExp(`^/api/continuations/${RESUME_ID}/fail$`),
      scope: 'write',
      serve: (params, payload, identity) => continuationDoors.fail(claims, identity, params[1] as string, payload),
    },
  ];
}
