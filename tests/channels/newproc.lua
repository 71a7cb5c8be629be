-- newproc with a Lua function (luaproc's second form): the function's code runs in a new
-- process; an upvalue that holds the library is bound to the new process's own library, any
-- other upvalue starts as nil (a process shares nothing with its creator); C functions and
-- other values are refused with a Lua error.
luaproc.setnumworkers(2)
luaproc.newchannel("fn")
local lp = luaproc
local captured = 42
check(luaproc.newproc(function()
  luaproc.send("fn", "global", 1 + 1)
end), "newproc(function) refused")
check(lp.newproc(function()
  lp.send("fn", "upvalue", captured == nil)
end), "newproc(function) with upvalues refused")
check(luaproc.newproc(function(...)
  local n = select("#", ...) -- no arguments reach a process
  luaproc.send("fn", "args", n)
end), "newproc(function) with varargs refused")
local got = {}
for _, r in ipairs(collect("fn", 3)) do
  got[r[1]] = r[2]
end
check(got.global == 2, "global form sent", tostring(got.global))
check(got.upvalue == true, "an upvalue other than the library was not nil in the process")
check(got.args == 0, "a process got arguments:", tostring(got.args))
local ok, err = pcall(luaproc.newproc, print)
check(not ok and tostring(err):find("C function", 1, true), "a C function accepted:", tostring(err))
ok, err = pcall(luaproc.newproc, {})
check(not ok, "a table accepted as a process")
-- a function process that fails is reported and ends alone; the others go on
-- stderr: ^channels: error in Lua process: .*newproc\.lua:[0-9]+: boom in a function process$
check(luaproc.newproc(function() error("boom in a function process") end), "failing function refused")
check(luaproc.newproc(function() luaproc.send("fn", "after", true) end), "newproc after a failure")
check(collect("fn", 1)[1][2] == true, "a process after a failing one did not run")
