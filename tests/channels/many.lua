-- Many more processes than workers (the paper's Table 1 shape, scaled down): 100 senders and
-- 100 receivers over 4 channels, 50 messages each, on 4 workers; every message arrives once.
luaproc.setnumworkers(4)
check(luaproc.getnumworkers() == 4, "getnumworkers")
local NCH, NPROC, NMSG = 4, 100, 50
luaproc.newchannel("sums")
for c = 1, NCH do luaproc.newchannel("c" .. c) end
for p = 1, NPROC do
  local ch = "c" .. ((p - 1) % NCH + 1)
  luaproc.newproc(string.format([[
    for i = 1, %d do luaproc.send(%q, %d * 1000 + i) end
  ]], NMSG, ch, p))
  luaproc.newproc(string.format([[
    local s = 0
    for i = 1, %d do s = s + luaproc.receive(%q) end
    luaproc.send("sums", s)
  ]], NMSG, ch))
end
local total = 0
for _, r in ipairs(collect("sums", NPROC)) do total = total + r[1] end
local want = 0
for p = 1, NPROC do for i = 1, NMSG do want = want + p * 1000 + i end end
check(total == want, "sum of all messages " .. total .. ", expected " .. want)
-- fewer workers while processes run, then more again
luaproc.setnumworkers(1)
check(luaproc.getnumworkers() == 1, "getnumworkers after shrinking")
luaproc.newproc([[ luaproc.send("sums", "one worker") ]])
check(luaproc.receive("sums") == "one worker", "runs on one worker")
luaproc.setnumworkers(3)
