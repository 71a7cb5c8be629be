-- delchannel wakes every process parked on the channel, senders and receivers, with nil and an
-- error message; later operations on the name fail; other channels are unaffected.
luaproc.setnumworkers(1) -- FIFO on one worker: the blocking processes park before the deleter runs
luaproc.newchannel("results")
luaproc.newchannel("rx")
luaproc.newchannel("tx")
for i = 1, 3 do
  luaproc.newproc(string.format([[
    local v, err = luaproc.receive("rx")
    luaproc.send("results", "recv", v, err)
  ]]))
  luaproc.newproc(string.format([[
    local v, err = luaproc.send("tx", "payload %d")
    luaproc.send("results", "send", v, err)
  ]], i))
end
luaproc.newproc([[
  assert(luaproc.delchannel("rx"))
  assert(luaproc.delchannel("tx"))
  local v, err = luaproc.delchannel("tx")
  luaproc.send("results", "again", v, err)
]])
local counts = {}
for _, r in ipairs(collect("results", 7)) do
  counts[r[1]] = (counts[r[1]] or 0) + 1
  check(r[2] == nil and type(r[3]) == "string", r[1], "did not fail:", tostring(r[2]))
end
check(counts.recv == 3 and counts.send == 3 and counts.again == 1, "not everyone woke")
local v, err = luaproc.send("rx", 1)
check(v == nil and err:match("does not exist"), "send to a deleted channel")
v, err = luaproc.receive("tx", true)
check(v == nil and err:match("does not exist"), "receive from a deleted channel")
-- the name can be used again
check(luaproc.newchannel("rx"))
luaproc.newproc([[ luaproc.send("rx", "again") ]])
check(luaproc.receive("rx") == "again", "a re-created channel")

-- with several workers: whatever the timing, each blocked operation ends with an error
luaproc.setnumworkers(3)
luaproc.newchannel("race")
for i = 1, 20 do
  luaproc.newproc(string.format([[
    local v, err
    if %d %% 2 == 0 then v, err = luaproc.receive("race") else v, err = luaproc.send("race", 1) end
    luaproc.send("results", v == nil and err ~= nil, v, err)
  ]], i))
end
luaproc.newproc([[ luaproc.delchannel("race") ]])
local failed, delivered = 0, 0
for _, r in ipairs(collect("results", 20)) do
  if r[1] then failed = failed + 1 else delivered = delivered + 1 end
end
-- receivers and senders may have met before the deletion: they pair up
check(failed + delivered == 20 and delivered % 2 == 0, "race: " .. failed .. " failed, " .. delivered .. " delivered")
