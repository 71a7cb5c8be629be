-- The paper's second test (Table 1): P processes, half sending and half receiving M messages
-- each, over C channels (sender i and receiver i use channel i mod C), W workers.
--   lua5.4 exchange.lua LIBDIR MODULE WORKERS CHANNELS PROCS MESSAGES
local dir = arg[0]:match("^(.*)/[^/]*$") or "."
local workers, nch, procs, msgs = dofile(dir .. "/common.lua")
luaproc.setnumworkers(workers)
luaproc.newchannel("done")
for c = 1, nch do luaproc.newchannel("c" .. c) end
local pairs_ = procs // 2
for p = 1, pairs_ do
  local ch = "c" .. ((p - 1) % nch + 1)
  luaproc.newproc(string.format([[
    for i = 1, %d do luaproc.send(%q, i) end
  ]], msgs, ch))
  luaproc.newproc(string.format([[
    local s = 0
    for i = 1, %d do s = s + luaproc.receive(%q) end
    luaproc.send("done", s)
  ]], msgs, ch))
end
local total = 0
for p = 1, pairs_ do total = total + luaproc.receive("done") end
luaproc.wait()
print(string.format("ok=%d messages=%d", total == pairs_ * msgs * (msgs + 1) // 2 and 1 or 0,
                    pairs_ * msgs))
