--[[
  add-surface: appends one more surface (channel, recipient) to a pending interaction (envelope part 11) and
  indexes it by recipient, in one step.

  Guarantees: only a pending record changes, and only when it does not have that surface yet (its first surface is
  the body's ch/rc; the further ones are part 11). The record keeps its expiry. The recipient entry (a field of a
  bucketed hash, src/store/redis/lookups.ts) holds the current sequence number (when the person was reached);
  resolve removes it.

  KEYS[1] record            i:<id>
  KEYS[2] pending zset      (its size picks the recipient index level: includes/recipientAdd.lua)
  KEYS[3] sequence counter  seq

  ARGV[1] channel
  ARGV[2] recipient, or ''
  ARGV[3] '1' when the surface has a recipient (KEYS[2]), else ''
  ARGV[4] now, epoch ms
  ARGV[5] id
  ARGV[6] recipient index bucket prefix (rb:)

  Returns
     1  added
     2  the record already has that surface; nothing changed
     0  not pending; nothing changed
    -1  no such record
]]
--- @include "includes/splitRecord"
--- @include "includes/joinRecord"
--- @include "includes/recipientAdd"

local text = redis.call('GET', KEYS[1])
if not text then return -1 end
local parts = splitRecord(text)
if parts[1] ~= {{STATUS_CODES.pending}} then return 0 end
local ok, body = pcall(cjson.decode, parts[2])
if ok and body.ch == ARGV[1] and (body.rc or '') == ARGV[2] then return 2 end
local entry = { ch = ARGV[1] }
if ARGV[2] ~= '' then entry.rc = ARGV[2] end
if parts[11] == '' then
  parts[11] = '[' .. cjson.encode(entry) .. ']'
else
  for _, s in ipairs(cjson.decode(parts[11])) do
    if s.ch == ARGV[1] and (s.rc or '') == ARGV[2] then return 2 end
  end
  parts[11] = string.sub(parts[11], 1, -2) .. ',' .. cjson.encode(entry) .. ']'
end
redis.call('SET', KEYS[1], joinRecord(parts), 'KEEPTTL')
if ARGV[3] == '1' then
  recipientAdd(ARGV[6], KEYS[2], ARGV[1] .. ':' .. ARGV[2], ARGV[5], tonumber(redis.call('GET', KEYS[3]) or '0'))
end
return 1
