#!/bin/sh
# SPDX-License-Identifier: MIT
#
# example_bulk: examples/bulk.  bulk-service offers 256 MiB by memory
# region; bulk-client, as uid 65534, pulls it in one read and its checksum
# matches the service's on both sides (the message path could not carry
# it: 16 MiB at most).  After that first confirmation the service revokes
# the region, and a second client finds it dead: EKEYREVOKED.
# ok, bad, spawn, stop, retry, start_manager, finish: tests/lib/fbt.sh
. fbt.sh

start_manager
spawn fb-nobody bulk-service 256 --revoke-after 1 >svc.out
SVC=$LAST
TRIES=300 retry fbservice check bulk ||
	{ echo "fatal: bulk-service did not register"; cat svc.out; exit 1; }

if fb-nobody bulk-client >client.out 2>&1; then ok "bulk-client exit 0"
else bad "bulk-client exit $?"; fi
cat client.out
grep -q '^bulk-client: read 256 MiB in .* (matches the service.s)$' client.out &&
	ok "256 MiB read, checksum matches on the client's side" || bad "client checksum line missing"
grep -q '^bulk-service: pid [1-9][0-9]* read 256 MiB, checksum matches$' svc.out &&
	ok "the service confirms the checksum" || { bad "service did not confirm"; cat svc.out; }
grep -qx 'bulk-service: region revoked: ok' svc.out &&
	ok "the service revoked the region" || { bad "no revoke line"; cat svc.out; }

if fb-nobody bulk-client >client2.out 2>&1; then bad "a second client read a revoked region"
else ok "second client fails"; fi
cat client2.out
grep -q '^bulk-client: region info: Key has been revoked' client2.out &&
	ok "the revoked region: EKEYREVOKED" || bad "expected 'region info: Key has been revoked'"

stop $SVC
finish
