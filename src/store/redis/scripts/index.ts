import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Cluster, Redis } from 'ioredis';
import type { AuditEventType } from '../../../core/audit.js';
import type { InteractionEventType, InteractionStatus } from '../../../core/types.js';
import { REPORTED_FIELD } from '../../../runs/job-protocol.js';
import { TERMINAL_EVENT } from '../../audit-trail.js';
import { CONVERSATION_REFS } from '../../delivery-refs.js';
import { KEY_NAMES } from '../../keys.js';
import { STATUS_CODES } from '../../record-codec.js';
import { DELIVERY_BUCKETS, ENTRIES_PER_BUCKET, RECENT_WINDOWS, RECIPIENT_LEVELS } from '../lookups.js';

/**
 * The one script loader. Every Lua script askgate runs is a `.lua` file beside this module, one per transition,
 * named as BullMQ names its commands: `<name>-<number of keys>.lua` (the KEYS count is read from the name). Each
 * opens with its header: what it guarantees, its KEYS, its ARGV and its return codes. Shared helpers are small files
 * under `includes/`, pulled in by a directive line
 *
 *     --- @include "includes/splitRecord"
 *
 * (the path relative to the file holding the directive, without `.lua`), which this loader replaces by the file's
 * text, resolved the same way, once per process. Each helper lands once per scope: a directive at the start of a
 * line (the script's top level) includes a file at most once in the whole script, and a file already included there
 * is visible everywhere after it; an indented directive (inside a function) includes it into that function unless
 * the top level already did, once per block of directives. So a helper only a rare branch needs is included inside
 * a function that branch calls, and built only when it runs (resolve-3.lua's lookup and run helpers): Redis runs a
 * script's whole body on every call, and every `local function` it reaches is a closure built per call.
 *
 * `{{NAME}}` or `{{NAME.member}}` stands for a value TypeScript owns (SCRIPT_CONSTANTS below), written as a Lua
 * literal (a string quoted, a number, an array or a map as a table constructor). An unknown name fails the load.
 *
 * Every script is registered here, once, on the command connection (connections.ts), and nowhere else — but the
 * continuation report (`runReport`, report-5.lua), which runs on the BullMQ connection that holds the handler job.
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
  // Runs (run-store.ts).
  /** The run's generation (> 0), or a negative refusal code. */
  askgateParkRun(...args: Arg[]): Promise<number>;
  /** 1 resumed, 2 killed, 0 nothing to complete. */
  askgateRunComplete(...args: Arg[]): Promise<number>;
  /** The run's generation, or -1 when it was not parked. */
  askgateRunKill(...args: Arg[]): Promise<number>;
  /** 1 bound, 0 owned by another identity. */
  askgateRunBind(...args: Arg[]): Promise<number>;
  /** 1 saved, 0 owned by another identity (checkpoints.ts). */
  askgateCheckpointSave(...args: Arg[]): Promise<number>;
  /** The run's fields, flat `[field, value, ...]` (pieces joined; a folded park's derived), or `[]`. */
  askgateRunRead(...args: Arg[]): Promise<string[]>;
  /** 1 when the run has a hash or a live folded park, else 0 (what `EXISTS r:<run_id>` answers for an unfolded run). */
  askgateRunExists(...args: Arg[]): Promise<number>;
  // Channels' shared pacing (ChannelState, channel-state.ts).
  /** `[slot, wait]`: the reserved slot (epoch ms, Redis time) and the wait until it, ms. */
  askgatePaceReserve(...args: Arg[]): Promise<[number, number]>;
  /** The wait left in the scope, ms. */
  askgatePacePushBack(...args: Arg[]): Promise<number>;
  /** 0: call now (departure recorded); else the wait before trying again, ms. */
  askgatePaceGap(...args: Arg[]): Promise<number>;
  // Channels' chat logs (ChannelState, channel-state.ts).
  /** The log's length after the append. */
  askgateChatLogAppend(...args: Arg[]): Promise<number>;
}

/** A command connection with every script registered. */
export type ScriptClient = (Redis | Cluster) & ScriptCommands;

/** Each method's script, by file name (without `.lua`). */
const SCRIPTS: Record<keyof ScriptCommands, string> = {
  askgateCreate: 'create-6',
  askgateResolve: 'resolve-3',
  askgateGet: 'get-1',
  askgateSetDelivery: 'set-delivery-1',
  askgateAddSurface: 'add-surface-3',
  askgateDeliveryReceipt: 'delivery-receipt-1',
  askgateAuditAppend: 'audit-append-1',
  askgateAuditSeal: 'audit-seal-1',
  askgateListPending: 'list-pending-2',
  askgatePopDue: 'pop-due-2',
  askgateHitWindow: 'hit-window-1',
  askgateParkRun: 'park-run-4',
  askgateRunComplete: 'run-complete-2',
  askgateRunKill: 'run-kill-2',
  askgateRunBind: 'run-bind-1',
  askgateCheckpointSave: 'checkpoint-save-1',
  askgateRunRead: 'run-read-1',
  askgateRunExists: 'run-exists-1',
  // One budget script for every platform: only the keys (pace:<platform>:<account>:...) differ.
  askgatePaceReserve: 'pace-reserve-3',
  askgatePacePushBack: 'pace-push-back-1',
  askgatePaceGap: 'pace-gap-1',
  askgateChatLogAppend: 'chat-log-append-1',
};

