--[[
  trailEntryOf(type, atMs, surfaceJson, byJson, detailJson): an audit entry built here, from JSON texts ('null' or
  '' for absent), trailing nulls dropped as trailEntry in src/store/audit-trail.ts does: for a script that learns a
  member from the record itself.
]]
local function trailEntryOf(type, atMs, surfaceJson, byJson, detailJson)
  local members = {
    cjson.encode(type), string.format('%d', atMs), surfaceJson or 'null', byJson or 'null', detailJson or 'null',
  }
  local n = 5
  while n > 2 and (members[n] == 'null' or members[n] == '') do n = n - 1 end
  for i = 3, n do if members[i] == '' then members[i] = 'null' end end
  return '[' .. table.concat(members, ',', 1, n) .. ']'
end
