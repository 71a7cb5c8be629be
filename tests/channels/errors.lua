-- An error in one process is reported on stderr (checked by stderr.sh against the lines
-- below) and ends only that process; bad arguments raise Lua errors; conditions of the run
-- answer nil and a message.
-- stderr: ^channels: error in Lua process: \(luaproc code\):1: boom 2$
-- stderr: ^channels: error in Lua process: \(luaproc code\):1: boom 4$
-- stderr: ^channels: error in Lua process: \(error object is not a string\)$
-- stderr: ^channels: error in Lua process: 42$
-- stderr: ^channels: error in Lua process: 2.5$
luaproc.setnumworkers(3)
luaproc.newchannel("out")
for i = 1, 5 do
  luaproc.newproc(string.format([[
    if %d %% 2 == 0 then error("boom %d") end
    luaproc.send("out", %d)
  ]], i, i, i))
end
local sum = 0
for _, r in ipairs(collect("out", 3)) do sum = sum + r[1] end
check(sum == 1 + 3 + 5, "the processes that did not fail: " .. sum)
-- an error object that is not a string is reported too
luaproc.newproc([[ error({}) ]])
-- and a number, printed as Lua prints it (without converting it in place: that allocates)
luaproc.newproc([[ error(42) ]])
luaproc.newproc([[ error(2.5) ]])
-- a process after the failures still runs
luaproc.newproc([[ luaproc.send("out", "alive") ]])
check(luaproc.receive("out") == "alive", "a process after the failed ones")

local function raises(f, ...)
  local ok, err = pcall(f, ...)
  return not ok and type(err) == "string"
end
check(raises(luaproc.send), "send without a channel name")
check(raises(luaproc.receive, {}), "receive with a table as the name")
check(raises(luaproc.newchannel), "newchannel without a name")
check(raises(luaproc.setnumworkers, 0), "setnumworkers(0)")
check(raises(luaproc.setnumworkers, "x"), "setnumworkers('x')")
check(raises(luaproc.recycle, -1), "recycle(-1)")
check(raises(luaproc.send, "out", {1, 2}), "a table in a message")
check(raises(luaproc.send, "out", print), "a function in a message")
check(raises(luaproc.newproc, 42) or luaproc.newproc(42) == nil, "newproc(42)")
-- conditions of the run
local v, err = luaproc.newproc("this is not lua")
check(v == nil and type(err) == "string", "newproc with a syntax error")
check(luaproc.newchannel("dup"))
v, err = luaproc.newchannel("dup")
check(v == nil and err:match("exists"), "a channel created twice")
v, err = luaproc.send("no such channel", 1)
check(v == nil and err:match("does not exist"), "send to a missing channel")
v, err = luaproc.delchannel("no such channel")
check(v == nil and err:match("does not exist"), "delchannel of a missing channel")
-- A message with more values than the receiver's stack can still take (Lua stacks hold at
-- most 1,000,000 slots): receive raises an error and frees the message (valgrind: no leak);
-- the sender was served and goes on. In the main script and in a process.
local BIG, HELD = 600000, 500000 -- values (string.byte pushes them, fast under valgrind)
luaproc.newchannel("big")
local sender = string.format([[
  local string = require "string"
  luaproc.send("big", string.byte(string.rep("a", %d), 1, -1))
  luaproc.send("out", "big sent")
]], BIG)
local function receive_holding(...) -- receives with HELD values on this frame
  return pcall(luaproc.receive, "big")
end
luaproc.newproc(sender)
local ok, err = receive_holding(string.byte(string.rep("h", HELD), 1, -1))
check(not ok and tostring(err):match("too many values"), "a message too large for the stack:", tostring(err))
check(luaproc.receive("out") == "big sent", "the sender of a message too large")
luaproc.newproc(sender)
luaproc.newproc(string.format([[
  local string = require "string"
  local function receive_holding(...) return pcall(luaproc.receive, "big") end
  local ok, err = receive_holding(string.byte(string.rep("h", %d), 1, -1))
  luaproc.send("out", not ok and string.find(tostring(err), "too many values") ~= nil, tostring(err))
]], HELD))
local got = {}
for _, r in ipairs(collect("out", 2)) do got[#got + 1] = r end
table.sort(got, function(a, b) return tostring(a[1]) < tostring(b[1]) end)
check(got[1][1] == "big sent", "the sender of a message too large (process)")
check(got[2][1] == true, "a message too large for a process's stack:", tostring(got[2][2]))

-- wait() from a process is refused
luaproc.newproc([[
  local ok, err = pcall(luaproc.wait)
  luaproc.send("out", not ok)
]])
check(luaproc.receive("out") == true, "wait() inside a process")
