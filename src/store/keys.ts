/**
 * The one module that names every Redis key askgate writes. Nothing else spells a key: the Lua scripts receive
 * full key names in KEYS, or (for keys they can only discover from a record, such as its group) a key *prefix*
 * built here and passed in ARGV, which they complete with the value they read.
 *
 * The default prefix `{askgate}:` wraps the name in a Redis Cluster hash tag, so every key hashes to one slot and
 * the multi-key Lua scripts stay legal on a cluster. Any prefix works on a single Redis; on a cluster keep a tag.
 *
 * Shards (ASKGATE_SHARDS=N, docs/scaling.md): every key below exists once per shard, under the shard's prefix —
 * shard 0 the deployment prefix `{askgate}:`, shard k ≥ 1 `{askgate:k}:` — so each shard is one hash tag, one
 * slot. One `Keys` instance names one shard's keys (`forShard(k)`); a Lua step only ever touches one shard. Only
 * `shards` and `shards:was` are deployment-wide (always in shard 0). With N = 1 every key is exactly as before.
 *
 * The keys, each with its type, what it holds and how long it lives:
 *
 * - `i:<id>` (string): one interaction, the envelope of `record-codec.ts` (its audit trail included). Lifetime:
 *   PEXPIREAT deadline + idle TTL at create (safety net); idle TTL from resolve.
 * - `pending` (zset): the pending list in buckets: one member per 64 sequence numbers (bucket b = floor(seq / 64),
 *   scored b), its text `<b>:` + one packed entry per ask still in it — id, seq % 64 + listed flag, deadline
 *   (redis/scripts/includes/bucketSize.lua); a record's body names its bucket (`pb`). Lifetime: permanent; an entry
 *   leaves on resolve, a bucket when its last entry does.
 * - `g:<group_id>` (zset): pending ids of one group, scored like `pending`. Lifetime: Redis drops it when its last
 *   member leaves.
 * - `deadlines` (zset): the deadline index: bucket numbers b, each scored by bucket b's earliest deadline when last
 *   scored (early after a resolve, never late; pop-due re-scores). Lifetime: permanent; a bucket leaves when it holds
 *   no deadline (popped or resolved).
 * - `seq` (string): the sequence counter (INCR) behind `pending` and its buckets. Lifetime: permanent.
 * - `s:<sha256 hex>` (string): one form schema's JSON, shared by every ask using it. Lifetime: extended to the latest
 *   expiry of a record using it.
 * - `db:<b>` (hash): the delivery lookup (redis/lookups.ts): field `<channel>:<ref>` → the id whose delivered message
 *   has `ref`, b = hash(field) mod 1024; a ref that is `<its recipient>:<message>` (Telegram, Slack, Discord) has no
 *   field, and is found through the recipient index. Lifetime: permanent; a field leaves when its question resolves
 *   (the resolve script), when set-delivery replaces it, or when a read finds its record gone.
 * - `rr:<w>` (hash): recently resolved questions' delivered messages: field `<channel>:<ref>` → id, written by the
 *   resolve script into window w = floor(now / (idle TTL / 4)), so a reply or receipt still finds a question answered
 *   a moment ago (redis/lookups.ts). Lifetime: PEXPIREAT the window's end + idle TTL.
 * - `w:<key>:<start>` (string): a fixed-window hit counter (start in epoch s). Lifetime: PEXPIREAT at the end of its
 *   window.
 * - `events` (channel): pub/sub: one message per transition. Lifetime: n/a (not a key).
 * - `chat-events` (channel): pub/sub: one message per chat log entry appended, `{"c": channel, "r": conversation,
 *   "m": entry}`. Lifetime: n/a (not a key).
 * - `r:<run_id>` (hash): a parked run (src/store/redis/run-store.ts documents its fields); listpack-encoded: no
 *   defaults stored, long values in 64-byte pieces. Lifetime: retention after its last write (PEXPIRE on every write).
 * - `rf:<level>:<n>` (hash): folded parks: a run parked on one ask with no hash of its own, field = run id, value =
 *   its ask's id and resume target (+ kind, parent, state when set), ≤ 64 bytes each; n = SHA-1(run id) mod 2^level
 *   (redis/scripts/includes/foldedBucketKey.lua). Lifetime: permanent; an entry leaves when its run is unfolded into
 *   `r:<run_id>` (the answer's claim, a kill, a bound thread), or, its record gone, when next found; a bucket when its
 *   last entry does.
 * - `rf` (string): the folded-runs level new entries go to (raised when a bucket holds 64). Lifetime: permanent.
 * - `ro:<run_id>` (list): the outcomes of a run's last resume webhook attempts, JSON, newest first, the last 10
 *   (RedisRunStore.recordOutcome). Lifetime: retention after its last attempt (PEXPIRE on every push).
 * - `runs:ready` (zset): runs whose resume or kill is due, scored by when (epoch ms). Lifetime: permanent; a run
 *   leaves when its continuation completes.
 * - `pace:<platform>:<account>:slots` (zset): the send slots reserved by every process sending as one platform account
 *   (redis/channel-state.ts): a Telegram bot (its numeric id), a Slack bot (its token hashed; each method tier is an
 *   account of its own, the token and the method hashed, whose one chat is `method`), a WhatsApp number, a Twilio
 *   sender. Lifetime: PEXPIRE a minute past its last slot.
 * - `pace:<platform>:<account>:pause` (string): epoch ms before which the account sends nothing (an account-wide 429).
 *   Lifetime: PX retry_after.
 * - `pace:<platform>:<account>:c:<chat>` (string): epoch ms of a chat's next free send time (pacing or a 429).
 *   Lifetime: PX until that time.
 * - `pace:<platform>:<account>:s:<chat>` (string): epoch ms of the last call's departure into a chat (the `pace-gap`
 *   gate). Lifetime: PX the chat's interval.
 * - `rb:<n>:<b>` (hash): the recipient index (redis/lookups.ts): field `<channel>:<recipient>:<id>` → sequence number,
 *   one per pending question asked of a recipient on a channel: how a reply, a STOP or the web chat finds a person's
 *   pending questions without reading the pending list. Written at the smallest level n of 64 / 512 / 4096 / 32768
 *   hashes whose buckets hold ~48 fields at the store's size; b = hash(`<channel>:<recipient>`) mod n; reads look at
 *   every level. Lifetime: permanent; a field leaves when its question resolves (the resolve script, every level), or
 *   when a read finds its record gone or resolved.
 * - `chat:<channel>:<conversation>` (list): a chat log (redis/channel-state.ts), e.g. a web chat conversation: the
 *   channel's entries (the web chat's JSON messages, the person's and the replies), oldest first, the last `keep`
 *   (200 for the web chat). Lifetime: PEXPIRE the channel's retention from its last entry (7 days for the web chat).
 * - `cref:<channel>:<recipient>` (string): a conversation reference a channel keeps to write to a person later.
 *   Lifetime: PX the channel's choice, from its last write.
 * - `ops:signals` (hash): operator signals raised by the deployment (src/core/operator-signals.ts), field
 *   `<signal>|<provider>` → count, read by every process's `/metrics`; shard 0 only. Lifetime: permanent. Its
 *   channel `ops:signal-events` carries each signal to the admin listeners of the event stream.
 * - `p:<name>` (list): every version of preset `<name>`, oldest first: JSON `{body, written_by, written_at}`; the
 *   version is the position + 1. Lifetime: permanent.
 * - `seen:<key>` (string): a seen-set claim, e.g. `stripe_checkout:<event id>` (src/confirmations/ingress.ts), or
 *   `channel:<platform event key>` (a channel's event dedupe, redis/channel-state.ts).
 *   Lifetime: PX until the signature's tolerance ends.
 * - `completions` (stream): the job protocol's completion reports (v2): one entry `r` = report JSON per continuation
 *   whose handler returned; consumer group `askgate`; one per shard, a complete under a lease reporting to its
 *   handler job's shard. Lifetime: an entry is deleted once its completion is recorded.
 * - `shards` (string): the deployment's shard count N (ASKGATE_SHARDS), recorded at start; only ever raised; shard 0
 *   only. Lifetime: permanent.
 * - `shards:was` (set): the shard counts the deployment had before N (where runs parked then live); shard 0 only.
 *   Lifetime: permanent.
 * - `<queue>:..` (BullMQ): the resume / handler-<name>~<identity> / turn / reply queues (src/queue/queues.ts) and follow-up
 *   (src/queue/follow-ups.ts), under `queuePrefix`, once per shard (src/queue/queue-shards.ts: a run's jobs in its
 *   shard's, a question's follow-ups in its shard's); completed (job protocol v1) and the confirmations' bridge /
 *   reconcile in shard 0 only. Lifetime: BullMQ's own; completed jobs kept a day.
 *
 * Handler workers (the SDK's startWorker) use none of these: they speak HTTP to the continuation doors.
 */