/** Status letter → value, for the terminal statuses (e.g. `{ a: 'interaction.answered' }`). */
function byTerminalLetter<T>(of: (status: Exclude<InteractionStatus, 'pending'>) => T): Record<string, T> {
  const terminal = ['answered', 'expired', 'cancelled'] as const;
  return Object.fromEntries(terminal.map((status) => [STATUS_CODES[status], of(status)]));
}

/**
 * The values the scripts' `{{placeholders}}` stand for: one table, each value taken from the TypeScript module that
 * owns it (or typed by the union that names it), so a script and the code reading what it wrote cannot drift.
 */
export const SCRIPT_CONSTANTS = {
  /** Key names after a shard's prefix (keys.ts): the resolve script completes them from the prefix alone. */
  KEY_NAMES,
  /** Envelope part 1's status letters (record-codec.ts). */
  STATUS_CODES,
  /** The events the scripts publish. */
  EVENT_TYPES: {
    created: 'interaction.created',
    deliveryFailed: 'interaction.delivery_failed',
  } satisfies Record<string, InteractionEventType>,
  /** The event a claim publishes, by the status letter it writes. */
  EVENT_TYPE_BY_LETTER: byTerminalLetter((status): InteractionEventType => `interaction.${status}`),
  /** The audit events the scripts append. */
  AUDIT_EVENTS: { delivered: 'delivered', deliveryFailed: 'delivery_failed' } satisfies Record<string, AuditEventType>,
  /** The terminal audit event a claim appends, by the status letter it writes (audit-trail.ts). */
  TERMINAL_EVENT_BY_LETTER: byTerminalLetter((status) => TERMINAL_EVENT[status]),
  // The channel lookups' sizes (lookups.ts) and the conversation references a first delivery leaves out.
  RECIPIENT_LEVELS,
  ENTRIES_PER_BUCKET,
  DELIVERY_BUCKETS,
  RECENT_WINDOWS,
  CONVERSATION_REFS,
  /** The job protocol's reported mark in a handler job's hash (src/runs/job-protocol.ts). */
  REPORTED_FIELD,
};

const HERE = new URL('./', import.meta.url);
const INCLUDE = /^([ \t]*)--- @include "([^"]+)"[ \t]*$/;
const PLACEHOLDER = /\{\{([A-Za-z_][\w.]*)\}\}/g;
const LUA_KEYWORDS = new Set(
  'and break do else elseif end false for function goto if in local nil not or repeat return then true until while'.split(
    ' ',
  ),
);

/** The files read so far (a script's or an include's text, as written), by URL. */
const files = new Map<string, string>();

function fileText(url: URL): string {
  let text = files.get(url.href);
  if (text === undefined) {
    try {
      text = readFileSync(url, 'utf8');
    } catch (err) {
      throw new Error(`askgate: cannot read the Lua script ${url.pathname}: ${(err as Error).message}`);
    }
    files.set(url.href, text);
  }
  return text;
}

/**
 * `text` (from `from`) with its include directives replaced (see the top of this module). `seen` holds the files
 * included at this level of the script; `chain` the files being expanded, to name a cycle.
 */
function expand(text: string, from: URL, seen: Set<string>, chain: readonly string[]): string {
  const out: string[] = [];
  // The set an indented block of directives shares: a copy of the top level's, started by the block's first line.
  let block: { indent: string; seen: Set<string> } | null = null;
  for (const line of text.split('\n')) {
    const directive = INCLUDE.exec(line);
    if (directive === null) {
      const code = line.trim();
      if (code !== '' && !code.startsWith('--')) block = null;
      out.push(line);
      continue;
    }
    const [, indent = '', name = ''] = directive;
    const url = new URL(`${name}.lua`, from);
    if (chain.includes(url.href)) {
      throw new Error(`askgate: the Lua include ${name} in ${from.pathname} includes itself (${chain.join(' → ')})`);
    }
    let scope = seen;
    if (indent !== '') {
      if (block === null || block.indent !== indent) block = { indent, seen: new Set(seen) };
      scope = block.seen;
    }
    if (scope.has(url.href)) continue;
    scope.add(url.href);
    const body = expand(fileText(url), url, scope, [...chain, url.href]).replace(/\n+$/, '');
    out.push(indent === '' ? body : body.replace(/^(?=.)/gm, indent));
  }
  return out.join('\n');
}

