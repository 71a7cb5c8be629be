-- recycle(n) keeps up to n finished states for the next processes; processes keep working,
-- whatever a recycled state's previous process left in its globals.
luaproc.setnumworkers(2)
check(luaproc.recycle(4), "recycle")
luaproc.newchannel("r")
for round = 1, 5 do
  for i = 1, 8 do
    luaproc.newproc(string.format([[
      counter = (counter or 0) + 1   -- a global: survives into the next process of this state
      luaproc.send("r", %d, counter)
    ]], round * 100 + i))
  end
  local seen = {}
  for _, r in ipairs(collect("r", 8)) do
    check(r[2] >= 1, "counter global")
    seen[r[1]] = true
  end
  for i = 1, 8 do check(seen[round * 100 + i], "round " .. round .. " process " .. i) end
end
check(luaproc.recycle(0), "recycle(0) drops the kept states")
luaproc.newproc([[ luaproc.send("r", counter == nil) ]])
check(luaproc.receive("r") == true, "a fresh state after recycle(0)")
