import { createHash } from 'node:crypto';
import { withoutUnusedDefinitions } from './unused-definitions.js';
import type { Cluster, Redis } from 'ioredis';
import { ADD_SURFACE } from './add-surface.js';
import { AUDIT_APPEND, AUDIT_SEAL } from './audit.js';
import { CHAT_LOG_APPEND } from './chat-log.js';
import { CREATE } from './create.js';
import { DELIVERY_RECEIPT } from './delivery-receipt.js';
import { FIND_BY_TICKET } from './find-by-ticket.js';
import { GET } from './get.js';
import { HIT_WINDOW } from './hit-window.js';
import { LIST_PENDING } from './list-pending.js';
import { MIGRATE_INDEXES } from './migrate-indexes.js';
import { PACE_GAP } from './pace-gap.js';
import { PARK_RUN } from './park-run.js';
import { POP_DUE } from './pop-due.js';
import { REPORT } from './report.js';
import { RESOLVE } from './resolve.js';
import { RUN_BIND, RUN_COMPLETE, RUN_KILL } from './run-transition.js';
import { RUN_EXISTS, RUN_READ } from './folded-runs.js';
import { SET_DELIVERY } from './set-delivery.js';
import { TELEGRAM_PUSH_BACK, TELEGRAM_RESERVE } from './telegram-pace.js';

/**
 * The one script loader: every Lua script askgate runs is registered here, once, on the command connection
 * (connections.ts), and nowhere else — but the SDK worker's report (`runReport`), which runs on its BullMQ
 * connection. Each script's own file opens with its header: what it guarantees, its KEYS, its ARGV and its return
 * codes.
 */

type Arg = string | number;
/** A bulk reply: a string, or null for a missing value. */
export type Bulk = string | null;

/** The scripts as typed client methods. Each runs by EVALSHA and falls back to EVAL when Redis lacks it. */
export interface ScriptCommands {
  // The interaction store (redis-store.ts).
  askgateCreate(...args: Arg[]): Promise<number>;
  /** `[code, envelope, schema, verdict, runId, generation, runFields]`; `[-1]` when the record is missing. */
  askgateResolve(...args: Arg[]): Promise<[number, Bulk?, Bulk?, Bulk?, Bulk?, Bulk?, string[]?]>;
  /** `[envelope, schema]`, or null when the record is missing. */
  askgateGet(...args: Arg[]): Promise<[string, Bulk] | null>;
  /** `[id, envelope, schema]`, or null when no live ticket. */
  askgateFindByTicket(...args: Arg[]): Promise<[string, string, Bulk] | null>;
  /** 1 stored, -1 no such record, -2 no such surface. */
  askgateSetDelivery(...args: Arg[]): Promise<number>;
  /** 1 added, 2 already a surface, 0 not pending, -1 no such record. */
  askgateAddSurface(...args: Arg[]): Promise<number>;
  /** 2 failed now, 1 moved, 0 unchanged, -1 no such delivery. */
  askgateDeliveryReceipt(...args: Arg[]): Promise<number>;
  /** 1 appended, -1 no such record. */
  askgateAuditAppend(...args: Arg[]): Promise<number>;
  /** 1 sealed, 0 the seal moved since the read, -1 no such record. */
  askgateAuditSeal(...args: Arg[]): Promise<number>;
  /** `[nextCursor, [id, envelope, seq, schema], ...]`. */
  askgateListPending(...args: Arg[]): Promise<[Bulk, ...Array<[string, string, string, Bulk]>]>;
  askgatePopDue(...args: Arg[]): Promise<string[]>;
  askgateHitWindow(...args: Arg[]): Promise<number>;
  /** `[nextCursor, converted]`. */
  askgateMigrateIndexes(...args: Arg[]): Promise<[string, number]>;
  // Runs (run-store.ts).
  /** The run's generation (> 0), or a negative refusal code. */
  askgateParkRun(...args: Arg[]): Promise<number>;
  /** 1 resumed, 2 killed, 0 nothing to complete. */
  askgateRunComplete(...args: Arg[]): Promise<number>;
  /** The run's generation, or -1 when it was not parked. */
  askgateRunKill(...args: Arg[]): Promise<number>;
  /** 1 bound, 0 owned by another identity. */
  askgateRunBind(...args: Arg[]): Promise<number>;
  /** The run's fields, flat `[field, value, ...]` (pieces joined; a folded park's derived), or `[]`. */
  askgateRunRead(...args: Arg[]): Promise<string[]>;
  /** 1 when the run has a hash or a live folded park, else 0 (what `EXISTS r:<run_id>` answered before folding). */
  askgateRunExists(...args: Arg[]): Promise<number>;
  // Telegram's shared pacing (channels/telegram/shared-pacing.ts).
  /** `[slot, wait]`: the reserved slot (epoch ms, Redis time) and the wait until it, ms. */
  askgateTelegramReserve(...args: Arg[]): Promise<[number, number]>;
  /** The wait left in the scope, ms. */
  askgateTelegramPushBack(...args: Arg[]): Promise<number>;
  // The same two scripts for every other channel's shared pacing (channels/shared-pacing.ts).
  /** `[slot, wait]`, as askgateTelegramReserve. */
  askgatePaceReserve(...args: Arg[]): Promise<[number, number]>;
  /** The wait left in the scope, ms. */
  askgatePacePushBack(...args: Arg[]): Promise<number>;
  /** 0: call now (departure recorded); else the wait before trying again, ms. */
  askgatePaceGap(...args: Arg[]): Promise<number>;
  // The web chat's conversations (channels/web/conversation-log.ts).
  /** The conversation's length after the append. */
  askgateChatLogAppend(...args: Arg[]): Promise<number>;
}

