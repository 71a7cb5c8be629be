#!/bin/sh
# Runs inside the clean Debian root of test_deb_root.sh, which holds the package's dependencies,
# /tmp/tmkit.deb, /tmp/prog (tests/install/prog.c built with plain gcc -fgnu-tm) and /tmp/cs.c.
# GCC's libitm1 is here too (the clang headers' dependencies bring it): prog runs on it and says
# "not running on tmkit" unless tmkit's libitm.so.1 is the one loaded.
set -eu
step() { echo "deb-root: $*"; }
# Every file of the root but the volatile ones and the home directories, sorted. (A user's run
# leaves files of its own in its home, as any program's does: matplotlib's font cache under
# ~/.cache and ~/.config after `tmkit report --html`. They are the user's, not the package's.)
files() {
    find / -xdev \( -path /proc -o -path /sys -o -path /dev -o -path /run -o -path /tmp \
        -o -path /root -o -path /home \
        -o -path /var/cache -o -path /var/lib/apt -o -path /var/log -o -path /var/lib/dpkg \) \
        -prune -o -print | sort
}
files > /tmp/before.txt
step "dpkg -i tmkit.deb"
dpkg -i /tmp/tmkit.deb
cd /tmp
tmkit --version
step "tmkit run"
on_system() { ./prog | grep -q "not running on tmkit"; }
on_system || { echo "prog did not run on the system libitm"; exit 1; }
out=$(tmkit run --stats=prof.json ./prog)
echo "$out"
case $out in *"|/usr/lib/x86_64-linux-gnu/tmkit/libitm.so.1|20000|20000") ;; *) exit 1;; esac
tmkit report prof.json | grep -q work
step "tmkit report --html (python3-matplotlib)"
tmkit report prof.json --html prof.html >/dev/null
grep -q "data:image/png" prof.html
step "tmkit advise (python3-clang-19, libclang-common-19-dev)"
tmkit advise cs.c --json > advise.json
grep -q '"sections"' advise.json
step "tmkit system-libitm enable"
tmkit system-libitm enable
tmkit system-libitm status
./prog | grep -q "|/usr/lib/x86_64-linux-gnu/tmkit/libitm.so.1|"
tmkit system-libitm disable
on_system || { echo "prog still runs on tmkit after disable"; exit 1; }
step "dpkg --purge with the system libitm enabled"
tmkit system-libitm enable
dpkg --purge tmkit
[ ! -e /etc/ld.so.conf.d/00-tmkit.conf ] || { echo "the opt-in file survived removal"; exit 1; }
/sbin/ldconfig -p | grep -q /tmkit/ && { echo "tmkit's libitm still in the linker cache"; exit 1; }
on_system || { echo "prog does not run on the system libitm after removal"; exit 1; }
st=$(dpkg-query -W -f='${db:Status-Status}' tmkit 2>/dev/null || true)
[ -z "$st" ] || [ "$st" = not-installed ] || { echo "tmkit is $st after dpkg --purge"; exit 1; }
files > /tmp/after.txt
if ! diff /tmp/before.txt /tmp/after.txt; then
    echo "removal left the differences above"
    exit 1
fi
step "installed, ran, removed without a trace"