/**
 * The names, after a shard's prefix, of the keys (and the events channel) that scripts build from that prefix alone:
 * the resolve script gets the prefix and completes every name from this table, so a claim sends one argument for
 * them all. The getters below use the same table.
 */
export const KEY_NAMES = {
  group: 'g:',
  schema: 's:',
  run: 'r:',
  foldedRunsLevel: 'rf',
  foldedRuns: 'rf:',
  readyRuns: 'runs:ready',
  recipientBuckets: 'rb:',
  deliveryBuckets: 'db:',
  recentlyResolved: 'rr:',
  events: 'events',
} as const;

export class Keys {
  /** The prefix every key of this shard starts with, e.g. `{askgate}:` (shard 0) or `{askgate:3}:` (shard 3). */
  readonly prefix: string;
  /** The deployment's prefix (shard 0's), from which every shard's prefix is derived. */
  readonly deploymentPrefix: string;
  /** Which shard these keys name (0 for the deployment prefix itself). */
  readonly shard: number;

  constructor(prefix: string = DEFAULT_KEY_PREFIX, shard = 0) {
    this.deploymentPrefix = prefix;
    this.shard = shard;
    this.prefix = shardPrefix(prefix, shard);
  }

  /**
   * The keys of shard `k` of this deployment (docs/scaling.md, "Shards"): shard 0 keeps the deployment prefix, so a
   * store run with one shard is shard 0 of any later count; shard k ≥ 1 of `{T}:` is `{T:k}:`. Throws when k ≥ 1 and
   * the prefix is not of the form `{T}:` (config.ts refuses ASKGATE_SHARDS > 1 with such a prefix at start).
   */
  forShard(k: number): Keys {
    return k === this.shard ? this : new Keys(this.deploymentPrefix, k);
  }

