import { EVENT_JSON, EXTEND_TO, RECORD } from './fragments.js';

/** The one atomic claim of an interaction. */
export const RESOLVE = `--[[
  resolve: moves a pending interaction to answered | expired | cancelled, exactly once.

  Guarantees: only a record whose status is pending changes; however many callers race, one gets 1 and every other
  gets 0 with the record as the winner left it. The winner's step also drops the id from the pending list, its
  group and the deadline index, shortens the record's and ticket's lives to the idle TTL (both stay readable until
  then), keeps the shared schema alive at least as long, and publishes the matching event with the whole record.

  KEYS[1] record            i:<id>
  KEYS[2] pending zset
  KEYS[3] deadlines zset

  ARGV[1]  id
  ARGV[2]  status letter: a (answered) | e (expired) | c (cancelled)
  ARGV[3]  result JSON, or '' for null
  ARGV[4]  resolved_at as a JSON string
  ARGV[5]  idle TTL, ms
  ARGV[6]  now, epoch ms
  ARGV[7]  group key prefix   (completed with the group the record names)
  ARGV[8]  ticket key prefix
  ARGV[9]  schema key prefix
  ARGV[10] events channel
  ARGV[11] event type, e.g. interaction.answered

  Returns { code, envelope, schema }
    code  1  resolved by this call; the envelope is the resolved record
    code  0  not pending; nothing changed; the envelope is the record as it is
    code -1  no such record (never created, or pruned); nothing else
]]
${RECORD}
${EVENT_JSON}
${EXTEND_TO}
local id = ARGV[1]
local text, parts, schema = readRecord(KEYS[1], ARGV[9])
if not text then return { -1 } end
if parts[1] ~= 'p' then return { 0, text, schema } end

local idleMs, nowMs = tonumber(ARGV[5]), tonumber(ARGV[6])
parts[1], parts[6], parts[7] = ARGV[2], ARGV[3], ARGV[4]
text = joinRecord(parts)
redis.call('SET', KEYS[1], text, 'PX', idleMs)
redis.call('ZREM', KEYS[2], id)
redis.call('ZREM', KEYS[3], id)
if parts[3] ~= '' then redis.call('ZREM', ARGV[7] .. cjson.decode(parts[3]), id) end
if parts[4] ~= '' then redis.call('PEXPIRE', ARGV[8] .. cjson.decode(parts[4]), idleMs) end
if parts[5] ~= '' then extendTo(ARGV[9] .. cjson.decode(parts[5]), nowMs + idleMs, nowMs) end

redis.call('PUBLISH', ARGV[10], eventJson(ARGV[11], id, text, schema))
return { 1, text, schema }
`;
