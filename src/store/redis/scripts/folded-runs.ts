import { JOINED_RUN, PIECES, SPLIT_LINES } from './fragments.js';

/**
 * Folded parks: a run parked on one ask, with no run hash of its own yet, kept as one field of a small bucketed hash.
 *
 * Why: a run hash is a key with an expiry, and every key costs about 130 bytes before its value (a main-dict and an
 * expires-dict entry, the key's name, the object header, both dicts' bucket arrays) — more than half of what a
 * pending async ask cost over a sync one. Most parks are one ask of a fresh run, and such a park holds nothing the
 * record does not already say except its resume target (and, rarely, a kind, a parent or a state). So park-run writes
 * it as one field of a folded-runs bucket instead: field = the run id, value =
 *
 *   <interaction id> \n <rs as the run hash holds it> [\n <k> \n <p> \n <st>]   (trailing empty parts dropped)
 *
 * and everything else the hash would hold is derived: s = parked, g = 1 (no hash: the run's first park, as HINCRBY
 * on a missing hash gives), n = 1, o = the record's asker (ab), ca = the record's created_at (ca), one open slot
 * a:<interaction id>. Only a park whose value and run id each fit in 64 bytes is folded (a longer field or value
 * would convert its bucket out of listpack); the caller decides (RedisRunStore.park) and every other park writes
 * the hash as before.
 *
 * Buckets: `rf:<level>:<n>` (keys.ts), n = the first 32 bits of SHA-1(run id) mod 2^level. New entries go to the
 * current level (`rf`, a number; absent = 0); when the bucket an entry would join holds FOLD_BUCKET_MAX fields
 * already, the level goes up by one and the entry goes there. Levels only grow; an entry stays in its bucket until it
 * leaves, so a lookup probes every level from the current one down (one HGET each: at 100,000 folded parks the
 * level is about 11). A bucket holds about FOLD_BUCKET_MAX entries at most, well inside hash-max-listpack-entries
 * (128), so an entry costs its bytes (~45) and a share of its bucket's key.
 *
 * Unfolding writes the run hash exactly as park-run would have (fields, pieces, retention from this write) and
 * drops the entry, in the step that needs the hash: the answer's claim (resolve), a kill from a child run
 * (run-kill), a chat thread bound (run-bind). So a run is a hash or a folded entry, never both, and every step
 * after the park's answer sees the hash it always saw. An entry whose record is gone (pruned unresolved, e.g. the
 * sweeper down past deadline + idle TTL) is no park: the next step that finds it drops it.
 *
 * `foldedFind(levelKey, prefix, runId)`: the bucket key and value of the run's entry (nil, nil when none), and the
 * current level. `foldedAdd(levelKey, prefix, runId, value, level)`: writes the entry at that level (raising it when
 * its bucket is full).
 * `foldedFields(value, text)`: the run hash's fields, flat { field, value, ... } (values whole), from the entry's
 * value and its record's envelope.
 * `unfoldRun(runKey, runId, levelKey, prefix, recordPrefix, retentionMs, onlyId, knownText)`: writes the run hash
 * (which must not exist yet) from the entry and drops the entry; true when it did. With onlyId, only an entry of that
 * interaction is unfolded; knownText is its record's envelope when the caller holds it. Needs PIECES.
 */
