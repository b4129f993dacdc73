#!/bin/sh
# SPDX-License-Identifier: MIT
#
# scripts/vm/demo.sh - the "make demo" transcript, guest side: fastbinder's
# story for a newcomer, from loading the module to a service's death
# reaching its clients.  Every command is shown before it runs.
step() { printf '\n## %s\n' "$*"; }
say() { printf '# %s\n' "$*"; }
run() { echo "\$ $*"; sh -c "$*"; }
# The service manager's log since the last look (it logs to a file so its
# lines do not land in the middle of another command's output).
smlog() {
	n=$(wc -l </tmp/sm.log)
	tail -n +$((${smlog_seen:-0} + 1)) /tmp/sm.log | sed 's/^/    [log] /'
	smlog_seen=$n
}
# Bounded wait until a command succeeds (a name appears or goes).
until_ok() {
	i=0
	while ! sh -c "$1" >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -ge 100 ] && { echo "timed out waiting for: $1"; exit 1; }
		sleep 0.05
	done
}

echo "================ fastbinder demo on Linux $(uname -r) ================"
say "fastbinder is binder-style IPC for ordinary Linux: processes export objects,"
say "others call them through handles only the kernel hands out, and a message is"
say "copied once, straight into the receiver's read-only mapped buffer."

step "1. The module"
run "modinfo fastbinder | grep -E '^(description|license|vermagic|parm)'"
run modprobe fastbinder || exit 1
run "ls -l /dev/fastbinder"
say "Mode 0666: opening the device gives no power; only handles do."
run fbversion || exit 1

step "2. The service manager: handle 0, the directory of names"
say "Every process holds handle 0 without asking; fb-servicemanager claims it."
echo "\$ fb-servicemanager 2>/tmp/sm.log &"
fb-servicemanager 2>/tmp/sm.log &
SM=$!
until_ok "fbservice list"
smlog

step "3. Two services register"
say "echo-service and calculator-service (examples/) each create an object (echo: a"
say "handler function; calculator: the stub fbidl generated from calculator.fbidl)"
say "and register it under a name with bl_sm_add()."
run "echo-service >/tmp/echo.log 2>&1 &"
run "calculator-service >/tmp/calc.log 2>&1 &"
run "fbservice wait echo 5000 && fbservice wait calculator 5000" || exit 1
smlog
run "fbservice list"

step "4. Calling them"
say "A client looks the name up, gets a handle of its own, and calls: one"
say "WRITE_READ system call sends the request and waits for the reply."
run "echo-client hello fastbinder"
run "calculator-client add 6 7"
run "calculator-client div 47 5"
run "calculator-client upper 'binder without android'"
say "Errors come back as a status from the handler (here -EDOM):"
run "calculator-client div 1 0; echo \"exit status \$?\""
say "fbservice calls any service, typed by its interface file, like Android's 'service call':"
run "fbservice call --idl /fb/files/calculator.fbidl calculator mul 6 7"

step "5. Many clients at once: a pool of looper threads"
run "threadpool-service >/tmp/pool.log 2>&1 &"
run "fbservice wait threadpool 5000 >/dev/null"
smlog
say "4 clients each make a call that takes 200 ms; 4 loopers serve them in parallel:"
run "threadpool-client 4 200"

step "6. What the driver sees (debugfs, through fbstat)"
run "fbstat summary nodes handles"
run "fbstat -N counters | head -n 20"

step "7. A service dies, and everyone who cares is told"
say "deathwatch links a death notification to the calculator's handle."
run "deathwatch calculator >/tmp/dw.log 2>&1 &"
until_ok "grep -q watching /tmp/dw.log"
cat /tmp/dw.log
run "kill -9 \$(pidof calculator-service)"
say "The kernel noticed the process exit and notified every linked holder:"
until_ok "grep -q died /tmp/dw.log"
cat /tmp/dw.log
say "The service manager was linked too, and dropped the name:"
until_ok "! fbservice check calculator"
smlog
run "fbservice list"
run "fbservice check calculator; echo \"exit status \$?\""
run "fbservice call --idl /fb/files/calculator.fbidl calculator add 1 1; echo \"exit status \$?\""

step "8. Bulk data by memory region"
say "A message is copied into the receiver's mapping (16 MiB at most). For bulk data a"
say "service hands out a memory region instead: a capability to copy straight from its"
say "memory, one copy, any size, read-only here, and revocable."
run "bulk-service 256 --revoke-after 1 >/tmp/bulk.log 2>&1 &"
run "fbservice wait bulk 20000 >/dev/null" || exit 1
cat /tmp/bulk.log
run "bulk-client"
cat /tmp/bulk.log
say "The service revoked the region after that first client; the next one is refused:"
run "bulk-client; echo \"exit status \$?\""
run "grep -E '^live_regions' /sys/kernel/debug/fastbinder/stats"

step "9. Shut down, unload: nothing may stay behind"
for p in $(pidof echo-service threadpool-service deathwatch bulk-service); do kill "$p"; done
echo "\$ kill -TERM \$SM; wait \$SM"
kill -TERM $SM
wait $SM
echo "fb-servicemanager exit status $?"
smlog
sleep 0.2
run "grep -E '^live_' /sys/kernel/debug/fastbinder/stats"
run rmmod fastbinder || exit 1
echo
echo "Demo done.  Next: make check (the tests), make vm-shell (try it yourself),"
echo "examples/README.md (the examples), docs/design.md (how it works)."
