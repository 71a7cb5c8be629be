-- receive(channel, true) never blocks: nil and a message when no sender waits, the message
-- when one does (and that sender then goes on); a blocking receive in a process still parks.
luaproc.setnumworkers(2)
luaproc.newchannel("a")
local v, err = luaproc.receive("a", true)
check(v == nil and err:match("no senders"), "async receive with nobody waiting: " .. tostring(err))
luaproc.newchannel("done")
luaproc.newproc([[
  assert(luaproc.send("a", "first", 1))
  assert(luaproc.send("a", "second", 2))
  luaproc.send("done", "sender finished")
]])
-- poll until the sender is parked, then take both messages without blocking
local got = {}
local tries = 0
while #got < 2 do
  local m, n = luaproc.receive("a", true)
  if m then got[#got + 1] = m .. n else tries = tries + 1 end
  check(tries < 200000, "the sender never parked")
end
check(got[1] == "first1" and got[2] == "second2", "async order: " .. table.concat(got, ","))
check(luaproc.receive("done") == "sender finished", "the sender did not go on")
-- inside a process: async receive answers at once too
luaproc.newproc([[
  local v, err = luaproc.receive("a", true)
  luaproc.send("done", v == nil and err ~= nil)
]])
check(luaproc.receive("done") == true, "async receive in a process")
