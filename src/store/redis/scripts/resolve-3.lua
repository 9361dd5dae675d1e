--[[
  resolve: moves a pending interaction to answered | expired | cancelled, exactly once.

  Guarantees: only a record whose status is pending changes; however many callers race, one gets 1 and every other
  gets 0 with the record as the winner left it. The winner's step also drops the id from the pending list and the
  deadline index (its entry in the bucket its body names; the bucket member pb is stripped from the body), its
  group, its recipient index and delivery lookup fields (every surface's: includes/dropLookups.lua), shortens the
  record's life to the idle TTL (it stays readable until then, and so does its callback ticket, which names it),
  keeps the shared schema alive at least as long, appends the terminal audit event (answered | expired |
  cancelled: includes/terminalEntry.lua) to the record's trail, and publishes the matching event with the whole
  record.

  KEYS[1] record            i:<id>
  KEYS[2] pending zset      (of buckets: includes/bucketSize.lua)
  KEYS[3] deadlines zset    (the bucket index)

  ARGV[1]  id
  ARGV[2]  status letter: a (answered) | e (expired) | c (cancelled); the event published is its type
           (interaction.answered | interaction.expired | interaction.cancelled)
  ARGV[3]  result JSON, or '' for null
  ARGV[4]  resolved_at as a JSON string
  ARGV[5]  idle TTL, ms
  ARGV[6]  now, epoch ms
  ARGV[7]  the shard's key prefix, e.g. {askgate}: — every other key and the events channel are named from it
           (KEY_NAMES in src/store/keys.ts: groups, schemas, runs, ready runs, folded runs, recipient and
           delivery buckets, recently resolved windows), so a claim sends one argument for them all
  ARGV[8]  run retention, ms (the run hash lives this long after its last write)
  ARGV[9]  answer check: '' for none (a plain resolve), else 'v' followed by what the offered answer is, checked
           here against the stored format so an answer takes one round trip:
           'b' a boolean (confirm), 't' a string of 1..16,384 characters (text), 's' a string (select; ARGV[10])
  ARGV[10] the offered answer when it is a string ('s'), else ''
  ARGV[11] a vote on a quorum question, absent or '' for none: the vote's JSON {"by", "answer", "surface", "at"},
           appended to envelope part 12 (the record's votes) by string operations, never re-encoded
  ARGV[12] the voter (the vote's by)
  ARGV[13] '1' for a yes vote, '0' for a no vote
  ARGV[14] the vote's audit entry (audit-trail.ts trailEntry: type vote, surface, by, detail {answer}), appended
           to the trail with the vote; '' for none

  Vote (ARGV[11] set), after the status check and in the same step as the claim: a voter who already voted changes
  nothing (-4). Otherwise the vote is appended and counted with the earlier ones; when the yes votes reach the body's
  qa (or the no votes its qr, absent: 1) the claim goes on exactly as a plain resolve, the votes part included (the
  deciding vote's result is ARGV[3]); else the record is written back with its expiry kept (-5).

  Park bookkeeping, in the same step as the claim (so no crash can fall between them): when the record is an
  async ask of a run (body member ra = run id; or m = async with rn = run id) and that run is parked with this
  ask's slot open, the slot records the outcome (status letter followed by the result JSON, in 64-byte pieces:
  includes/setPieces.lua, so the run hash stays listpack-encoded for its retention and any later park). An answer,
  or an expiry that carries a result (on_expiry resume), decrements the run's outstanding count, and at zero the
  run turns ready; an expiry without a result (on_expiry kill) or a cancel turns it dying. A ready or dying run
  enters the ready-runs zset, and the script reports it, so the caller enqueues the one resume job (its id is
  deterministic). A run with no hash whose park is folded on this very ask (includes/foldedBucketKey.lua) is first
  unfolded into its hash, in the same step, so the bookkeeping above reads and writes the hash as it always did.

  Answer check (ARGV[9] set): after the status check and before any write, a pending record is claimed only when
  its deadline (body member da, epoch ms; or ca + dd, dd being ms after ca) is still ahead of ARGV[6], it is not an
  ask to the caller (body member to), its format (body member f; absent with choices c present: select) is text,
  confirm or select, and the offered answer fits that format (select: one of the choices, body member c). Anything
  else, or a body cjson cannot decode, changes nothing: the caller then validates in full (the exact refusal
  message) or takes the read → validate → claim path (expiry first, caller guard, form schemas).

  Returns { code, envelope, schema, verdict, run_id, generation, run_fields }
    code  1  resolved by this call; the envelope is the resolved record; the reply stops after it when there is no
             schema and no settled run (the rest would be false, '', '', '', {})
             verdict 'ready' | 'kill' when this claim settled its run, else ''; run_id and generation then name it
             run_fields (verdict 'ready' only): the run hash as this step left it, flat { field, value, ... }, each
             pieced value joined byte-exactly with its pieces (which are left out) — what RunStore.get reads, so
             the caller builds the continuation without reading the run again
    code  0  not pending; nothing changed; the envelope is the record as it is
    code -1  no such record (never created, or pruned); nothing else
    code -2  (answer check) pending, but the answer does not fit the format; nothing changed; the envelope as it is
    code -3  (answer check) pending, but not checked here (deadline passed, ask to the caller, form or external,
             a question with approvers); nothing changed; the envelope as it is
    code -4  (vote) this voter already voted; nothing changed; the envelope as it is
    code -5  (vote) counted, the quorum not reached; the envelope with the vote
]]
--- @include "includes/readRecord"
--- @include "includes/joinRecord"
--- @include "includes/trailAppend"
--- @include "includes/terminalEntry"
--- @include "includes/eventMessage"
--- @include "includes/extendTo"
--- @include "includes/bucketOfBody"
--- @include "includes/withoutBucket"
--- @include "includes/bucketRemove"

-- A channel ask's lookup helpers and a run's, built only by a claim that needs them: Redis runs a script's whole
-- body on every call, so a helper defined at the top is a closure built per answer, needed or not.
local function lookupHelpers()
  --- @include "includes/dropLookups"
  return dropLookups
end
local function runHelpers()
  --- @include "includes/setPieces"
  --- @include "includes/joinedRun"
  --- @include "includes/unfoldRun"
  return setPieces, joinedRun, unfoldRun
end

local id = ARGV[1]
-- Key names from the shard's prefix, each built where it is used: a plain answer needs only the schemas and events.
local P = ARGV[7]
local SCHEMAS = P .. {{KEY_NAMES.schema}}
-- The event each terminal status letter publishes, e.g. { a = 'interaction.answered', ... }.
local EVENT_OF = {{EVENT_TYPE_BY_LETTER}}
local text, parts, schema = readRecord(KEYS[1], SCHEMAS)
if not text then return { -1 } end
if parts[1] ~= {{STATUS_CODES.pending}} then return { 0, text, schema } end

local idleMs, nowMs = tonumber(ARGV[5]), tonumber(ARGV[6])
local body = nil
local vote = ARGV[11]
if vote ~= nil and vote ~= '' then
  local yes, no = 0, 0
  if parts[12] ~= '' then
    for _, v in ipairs(cjson.decode(parts[12])) do
      if v.by == ARGV[12] then return { -4, text, schema } end
      if v.answer == true then yes = yes + 1 else no = no + 1 end
    end
  end
  if ARGV[13] == '1' then yes = yes + 1 else no = no + 1 end
  -- The audit event of the counted vote, in the same step (ARGV[14]: its entry, built by trailEntry in Node).
  if ARGV[14] ~= nil and ARGV[14] ~= '' then trailAppend(parts, ARGV[14]) end
  if parts[12] == '' then
    parts[12] = '[' .. vote .. ']'
  else
    parts[12] = string.sub(parts[12], 1, -2) .. ',' .. vote .. ']'
  end
  local decoded, b = pcall(cjson.decode, parts[2])
  local approve = decoded and tonumber(b.qa) or 1
  local reject = decoded and tonumber(b.qr or 1) or 1
  if not ((ARGV[13] == '1' and yes >= approve) or (ARGV[13] ~= '1' and no >= reject)) then
    text = joinRecord(parts)
    redis.call('SET', KEYS[1], text, 'KEEPTTL')
    return { -5, text, schema }
  end
end
local check = ARGV[9]
if check ~= nil and check ~= '' then
  local decoded, value = pcall(cjson.decode, parts[2])
  if not decoded then return { -3, text, schema } end
  body = value
  -- The deadline: member da, or ca + dd (ms after ca). A missing f with choices c is a select (record-codec.ts).
  local deadline = body.da
  if deadline == nil and type(body.ca) == 'number' and type(body.dd) == 'number' then deadline = body.ca + body.dd end
  local format = body.f
  if format == nil and type(body.c) == 'table' then format = 'select' end
  -- A question with approvers needs the answerer checked against them (and a quorum's votes counted): not here.
  if type(deadline) ~= 'number' or deadline <= nowMs or body.to ~= nil or body.ap ~= nil then
    return { -3, text, schema }
  end
  local fits = false
  if format == 'confirm' then
    fits = string.find(check, 'b', 2, true) ~= nil
  elseif format == 'text' then
    fits = string.find(check, 't', 2, true) ~= nil
  elseif format == 'select' then
    if string.find(check, 's', 2, true) and type(body.c) == 'table' then
      for _, choice in ipairs(body.c) do
        if choice == ARGV[10] then fits = true break end
      end
    end
  else
    return { -3, text, schema }
  end
  if not fits then return { -2, text, schema } end
end

-- A pending record's body names its bucket (written by create or park-run).
local bucket = bucketOfBody(parts[2])
if bucket then
  bucketRemove(KEYS[2], KEYS[3], bucket, id)
  parts[2] = withoutBucket(parts[2])
end
parts[1], parts[6], parts[7] = ARGV[2], ARGV[3], ARGV[4]
trailAppend(parts, terminalEntry(ARGV[2], ARGV[6]))
text = joinRecord(parts)
redis.call('SET', KEYS[1], text, 'PX', idleMs)
if parts[3] ~= '' then redis.call('ZREM', P .. {{KEY_NAMES.group}} .. cjson.decode(parts[3]), id) end
-- A channel ask's lookup fields have no expiry: they leave with the claim (before the trail or votes grow).
if string.find(parts[2], '"ch":', 1, true) then
  lookupHelpers()(P .. {{KEY_NAMES.recipientBuckets}}, P .. {{KEY_NAMES.deliveryBuckets}}, parts, id,
    P .. {{KEY_NAMES.recentlyResolved}}, nowMs, idleMs)
end
if parts[5] ~= '' then extendTo(SCHEMAS .. cjson.decode(parts[5]), nowMs + idleMs, nowMs) end

local verdict, runId, generation, runFields = '', '', '', {}
if (string.find(parts[2], '"ra":', 1, true) or string.find(parts[2], '"rn":', 1, true)) then
  body = body or cjson.decode(parts[2])
  -- An async ask's run: body member ra (the compact form), or m = async with rn.
  local runOf = body.ra
  if type(runOf) ~= 'string' and body.m == 'async' then runOf = body.rn end
  if type(runOf) == 'string' then
    local setPieces, joinedRun, unfoldRun = runHelpers()
    local runKey, slot = P .. {{KEY_NAMES.run}} .. runOf, 'a:' .. id
    local run = redis.call('HMGET', runKey, 's', slot, 'g')
    if not run[1] and unfoldRun(runKey, runOf, P .. {{KEY_NAMES.foldedRunsLevel}}, P .. {{KEY_NAMES.foldedRuns}}, '',
        tonumber(ARGV[8]), id, text) then
      run = { 'parked', '', '1' } -- as unfoldRun wrote it
    end
    if run[1] == 'parked' and run[2] == '' then
      setPieces(runKey, slot, ARGV[2] .. ARGV[3])
      if ARGV[2] == {{STATUS_CODES.answered}} or (ARGV[2] == {{STATUS_CODES.expired}} and ARGV[3] ~= '') then
        if redis.call('HINCRBY', runKey, 'n', -1) <= 0 then
          redis.call('HSET', runKey, 's', 'ready')
          verdict = 'ready'
        end
      else
        redis.call('HSET', runKey, 's', 'dying', 'x', id)
        verdict = 'kill'
      end
      if verdict ~= '' then redis.call('ZADD', P .. {{KEY_NAMES.readyRuns}}, nowMs, runOf) end
      redis.call('PEXPIRE', runKey, tonumber(ARGV[8]))
      runId, generation = runOf, run[3] or ''
      if verdict == 'ready' then runFields = joinedRun(runKey) end
    end
  end
end

redis.call('PUBLISH', P .. {{KEY_NAMES.events}}, eventMessage(EVENT_OF[ARGV[2]], id, text, schema))
-- The common claim (no schema, no run settled) replies with two elements: the other five are only conversion work.
if not schema and verdict == '' then return { 1, text } end
return { 1, text, schema, verdict, runId, generation, runFields }
