--[[
  The audit trail (src/store/audit-trail.ts): envelope part 9 is a JSON array of entries
  [type, at epoch ms, surface, by, detail] (trailing nulls dropped), one per event after created (which is derived
  from the body); seq is the position. A transition script that causes an event appends its entry in the same step,
  so the event and the transition are one atomic write. Hashes are sealed by the reader (part 10), never here.

  trailAppend(parts, entry): appends entry (JSON text, built by the caller in Node with trailEntry of audit-trail.ts
  and passed in ARGV, or by trailEntryOf; never re-encoded here) to parts[9] of a record split by splitRecord.
]]
local function trailAppend(parts, entry)
  if parts[9] == '' then
    parts[9] = '[' .. entry .. ']'
  else
    parts[9] = string.sub(parts[9], 1, -2) .. ',' .. entry .. ']'
  end
end
