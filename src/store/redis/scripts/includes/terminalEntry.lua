--[[
  terminalEntry(letter, nowMs): the marker a resolve appends to the trail, e.g. ["answered",<ms>] for status letter
  a (TERMINAL_EVENT in src/store/audit-trail.ts); the reader derives who answered, where and what from the result
  part written in the same step.
]]
-- The terminal audit event of each resolved status letter, e.g. { a = 'answered', e = 'expired', c = 'cancelled' }.
local TERMINAL_EVENT = {{TERMINAL_EVENT_BY_LETTER}}
local function terminalEntry(letter, nowMs)
  return '["' .. TERMINAL_EVENT[letter] .. '",' .. nowMs .. ']'
end
