--[[
  bucketAt(body): where the body's bucket member ,"pb":<b> starts, or nil. The member is always the body's last: found
  by a plain search for its name from the end of the body.
]]
local function bucketAt(body)
  local at = string.find(body, ',"pb":', math.max(1, #body - 26), true)
  if at and string.find(body, '^%d+}$', at + 6) then return at end
  return nil
end
