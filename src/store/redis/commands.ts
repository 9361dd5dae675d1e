import type { Redis } from 'ioredis';
import { CREATE } from './scripts/create.js';
import { FIND_BY_TICKET } from './scripts/find-by-ticket.js';
import { GET } from './scripts/get.js';
import { HIT_WINDOW } from './scripts/hit-window.js';
import { LIST_PENDING } from './scripts/list-pending.js';
import { MIGRATE_INDEXES } from './scripts/migrate-indexes.js';
import { POP_DUE } from './scripts/pop-due.js';
import { RESOLVE } from './scripts/resolve.js';
import { SET_DELIVERY } from './scripts/set-delivery.js';

type Arg = string | number;
/** A bulk reply: a string, or null for a missing value. */
export type Bulk = string | null;

/** The scripts as typed client methods. Each runs by EVALSHA and falls back to EVAL when Redis lacks it. */
export interface ScriptCommands {
  askgateCreate(...args: Arg[]): Promise<number>;
  /** `[code, envelope, schema, verdict, runId, generation, runFields]`; `[-1]` when the record is missing. */
  askgateResolve(...args: Arg[]): Promise<[number, Bulk?, Bulk?, Bulk?, Bulk?, Bulk?, string[]?]>;
  /** `[envelope, schema]`, or null when the record is missing. */
  askgateGet(...args: Arg[]): Promise<[string, Bulk] | null>;
  /** `[id, envelope, schema]`, or null when no live ticket. */
  askgateFindByTicket(...args: Arg[]): Promise<[string, string, Bulk] | null>;
  askgateSetDelivery(...args: Arg[]): Promise<number>;
  /** `[nextCursor, [id, envelope, schema], ...]`. */
  askgateListPending(...args: Arg[]): Promise<[Bulk, ...Array<[string, string, Bulk]>]>;
  askgatePopDue(...args: Arg[]): Promise<string[]>;
  askgateHitWindow(...args: Arg[]): Promise<number>;
  /** `[nextCursor, converted]`. */
  askgateMigrateIndexes(...args: Arg[]): Promise<[string, number]>;
}

const SCRIPTS: Record<keyof ScriptCommands, { lua: string; numberOfKeys: number }> = {
  askgateCreate: { lua: CREATE, numberOfKeys: 7 },
  askgateResolve: { lua: RESOLVE, numberOfKeys: 3 },
  askgateGet: { lua: GET, numberOfKeys: 1 },
  askgateFindByTicket: { lua: FIND_BY_TICKET, numberOfKeys: 1 },
  askgateSetDelivery: { lua: SET_DELIVERY, numberOfKeys: 1 },
  askgateListPending: { lua: LIST_PENDING, numberOfKeys: 2 },
  askgatePopDue: { lua: POP_DUE, numberOfKeys: 2 },
  askgateHitWindow: { lua: HIT_WINDOW, numberOfKeys: 1 },
  askgateMigrateIndexes: { lua: MIGRATE_INDEXES, numberOfKeys: 3 },
};

/** Registers every script on `client` (ioredis `defineCommand`) and returns the client typed with them. */
export function defineScripts(client: Redis): Redis & ScriptCommands {
  for (const [name, script] of Object.entries(SCRIPTS)) client.defineCommand(name, script);
  // defineCommand adds the methods at run time; ioredis cannot type them, so the cast names what was just added.
  return client as Redis & ScriptCommands;
}
