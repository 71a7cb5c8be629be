set solib-search-path /work/main/build-norechang/lib
thread 6
set $t = tm_cur
set $i = 0
while $i < $t->rset.n
  printf "r %2d addr %#lx len %u val %#lx   mem %#lx\n", $i, $t->rset.e[$i].addr, $t->rset.e[$i].len, $t->rset.e[$i].val, *(unsigned long*)$t->rset.e[$i].addr
  set $i = $i + 1
end
set $i = 0
while $i < $t->wset.n
  printf "w %2d word %#lx val %#lx mask %#lx   mem %#lx\n", $i, $t->wset.e[$i].word, $t->wset.e[$i].val, $t->wset.e[$i].mask, *(unsigned long*)$t->wset.e[$i].word
  set $i = $i + 1
end
p $t->n_actions
p $t->actions[0]
frame 2
info locals
p/x $r12
p/x $r13
p/x $r14
p/x $r15
p/x $rbx
p/x $rbp
