--[[
  A record is one string, the envelope of src/store/record-codec.ts: parts joined by '\n' (1 status letter, 2 body,
  3 group, 4 ticket hash, 5 schema hash, 6 result, 7 resolved_at, 8 delivery, 9 audit trail, 10 audit seal,
  11 extra surfaces, 12 votes; every part but the status is JSON text or empty). Scripts split and rejoin it with
  plain string operations and never re-encode JSON (cjson would turn [] into {} and corrupt schemas); cjson.decode
  is used only on parts 3 to 5, single JSON strings, to name keys, and cjson.encode only on whole strings. Both are
  exact for strings.

  splitRecord(text): the twelve parts ('' when absent).
]]
--- @include "splitLines"
local function splitRecord(text)
  return splitLines(text, 12)
end