  /**
   * The recorded shard count of the deployment (a string holding N, always in shard 0): raised at start to the
   * configured ASKGATE_SHARDS, never lowered (src/store/redis/shard-record.ts). Absent: 1.
   */
  get shardCount(): string {
    return `${this.deploymentPrefix}shards`;
  }

  /** The shard counts the deployment had before the current one (a set; shard 0), so runs parked then are found. */
  get earlierShardCounts(): string {
    return `${this.deploymentPrefix}shards:was`;
  }

  interaction(id: string): string {
    return `${this.prefix}i:${id}`;
  }

  /** The prefix of interaction keys; scripts append an id to it. */
  get interactionPrefix(): string {
    return this.interaction('');
  }

  /** The bucketed pending list (a zset of buckets of 64 sequence numbers; see the table). */
  get pending(): string {
    return `${this.prefix}pending`;
  }

  group(groupId: string): string {
    return `${this.prefix}${KEY_NAMES.group}${groupId}`;
  }

  /** The prefix of group keys; the resolve script appends the group id it reads from the record. */
  get groupPrefix(): string {
    return this.group('');
  }

  /** The deadline index (a zset of bucket numbers scored by each bucket's earliest deadline, or an earlier one). */
  get deadlines(): string {
    return `${this.prefix}deadlines`;
  }

  get seq(): string {
    return `${this.prefix}seq`;
  }

  schema(schemaHash: string): string {
    return `${this.prefix}${KEY_NAMES.schema}${schemaHash}`;
  }

  /** The prefix of schema keys; read scripts append the schema hash they read from the record. */
  get schemaPrefix(): string {
    return this.schema('');
  }

  /** A fixed-window counter; `windowStart` is the window's first second (epoch seconds). */
  window(key: string, windowStart: number): string {
    return `${this.prefix}w:${key}:${windowStart}`;
  }

  /** One parked run (a hash). */
  run(runId: string): string {
    return `${this.prefix}${KEY_NAMES.run}${runId}`;
  }

  /** The outcomes of a run's last resume webhook attempts (a list, newest first, trimmed to a few). */
  runAttempts(runId: string): string {
    return `${this.prefix}ro:${runId}`;
  }

  /** The prefix of run keys; the resolve script appends the run id it reads from the record. */
  get runPrefix(): string {
    return this.run('');
  }

  /** The current level of the folded-runs buckets (a number; absent = 0). See redis/scripts/includes/foldedBucketKey.lua. */
  get foldedRunsLevel(): string {
    return `${this.prefix}${KEY_NAMES.foldedRunsLevel}`;
  }

  /** The prefix of folded-runs buckets `rf:<level>:<n>`; the scripts complete it from the run id's SHA-1. */
  get foldedRunsPrefix(): string {
    return `${this.prefix}${KEY_NAMES.foldedRuns}`;
  }

  /** Runs whose continuation (resume or kill) is due and not yet completed: the sweep re-enqueues stragglers. */
  get readyRuns(): string {
    return `${this.prefix}${KEY_NAMES.readyRuns}`;
  }

  /** Bucket b of the recipient index's level of n buckets (a hash; redis/lookups.ts). */
  recipientBucket(n: number, bucket: number): string {
    return `${this.prefix}${KEY_NAMES.recipientBuckets}${n}:${bucket}`;
  }

  /** The prefix of recipient buckets; scripts append `<n>:<b>`. */
  get recipientBucketPrefix(): string {
    return `${this.prefix}${KEY_NAMES.recipientBuckets}`;
  }

