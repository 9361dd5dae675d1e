--[[
  audit-append: appends one entry to an interaction's audit trail (envelope part 9; includes/trailAppend.lua): an
  audit event that is not part of another transition (Store.appendEvent).

  Guarantees: read and append are one step, so concurrent appends keep one gap-free trail (seq is the position).
  Rewrites only an existing record and keeps its expiry (a record that already expired is never brought back).

  KEYS[1] record            i:<id>

  ARGV[1] the entry, JSON text (trailEntry in src/store/audit-trail.ts)

  Returns
     1  appended
    -1  no such record
]]
--- @include "includes/splitRecord"
--- @include "includes/joinRecord"
--- @include "includes/trailAppend"

local text = redis.call('GET', KEYS[1])
if not text then return -1 end
local parts = splitRecord(text)
trailAppend(parts, ARGV[1])
redis.call('SET', KEYS[1], joinRecord(parts), 'KEEPTTL')
return 1
