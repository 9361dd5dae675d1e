--[[
  get: reads an interaction and its shared form schema together.

  Guarantees: the record and the schema come from one moment (no write falls between them).

  KEYS[1] record            i:<id>

  ARGV[1] schema key prefix (completed with the schema hash the record names)

  Returns
    { envelope, schema }    schema is nil when the record has none
    nil                     no such record
]]
--- @include "includes/readRecord"

local text, _, schema = readRecord(KEYS[1], ARGV[1])
if not text then return nil end
return { text, schema }