export const FOLDED_RUNS = `
local FOLD_BUCKET_MAX = 64
local FOLD_MAX_LEVEL = 24

local function foldedBucketKey(prefix, runId, level)
  local h = tonumber(string.sub(redis.sha1hex(runId), 1, 8), 16)
  return prefix .. string.format('%d', level) .. ':' .. string.format('%d', h % (2 ^ level))
end

-- Also returns the current level, which foldedAdd takes so as not to read it again.
local function foldedFind(levelKey, prefix, runId)
  local top = tonumber(redis.call('GET', levelKey) or '0')
  for level = top, 0, -1 do
    local key = foldedBucketKey(prefix, runId, level)
    local value = redis.call('HGET', key, runId)
    if value then return key, value, top end
  end
  return nil, nil, top
end

local function foldedAdd(levelKey, prefix, runId, value, top)
  local key = foldedBucketKey(prefix, runId, top)
  if redis.call('HLEN', key) >= FOLD_BUCKET_MAX and top < FOLD_MAX_LEVEL then
    top = top + 1
    redis.call('SET', levelKey, top)
    key = foldedBucketKey(prefix, runId, top)
  end
  redis.call('HSET', key, runId, value)
end

${SPLIT_LINES}
local function foldedParts(value)
  return splitLines(value, 5)
end

local function foldedFields(value, text)
  local p = foldedParts(value)
  local bodyStart = string.find(text, '\\n', 1, true)
  local bodyEnd = string.find(text, '\\n', bodyStart + 1, true)
  local body = cjson.decode(string.sub(text, bodyStart + 1, bodyEnd and bodyEnd - 1 or -1))
  local out = { 's', 'parked', 'g', '1', 'n', '1', 'o', body.ab, 'rs', p[2] }
  if type(body.ca) == 'number' then
    out[#out + 1] = 'ca'
    out[#out + 1] = string.format('%d', body.ca)
  end
  if p[3] ~= '' then out[#out + 1] = 'k'; out[#out + 1] = p[3] end
  if p[4] ~= '' then out[#out + 1] = 'p'; out[#out + 1] = p[4] end
  if p[5] ~= '' then out[#out + 1] = 'st'; out[#out + 1] = p[5] end
  out[#out + 1] = 'a:' .. p[1]
  out[#out + 1] = ''
  return out
end

-- The hash is written in one HSET: it does not exist yet, so there are no old pieces to drop; a caller-sized value
-- (o, rs, p, st) longer than a piece goes in pieces as setPieces would write them (PIECE, from PIECES).
local function unfoldRun(runKey, runId, levelKey, prefix, recordPrefix, retentionMs, onlyId, knownText)
  local bucket, value = foldedFind(levelKey, prefix, runId)
  if not bucket then return false end
  local id = string.match(value, '^[^\\n]*')
  if onlyId and id ~= onlyId then return false end
  redis.call('HDEL', bucket, runId)
  local text = knownText or redis.call('GET', recordPrefix .. id)
  if not text then return false end
  local flat = foldedFields(value, text)
  local args = {}
  for i = 1, #flat, 2 do
    local field, v = flat[i], flat[i + 1]
    args[#args + 1] = field
    if (field == 'o' or field == 'rs' or field == 'p' or field == 'st') and #v > PIECE then
      args[#args + 1] = string.sub(v, 1, PIECE)
      local n = 1
      while n * PIECE < #v do
        args[#args + 1] = field .. '.' .. n
        args[#args + 1] = string.sub(v, n * PIECE + 1, (n + 1) * PIECE)
        n = n + 1
      end
    else
      args[#args + 1] = v
    end
  end
  redis.call('HSET', runKey, unpack(args))
  redis.call('PEXPIRE', runKey, retentionMs)
  return true
end
`;

/** Reads a run: its hash, or its folded park (see above). */
export const RUN_READ = `--[[
  run-read: a run's fields as its hash holds them, each pieced value joined byte-exactly (JOINED_RUN), or, when the
  run has no hash, the fields of its folded park (FOLDED_RUNS); an empty reply when there is neither (or the folded
  park's record is gone). Reads only.

  KEYS[1] run hash         r:<run_id>

  ARGV[1] run id
  ARGV[2] folded-runs level key (rf)
  ARGV[3] folded-runs bucket prefix (rf:)
  ARGV[4] interaction key prefix (i:)

  Returns flat { field, value, ... }
]]
${PIECES}
${JOINED_RUN}
${FOLDED_RUNS}
if redis.call('EXISTS', KEYS[1]) == 1 then return joinedRun(KEYS[1]) end
local _, value = foldedFind(ARGV[2], ARGV[3], ARGV[1])
if not value then return {} end
local text = redis.call('GET', ARGV[4] .. string.match(value, '^[^\\n]*'))
if not text then return {} end
return foldedFields(value, text)
`;

/** Whether a run exists: its hash, or a folded park whose record is still there. */
export const RUN_EXISTS = `--[[
  run-exists: 1 when the run has a hash or a folded park (FOLDED_RUNS) whose record is still there, else 0. What
  EXISTS r:<run_id> answered before parks were folded (a folded run has no such key). Reads only.

  KEYS[1] run hash         r:<run_id>

  ARGV[1] run id
  ARGV[2] folded-runs level key (rf)
  ARGV[3] folded-runs bucket prefix (rf:)
  ARGV[4] interaction key prefix (i:)

  Returns 1 or 0
]]
${PIECES}
${FOLDED_RUNS}
if redis.call('EXISTS', KEYS[1]) == 1 then return 1 end
local _, value = foldedFind(ARGV[2], ARGV[3], ARGV[1])
if not value then return 0 end
return redis.call('EXISTS', ARGV[4] .. string.match(value, '^[^\\n]*'))
`;
