import { CONVERSATION_REFS } from '../../delivery-refs.js';
import { DELIVERY_BUCKETS, ENTRIES_PER_BUCKET, RECENT_WINDOWS, RECIPIENT_LEVELS } from '../lookups.js';

/**
 * The channel lookups in bucketed hashes (src/store/redis/lookups.ts documents them, with the levels of the
 * recipient index; `lookupHash` there is the twin of the one here and must agree with it).
 *
 * `recipientAdd(rcPrefix, pendingKey, who, id, seq)`: indexes question id under `who` (`<channel>:<recipient>`) at
 * the level the pending list's size calls for.
 * `refOf(d)`: a stored delivery map's ref — its `ref`, or the one the other references imply (derivedRef in
 * src/store/delivery-refs.ts, which leaves `ref` out of the stored form when it is implied), or nil.
 * `firstDelivery(d, ch, rc)`: the first surface's stored delivery map (part 8) with its conversation reference put
 * back, and `firstStored(d, ch, rc)` the map as stored, without it when it equals the recipient (true when it took it
 * out): the twins of expandFirstDelivery and compactFirstDelivery in src/store/delivery-refs.ts (CONVERSATION_REFS).
 * Every read of part 8 goes through firstDelivery before refOf.
 * `refNeedsField(ref, recipient)`: false when the ref is `<recipient>:<part without :>` (found through the
 * recipient index instead).
 * `dropDelivery(dlPrefix, channel, d, id)`: removes the delivery lookup field of delivery map d when it names id.
 * `dropLookups(rcPrefix, dlPrefix, parts, id, recentPrefix, nowMs, idleMs)`: removes every recipient index and
 * delivery lookup field of the record split into parts (its first surface: body members ch and rc, delivery part
 * 8; further ones: part 11), and writes each delivered message's `<channel>:<ref>` → id into the recently resolved
 * window hash `rr:<w>` (w = floor(now / width), width = idle TTL / RECENT_WINDOWS, at least a second), which
 * expires a width + idle TTL after its window: a reply or receipt still finds a resolved question while it reads.
 */
export const LOOKUPS = `
local RECIPIENT_LEVELS = { ${RECIPIENT_LEVELS.join(', ')} }
local ENTRIES_PER_BUCKET = ${ENTRIES_PER_BUCKET}
local DELIVERY_BUCKETS = ${DELIVERY_BUCKETS}
local RECENT_WINDOWS = ${RECENT_WINDOWS}
local function lookupHash(text)
  local h = 0
  for i = 1, #text do h = (h * 31 + string.byte(text, i)) % 4294967296 end
  return h
end

local function recipientAdd(rcPrefix, pendingKey, who, id, seq)
  -- The pending list holds one member per 64 sequence numbers: its size x 64 bounds the pending asks from above.
  local estimate = redis.call('ZCARD', pendingKey) * 64
  local n = RECIPIENT_LEVELS[#RECIPIENT_LEVELS]
  for _, size in ipairs(RECIPIENT_LEVELS) do
    if estimate < size * ENTRIES_PER_BUCKET then n = size break end
  end
  redis.call('HSET', rcPrefix .. n .. ':' .. (lookupHash(who) % n), who .. ':' .. id, seq)
end

local function refOf(d)
  if type(d) ~= 'table' then return nil end
  if type(d['ref']) == 'string' then return d['ref'] end
  local m = d['message_id']
  if d['chat_id'] and m then return d['chat_id'] .. ':' .. m end
  if d['channel_id'] and m then return d['channel_id'] .. ':' .. m end
  if d['channel'] and d['ts'] then return d['channel'] .. ':' .. d['ts'] end
  if type(m) == 'string' then return m end
  return nil
end

local CONVERSATION_REFS = { ${Object.entries(CONVERSATION_REFS)
  .map(([ch, [c, m]]) => `${ch} = { '${c}', '${m}' }`)
  .join(', ')} }
local function conversationRule(ch, rc)
  if type(ch) ~= 'string' or type(rc) ~= 'string' then return nil end
  return CONVERSATION_REFS[ch]
end

local function firstDelivery(d, ch, rc)
  local rule = conversationRule(ch, rc)
  if rule and type(d) == 'table' and d[rule[1]] == nil and d[rule[2]] ~= nil then d[rule[1]] = rc end
  return d
end

local function firstStored(d, ch, rc)
  local rule = conversationRule(ch, rc)
  if rule and d[rule[1]] == rc and d[rule[2]] ~= nil then
    d[rule[1]] = nil
    return true
  end
  return false
end

local function refNeedsField(ref, recipient)
  if type(recipient) ~= 'string' or recipient == '' then return true end
  local head = recipient .. ':'
  if string.sub(ref, 1, #head) ~= head or #ref == #head then return true end
  return string.find(ref, ':', #head + 1, true) ~= nil
end

local function dropDelivery(dlPrefix, channel, d, id, recent)
  local ref = refOf(d)
  if type(channel) ~= 'string' or not ref then return end
  local field = channel .. ':' .. ref
  local key = dlPrefix .. (lookupHash(field) % DELIVERY_BUCKETS)
  if redis.call('HGET', key, field) == id then redis.call('HDEL', key, field) end
  if recent then redis.call('HSET', recent, field, id) end
end

local function dropRecipient(rcPrefix, channel, recipient, id)
  if type(channel) ~= 'string' or type(recipient) ~= 'string' then return end
  local who = channel .. ':' .. recipient
  local h = lookupHash(who)
  for _, n in ipairs(RECIPIENT_LEVELS) do
    redis.call('HDEL', rcPrefix .. n .. ':' .. (h % n), who .. ':' .. id)
  end
end

local function dropLookups(rcPrefix, dlPrefix, parts, id, recentPrefix, nowMs, idleMs)
  if not string.find(parts[2], '"ch":', 1, true) then return end
  local ok, body = pcall(cjson.decode, parts[2])
  if not ok then return end
  dropRecipient(rcPrefix, body.ch, body.rc, id)
  local recent, recentUntil = nil, 0
  if recentPrefix and recentPrefix ~= '' and (parts[8] ~= '' or parts[11] ~= '') then
    -- The resolved question's messages stay findable for its idle TTL, in a window hash that expires by itself.
    local width = math.max(math.ceil(idleMs / RECENT_WINDOWS), 1000)
    local w = math.floor(nowMs / width)
    recent, recentUntil = recentPrefix .. string.format('%d', w), (w + 1) * width + idleMs
  end
  if parts[8] ~= '' then
    dropDelivery(dlPrefix, body.ch, firstDelivery(cjson.decode(parts[8]), body.ch, body.rc), id, recent)
  end
  if parts[11] ~= '' then
    for _, s in ipairs(cjson.decode(parts[11])) do
      dropRecipient(rcPrefix, s.ch, s.rc, id)
      if type(s.d) == 'table' then dropDelivery(dlPrefix, s.ch, s.d, id, recent) end
    end
  end
  if recent and redis.call('EXISTS', recent) == 1 then redis.call('PEXPIREAT', recent, recentUntil) end
end
`;