  /** A bucket of the delivery lookup (a hash; redis/lookups.ts). */
  deliveryBucket(bucket: number): string {
    return `${this.prefix}${KEY_NAMES.deliveryBuckets}${bucket}`;
  }

  /** The prefix of delivery buckets; scripts append a bucket number. */
  get deliveryBucketPrefix(): string {
    return `${this.prefix}${KEY_NAMES.deliveryBuckets}`;
  }

  /** The window hashes of recently resolved questions' delivered messages (redis/lookups.ts); `<w>` appended. */
  get recentlyResolvedPrefix(): string {
    return `${this.prefix}${KEY_NAMES.recentlyResolved}`;
  }

  /** One window of recently resolved questions' delivered messages. */
  recentlyResolved(window: number): string {
    return `${this.recentlyResolvedPrefix}${window}`;
  }

  /** Operator signals' totals (redis/operator-signals.ts): field `<signal>|<provider>` → count. */
  get operatorSignals(): string {
    return `${this.prefix}ops:signals`;
  }

  /** The pub/sub channel of operator signals: every process's admin stream listeners hear each one. */
  get operatorSignalEvents(): string {
    return `${this.prefix}ops:signal-events`;
  }

  /** The pub/sub channel of chat log appends: every process serving a chat page hears every append. */
  get chatEvents(): string {
    return `${this.prefix}chat-events`;
  }

  /** One chat log: a channel's conversation (a capped list, appended by the `chat-log-append` script). */
  chatLog(channel: string, conversation: string): string {
    return `${this.prefix}chat:${channel}:${conversation}`;
  }

  /** A conversation reference a channel keeps to write to a recipient later. */
  conversationRef(channel: string, recipient: string): string {
    return `${this.prefix}cref:${channel}:${recipient}`;
  }

  /**
   * Shared pacing of a platform account (a Telegram bot, a Slack workspace's bot, a WhatsApp number, a Twilio
   * sender): its reserved send slots.
   */
  paceSlots(platform: string, account: string): string {
    return `${this.prefix}pace:${platform}:${account}:slots`;
  }

  /** Shared pacing: until when the whole account waits out a 429. */
  pacePause(platform: string, account: string): string {
    return `${this.prefix}pace:${platform}:${account}:pause`;
  }

  /** Shared pacing: one chat's (channel's, recipient's) next free send time. */
  paceChat(platform: string, account: string, chat: string): string {
    return `${this.prefix}pace:${platform}:${account}:c:${chat}`;
  }

  /** Shared pacing: when the last call into one chat left (the departure gate). */
  paceDeparture(platform: string, account: string, chat: string): string {
    return `${this.prefix}pace:${platform}:${account}:s:${chat}`;
  }

  /** Every version of one preset (a list, appended with RPUSH). */
  preset(name: string): string {
    return `${this.prefix}p:${name}`;
  }

  /** One seen-set claim (SET NX PX). */
  seen(key: string): string {
    return `${this.prefix}seen:${key}`;
  }

  /**
   * The BullMQ prefix: the key prefix without its trailing colon (BullMQ adds one), so queue keys share the hash tag
   * of every other key, e.g. `{askgate}:resume:wait`.
   */
  get queuePrefix(): string {
    return this.prefix.endsWith(':') ? this.prefix.slice(0, -1) : this.prefix;
  }

  /**
   * The job protocol's completions stream (version 2, src/runs/job-protocol.ts): a complete under a lease appends one
   * entry per completed continuation; askgate workers read it in a consumer group and delete each entry once recorded.
   */
  get completions(): string {
    return `${this.prefix}completions`;
  }

  /** The pub/sub channel of interaction events. Channels are not keys, but share the prefix so stores on one Redis stay apart. */
  get events(): string {
    return `${this.prefix}${KEY_NAMES.events}`;
  }
}

export const DEFAULT_KEY_PREFIX = '{askgate}:';

/** `{T}:` with a non-empty tag T free of braces: the prefixes that can be split into shards. */
const SHARDABLE_PREFIX = /^\{([^{}]+)\}:$/;

/** Whether `prefix` has the `{T}:` form shards need (shard k's prefix is `{T:k}:`). */
export function isShardablePrefix(prefix: string): boolean {
  return SHARDABLE_PREFIX.test(prefix);
}

/** The key prefix of shard `k` of a deployment whose prefix is `prefix`: `prefix` itself for 0, `{T:k}:` for k ≥ 1. */
export function shardPrefix(prefix: string, k: number): string {
  if (k === 0) return prefix;
  const tag = SHARDABLE_PREFIX.exec(prefix)?.[1];
  if (tag === undefined || !Number.isInteger(k) || k < 0)
    throw new Error(
      `no shard ${k} of key prefix "${prefix}": shards need a prefix of the form {name}: (ASKGATE_SHARDS).`,
    );
  return `{${tag}:${k}}:`;
}
