--[[
  A run hash's long values, stored in pieces so the hash stays listpack-encoded. Redis turns a hash whose any value
  is longer than hash-max-listpack-value (64 bytes by default) into a hashtable for good, which more than doubles it
  (a run with a 93-byte webhook URL: 240 -> 593 bytes). So a value longer than PIECE bytes is split: field f holds
  its first 64 bytes, f.1 the next 64, and so on; the pieces are contiguous and joined byte-exactly. Used for the
  run fields whose values are caller-sized (o, p, rs, st, th, x) and every ask slot a:<id>; an empty value is
  stored as no field at all.
]]
local PIECE = 64
