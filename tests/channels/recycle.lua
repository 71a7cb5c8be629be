-- recycle(n) keeps up to n finished states for the next processes; processes keep working,
-- whatever a recycled state's previous process left in its globals. A process takes its state
-- at newproc. After wait() every process of a round has finished, so exactly n states are
-- kept, and the next round's first n processes run in them: their global counter shows it
-- (> 1). On one worker no process finishes while a round is created (each parks on its send
-- until the main script collects), so no other process of the round gets a recycled state.
luaproc.setnumworkers(1)
local KEEP = 4
check(luaproc.recycle(KEEP), "recycle")
luaproc.newchannel("r")
for round = 1, 5 do
  for i = 1, 8 do
    luaproc.newproc(string.format([[
      counter = (counter or 0) + 1   -- a global: survives into the next process of this state
      luaproc.send("r", %d, counter)
    ]], round * 100 + i))
  end
  local seen, reused = {}, 0
  for _, r in ipairs(collect("r", 8)) do
    check(math.type(r[2]) == "integer" and r[2] >= 1 and r[2] <= round, "counter global", tostring(r[2]))
    if r[2] > 1 then reused = reused + 1 end
    seen[r[1]] = true
  end
  for i = 1, 8 do check(seen[round * 100 + i], "round " .. round .. " process " .. i) end
  local want = round == 1 and 0 or KEEP
  check(reused == want, "round " .. round .. ": " .. reused .. " processes in recycled states, expected " .. want)
  luaproc.wait()
end
check(luaproc.recycle(0), "recycle(0) drops the kept states")
luaproc.newproc([[ luaproc.send("r", counter == nil) ]])
check(luaproc.receive("r") == true, "a fresh state after recycle(0)")
luaproc.wait()
-- with several workers: the kept states are still reused. (Every process sends, so none
-- finishes, handing its state to a later newproc, before the main script collects.)
luaproc.setnumworkers(3)
check(luaproc.recycle(2), "recycle(2)")
for i = 1, 6 do luaproc.newproc([[ counter = (counter or 0) + 1; luaproc.send("r", counter) ]]) end
for _, r in ipairs(collect("r", 6)) do check(r[1] == 1, "a fresh state's counter", tostring(r[1])) end
luaproc.wait()
for i = 1, 6 do luaproc.newproc([[ luaproc.send("r", counter) ]]) end
local reused = 0
for _, r in ipairs(collect("r", 6)) do if r[1] == 1 then reused = reused + 1 end end
check(reused == 2, "several workers: " .. reused .. " of 6 processes in recycled states, expected 2")