/** A command connection with every script registered. */
export type ScriptClient = (Redis | Cluster) & ScriptCommands;

const SCRIPTS: Record<keyof ScriptCommands, { lua: string; numberOfKeys: number }> = {
  askgateCreate: { lua: CREATE, numberOfKeys: 7 },
  askgateResolve: { lua: RESOLVE, numberOfKeys: 3 },
  askgateGet: { lua: GET, numberOfKeys: 1 },
  askgateFindByTicket: { lua: FIND_BY_TICKET, numberOfKeys: 1 },
  askgateSetDelivery: { lua: SET_DELIVERY, numberOfKeys: 1 },
  askgateAddSurface: { lua: ADD_SURFACE, numberOfKeys: 3 },
  askgateDeliveryReceipt: { lua: DELIVERY_RECEIPT, numberOfKeys: 1 },
  askgateAuditAppend: { lua: AUDIT_APPEND, numberOfKeys: 1 },
  askgateAuditSeal: { lua: AUDIT_SEAL, numberOfKeys: 1 },
  askgateListPending: { lua: LIST_PENDING, numberOfKeys: 2 },
  askgatePopDue: { lua: POP_DUE, numberOfKeys: 2 },
  askgateHitWindow: { lua: HIT_WINDOW, numberOfKeys: 1 },
  askgateMigrateIndexes: { lua: MIGRATE_INDEXES, numberOfKeys: 3 },
  askgateParkRun: { lua: PARK_RUN, numberOfKeys: 4 },
  askgateRunComplete: { lua: RUN_COMPLETE, numberOfKeys: 2 },
  askgateRunKill: { lua: RUN_KILL, numberOfKeys: 2 },
  askgateRunBind: { lua: RUN_BIND, numberOfKeys: 1 },
  askgateRunRead: { lua: RUN_READ, numberOfKeys: 1 },
  askgateRunExists: { lua: RUN_EXISTS, numberOfKeys: 1 },
  askgateTelegramReserve: { lua: TELEGRAM_RESERVE, numberOfKeys: 3 },
  askgateTelegramPushBack: { lua: TELEGRAM_PUSH_BACK, numberOfKeys: 1 },
  // One budget script for every platform: only the keys (pace:<platform>:<account>:...) differ from Telegram's.
  askgatePaceReserve: { lua: TELEGRAM_RESERVE, numberOfKeys: 3 },
  askgatePacePushBack: { lua: TELEGRAM_PUSH_BACK, numberOfKeys: 1 },
  askgatePaceGap: { lua: PACE_GAP, numberOfKeys: 1 },
  askgateChatLogAppend: { lua: CHAT_LOG_APPEND, numberOfKeys: 1 },
};

/**
 * One Lua script, run as ioredis runs a defined command: by EVAL the first time on a connection's socket (which loads
 * it), by EVALSHA after; an EVALSHA that Redis answers NOSCRIPT (a restart, a failover, SCRIPT FLUSH) ran nothing, and
 * is sent again as EVAL. Either way one call is one round trip on a connection that has the script.
 *
 * Not ioredis `defineCommand`: a defined command lives in the client's `scriptsSet`, and ioredis copies every entry
 * (two methods each) onto every pipeline it builds — and the command connection builds one per auto-pipelined batch,
 * several per park cycle. EVAL and EVALSHA are plain commands: their batches build a bare pipeline.
 */
class LuaScript {
  private readonly sha: string;
  /** The sockets (a Cluster: the client) that were sent the body; the key of a reconnected one is new. */
  private readonly loaded = new WeakSet<object>();

  private readonly lua: string;

  constructor(
    spliced: string,
    private readonly numberOfKeys: number,
  ) {
    // The helpers this script never calls are left out: Redis would build each one on every call.
    this.lua = withoutUnusedDefinitions(spliced);
    this.sha = createHash('sha1').update(this.lua).digest('hex');
  }

  run(client: Redis | Cluster, args: Arg[]): Promise<unknown> {
    const socket: object = ('stream' in client ? client.stream : undefined) ?? client;
    if (!this.loaded.has(socket)) {
      this.loaded.add(socket);
      return client.eval(this.lua, this.numberOfKeys, ...args);
    }
    return client.evalsha(this.sha, this.numberOfKeys, ...args).catch((error: unknown) => {
      if (!(error instanceof Error && error.message.startsWith('NOSCRIPT'))) throw error;
      return client.eval(this.lua, this.numberOfKeys, ...args);
    });
  }
}

/** Registers every script on `client` (a method per script, see LuaScript) and returns the client typed with them. */
export function registerScripts(client: Redis | Cluster): ScriptClient {
  for (const [name, { lua, numberOfKeys }] of Object.entries(SCRIPTS)) {
    const script = new LuaScript(lua, numberOfKeys);
    Object.defineProperty(client, name, { value: (...args: Arg[]) => script.run(client, args) });
  }
  // The one cast: the methods are added at run time, and TypeScript cannot see them; SCRIPTS is keyed by
  // ScriptCommands, so every method the type names was just added.
  return client as ScriptClient;
}

const REPORT_SCRIPT = new LuaScript(REPORT, 2);

/**
 * The SDK worker's completion report (report.ts): marks the handler job `jobKey` reported and appends `report` (JSON)
 * to the `completions` stream, atomically, on the worker's own connection.
 */
export async function runReport(
  client: Redis | Cluster,
  jobKey: string,
  completions: string,
  report: string,
): Promise<void> {
  await REPORT_SCRIPT.run(client, [jobKey, completions, report]);
}
