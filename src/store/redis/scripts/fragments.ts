/**
 * Lua helpers spliced into several scripts. A record is one string, the envelope of `record-codec.ts`: parts joined
 * by `\n` (1 status letter, 2 body, 3 group, 4 ticket hash, 5 schema hash, 6 result, 7 resolved_at, 8 delivery;
 * every part but the status is JSON text or empty). Scripts split and rejoin it with plain string operations and
 * never re-encode JSON (cjson would turn `[]` into `{}` and corrupt schemas); `cjson.decode` is used only on parts
 * 3 to 5, single JSON strings, to name keys, and `cjson.encode` only on whole strings. Both are exact for strings.
 */

/**
 * `splitRecord(text)`: the eight parts ('' when absent).
 * `joinRecord(parts)`: the envelope again, trailing empty parts dropped.
 * `readRecord(key, schemaPrefix)`: false when the key is gone, else the envelope, its parts and its schema JSON
 * (false when it has none).
 */
export const RECORD = `
local function splitRecord(text)
  local parts = {}
  local start = 1
  for i = 1, 8 do
    local stop = string.find(text, '\\n', start, true)
    if stop then
      parts[i] = string.sub(text, start, stop - 1)
      start = stop + 1
    else
      parts[i] = string.sub(text, start)
      start = #text + 2
    end
  end
  return parts
end

local function joinRecord(parts)
  local n = 8
  while n > 2 and parts[n] == '' do n = n - 1 end
  return table.concat(parts, '\\n', 1, n)
end

local function readRecord(key, schemaPrefix)
  local text = redis.call('GET', key)
  if not text then return false end
  local parts = splitRecord(text)
  local schema = false
  if parts[5] ~= '' then schema = redis.call('GET', schemaPrefix .. cjson.decode(parts[5])) end
  return text, parts, schema
end
`;

/**
 * `eventJson(type, id, text, schema)`: the message published on the events channel. It carries the whole envelope
 * and the schema's JSON text (each as a JSON string), so a subscriber rebuilds the record without another read.
 */
export const EVENT_JSON = `
local function eventJson(type, id, text, schema)
  return '{"e":"' .. type .. '","i":' .. cjson.encode(id) .. ',"v":' .. cjson.encode(text) ..
    ',"S":' .. (schema and cjson.encode(schema) or 'null') .. '}'
end
`;

/**
 * `extendTo(key, atMs, nowMs)`: pushes `key`'s expiry out to `atMs` unless it already lasts longer (or forever).
 * Written with PTTL rather than `PEXPIREAT ... GT` so it runs on Redis before 7.
 */
export const EXTEND_TO = `
local function extendTo(key, atMs, nowMs)
  local pttl = redis.call('PTTL', key)
  if pttl < 0 then return end
  if nowMs + pttl < atMs then redis.call('PEXPIREAT', key, atMs) end
end
`;

/**
 * A run hash's long values, stored in pieces so the hash stays listpack-encoded. Redis turns a hash whose any value
 * is longer than `hash-max-listpack-value` (64 bytes by default) into a hashtable for good, which more than doubles
 * it (a run with a 93-byte webhook URL: 240 → 593 bytes). So a value longer than 64 bytes is split: field `f` holds
 * its first 64 bytes, `f.1` the next 64, and so on; the pieces are contiguous and joined byte-exactly. Used for the
 * run fields whose values are caller-sized (o, p, rs, st, th, x); an empty value is stored as no field at all.
 *
 * `setPieces(key, field, value)`: replaces the field's pieces ('' deletes them all).
 * `getPieces(key, field)`: the joined value, or false when the field is absent.
 */
export const PIECES = `
local PIECE = 64
local function setPieces(key, field, value)
  local i = 1
  while redis.call('HDEL', key, field .. '.' .. i) == 1 do i = i + 1 end
  if value == '' then
    redis.call('HDEL', key, field)
    return
  end
  redis.call('HSET', key, field, string.sub(value, 1, PIECE))
  local n = 1
  while n * PIECE < #value do
    redis.call('HSET', key, field .. '.' .. n, string.sub(value, n * PIECE + 1, (n + 1) * PIECE))
    n = n + 1
  end
end

local function getPieces(key, field)
  local value = redis.call('HGET', key, field)
  if not value then return false end
  local i = 1
  while true do
    local piece = redis.call('HGET', key, field .. '.' .. i)
    if not piece then return value end
    value = value .. piece
    i = i + 1
  end
end
`;
