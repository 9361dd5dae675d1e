--[[
  find-by-ticket: reads the interaction a callback ticket resolves to.

  Guarantees: the ticket, the record and its schema are read at one moment. A ticket whose record is gone (they
  expire together, so only after a manual delete) reads as no match.

  KEYS[1] ticket            t:<sha256 hex>

  ARGV[1] record key prefix (completed with the id the ticket holds)
  ARGV[2] schema key prefix

  Returns
    { id, envelope, schema }  schema is nil when the record has none
    nil                       no live ticket
]]
--- @include "includes/readRecord"

local id = redis.call('GET', KEYS[1])
if not id then return nil end
local text, _, schema = readRecord(ARGV[1] .. id, ARGV[2])
if not text then return nil end
return { id, text, schema }