/** A value of SCRIPT_CONSTANTS as a Lua literal. */
function luaLiteral(value: unknown, name: string): string {
  if (typeof value === 'string') return `'${value.replace(/[\\']/g, '\\$&').replace(/\n/g, '\\n')}'`;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (Array.isArray(value)) return `{ ${value.map((v) => luaLiteral(v, name)).join(', ')} }`;
  if (typeof value === 'object' && value !== null) {
    const fields = Object.entries(value).map(([key, v]) => {
      const plain = /^[A-Za-z_]\w*$/.test(key) && !LUA_KEYWORDS.has(key);
      return `${plain ? key : `[${luaLiteral(key, name)}]`} = ${luaLiteral(v, name)}`;
    });
    return `{ ${fields.join(', ')} }`;
  }
  throw new Error(`askgate: the Lua placeholder {{${name}}} has no Lua form (${typeof value})`);
}

function substitute(text: string, where: string): string {
  const out = text.replace(PLACEHOLDER, (_, name: string) => {
    let value: unknown = SCRIPT_CONSTANTS;
    for (const part of name.split('.')) {
      value =
        typeof value === 'object' && value !== null && Object.hasOwn(value, part)
          ? (value as Record<string, unknown>)[part]
          : undefined;
    }
    if (value === undefined) throw new Error(`askgate: unknown placeholder {{${name}}} in the Lua script ${where}`);
    return luaLiteral(value, name);
  });
  if (out.includes('{{')) throw new Error(`askgate: a malformed placeholder ({{ without a name}}) in ${where}`);
  return out;
}

/**
 * Lua `text` with its includes and placeholders resolved, includes found from `from` (by default this folder):
 * what a script's file becomes, and how a test or benchmark runs a helper of its own.
 */
export function resolveLua(text: string, from: URL = HERE): string {
  return substitute(expand(text, from, new Set(), []), from.pathname);
}

/** The Lua a script runs: its file (`<name>-<keys>.lua`) resolved. */
export function scriptLua(file: string): string {
  const url = new URL(`${file}.lua`, HERE);
  return resolveLua(fileText(url), url);
}

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
  private readonly lua: string;
  private readonly sha: string;
  private readonly numberOfKeys: number;
  /** The sockets (a Cluster: the client) that were sent the body; the key of a reconnected one is new. */
  private readonly loaded = new WeakSet<object>();

  constructor(file: string) {
    const keys = /-(\d+)$/.exec(file);
    if (keys === null) throw new Error(`askgate: a Lua script's name ends with its number of keys: ${file}`);
    this.numberOfKeys = Number(keys[1]);
    this.lua = scriptLua(file);
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

/** The scripts loaded so far, by file: each is read and resolved once per process. */
const loadedScripts = new Map<string, LuaScript>();

function script(file: string): LuaScript {
  let loaded = loadedScripts.get(file);
  if (loaded === undefined) {
    loaded = new LuaScript(file);
    loadedScripts.set(file, loaded);
  }
  return loaded;
}

/** Registers every script on `client` (a method per script, see LuaScript) and returns the client typed with them. */
export function registerScripts(client: Redis | Cluster): ScriptClient {
  for (const [name, file] of Object.entries(SCRIPTS)) {
    const lua = script(file);
    Object.defineProperty(client, name, { value: (...args: Arg[]) => lua.run(client, args) });
  }
  // The one cast: the methods are added at run time, and TypeScript cannot see them; SCRIPTS is keyed by
  // ScriptCommands, so every method the type names was just added.
  return client as ScriptClient;
}

/** Where a report records its completion: in the run itself (a park with no chat reply to post first), or the stream. */
export type ReportTarget =
  | { completions: string; run: null }
  | {
      completions: string;
      run: { key: string; readyRuns: string; runId: string; generation: number; attempt: number; retentionMs: number };
    };

/**
 * A handler continuation's completion under its lease (report-5.lua): marks the handler job `jobKey` reported and,
 * atomically, when `leaseId` holds the job's lock, records the run's completion in place (`target.run`) or appends
 * `report` (JSON) to the `completions` stream. 1 recorded, 0 reported already, -1 not this lease, -2 no such job. Run
 * on the gateway's BullMQ connection, which holds the job.
 */
export async function runReport(
  client: Redis | Cluster,
  jobKey: string,
  target: ReportTarget,
  report: string,
  leaseId: string,
): Promise<1 | 0 | -1 | -2> {
  const { completions, run } = target;
  const keys = [jobKey, `${jobKey}:lock`, completions];
  const args =
    run === null
      ? // KEYS[4] and KEYS[5] go unread on this path; the stream's name stands in (same slot on a Redis Cluster).
        [...keys, completions, completions, report, leaseId, '', '', '', '', '']
      : [
          ...keys,
          run.key,
          run.readyRuns,
          // The report itself is not sent when it is not appended: its output may be large, and only the stream reads it.
          '',
          leaseId,
          run.generation,
          run.runId,
          run.retentionMs,
          Date.now(),
          run.attempt,
        ];
  return (await script('report-5').run(client, args)) as 1 | 0 | -1 | -2;
}

export const SCRIPT_FILES: readonly string[] = [...new Set([...Object.values(SCRIPTS), 'report-5'])];
