# networld.bash — the test network of the network tests (integration/net.sh,
# security/network.sh), sourced by them.
#
# Every test runs jail in a small network the test makes itself (net_world):
# a user and network namespace W that stands for "the host" (its loopback
# holds the DNS server and the host:PORT services, its default route leads to
# a second namespace S with public-looking addresses that stands for "the
# internet", where any port may be bound: a server on 443), so no packet
# reaches the real host's network, and a DNS answer can name a public address
# that a server really listens on.  The helper maps W's loopback to W's
# gateway (pasta) or 10.0.2.2 (slirp4netns); jail opens that only for
# host:PORT entries, never for a DNS answer.

HELPERS=$TESTS/helpers
PUB4=11.22.33.44        # S: the test's "public" servers
GW4=11.22.33.254        # W's default gateway (pasta maps it to W's loopback)
PUB6=2a0b:1::44
LAN4=10.1.2.3           # S too: a private address behind the route
GW6=2a0b:1::fe          # W's IPv6 gateway (mapped like GW4)

bg() { # run in the background, killed when the test ends
	# in_w/in_s spelled out: a backgrounded function is a subshell, and
	# killing it (its pid is $!) would leave the server behind
	case $1 in
	in_w) shift; set -- nsenter --preserve-credentials -U -n -t "$W" "$@" ;;
	in_s) shift; set -- nsenter --preserve-credentials -U -n -t "$S" "$@" ;;
	esac
	"$@" &
	echo $! >>"$T/.pids"
}
cleanup_bg() { [ -f "$T/.pids" ] && kill $(cat "$T/.pids") 2>/dev/null; true; }
wait_file() { wait_for test -s "$1" || fail "server did not start: $1"; }

# when_jail_runs CMD: shell text for W_SETUP (net_world) that runs CMD in W
# once the jail of run_across_change says it runs (or gives up with the
# test's wait, so nothing is left polling), for a change the host makes
# while a jail runs: an address taken, a route added.
when_jail_runs() {
	echo "(i=0; while [ ! -e '$T/.addnow' ] && [ \$i -lt 1200 ]; do sleep 0.05; i=\$((i+1)); done
		$1 && echo ok >'$T/.added') &"
}

# run_across_change JAIL_ARGS... -- SCRIPT: the jail starts and says so, the
# host makes its change (when_jail_runs), then SCRIPT runs in the jail; its
# output in $out and $err.
run_across_change() {
	local args=() pid
	while [ "$1" != -- ]; do args+=("$1"); shift; done
	shift
	mkfifo "$T/go"
	exec 7<>"$T/go"
	"$JAIL" "${args[@]}" -- sh -c "echo ready; read x; $1" <"$T/go" >"$T/late.out" \
		2>"$T/late.err" &
	pid=$!
	wait_for grep -q ready "$T/late.out"
	touch "$T/.addnow"
	wait_file "$T/.added"
	echo go >&7
	wait "$pid" || true
	exec 7>&-
	out=$(cat "$T/late.out") err=$(cat "$T/late.err")
}

# open_never_reaches_anyip V4ROUTE V6ROUTE V4 V6: W takes the local routes
# (AnyIP: on no interface's list) V4ROUTE and V6ROUTE, where its server bound
# to :: answers at V4 and V6 (checked); a jail with --net open reaches
# neither, and the internet still (the positive control).
open_never_reaches_anyip() {
	W_SETUP="ip route add local $1 dev lo; ip -6 route add local $2 dev lo" net_servers
	bg in_w python3 "$HELPERS/http_server.py" "$T/p7" :: "$T/www"
	wait_file "$T/p7"
	P7=$(cat "$T/p7")
	in_w python3 -c "$TCP_PROBE" "$3,$P7" "$4,$P7" | grep -c open | grep -qx 2 ||
		fail "W's server does not answer at W's AnyIP addresses"
	run_jail -D "$T/p" --net open -- python3 -c "$TCP_PROBE" "$3,$P7" "$4,$P7" "$PUB4,$P2"
	assert_eq "$rc" 0 "(stderr: $err)"
	assert_contains "$out" "$PUB4 $P2 open"
	assert_contains "$out" "$3 $P7 failed"
	assert_contains "$out" "$4 $P7 failed"
}

# net_world: the namespaces W and S (above); $W and $S are their holder pids,
# in_w / in_s run a command there, and $JAIL becomes jail run in W.  W_SETUP:
# shell commands run in W while it holds its capabilities (in_w has none).
net_world() {
	trap cleanup_bg EXIT
	# no tun device at all (a container without it): the host cannot give a
	# user network namespace a way out, for jail or any other tool
	[ -e /dev/net/tun ] || skip "the host has no /dev/net/tun (pasta and slirp4netns need it)"
	[ -r /dev/net/tun ] && [ -w /dev/net/tun ] || fail "/dev/net/tun is not usable: chmod 0666 /dev/net/tun"
	unshare -U -n --map-current-user --keep-caps ip link add v0 type veth peer name v1 ||
		fail "cannot make the test network (a user and network namespace with a veth pair)"
	bg unshare -U -n --map-current-user --keep-caps sh -c '
		set -e
		ip link set lo up
		ip link add v0 type veth peer name v1
		unshare -n sh -c "echo \$\$ >'"$T"'/.s; exec sleep 1000" &
		while [ ! -s '"$T"'/.s ]; do sleep 0.02; done
		ip link set v1 netns "$(cat '"$T"'/.s)"
		nsenter -n -t "$(cat '"$T"'/.s)" sh -c "set -e; ip link set lo up; ip link set v1 up
			ip addr add '$PUB4'/24 dev v1; ip addr add '$LAN4'/24 dev v1
			ip addr add '$PUB6'/64 dev v1 nodad
			echo 0 >/proc/sys/net/ipv4/ip_unprivileged_port_start"
		echo 0 >/proc/sys/net/ipv4/ip_unprivileged_port_start  # a "host" server on 443
		ip link set v0 up
		ip addr add 11.22.33.1/24 dev v0
		ip addr add 2a0b:1::1/64 dev v0 nodad
		ip route add default via '$GW4' dev v0
		ip route add '$LAN4' via '$PUB4' dev v0
		ip -6 route add default via 2a0b:1::fe dev v0
		'"${W_SETUP:-}"'
		echo $$ >'"$T"'/.w.tmp; mv '"$T"'/.w.tmp '"$T"'/.w
		exec sleep 1000'
	wait_file "$T/.w"
	W=$(cat "$T/.w") S=$(cat "$T/.s")
	echo "$S" >>"$T/.pids"
	REAL_JAIL=$JAIL
	printf '#!/bin/sh\nexec nsenter --preserve-credentials -U -n -t %s %s "$@"\n' "$W" "$REAL_JAIL" >"$T/jail-in-w"
	chmod +x "$T/jail-in-w"
	JAIL=$T/jail-in-w
}
in_w() { nsenter --preserve-credentials -U -n -t "$W" "$@"; }
in_s() { nsenter --preserve-credentials -U -n -t "$S" "$@"; }

# net_servers [slirp4netns] [NAME=ADDR...]: in S, HTTP servers on every
# address (P1 allowed by name, P2 not); in W, one on 127.0.0.1 (P3, allowed as
# host:P3), one on ::1 (P6), and a DNS server (DNSP) that maps api.test to the
# public server and the extra NAME=ADDR pairs as given.  HOST4 is where the
# jail reaches W's loopback.
net_servers() {
	net_world
	if [ "${1:-}" = slirp4netns ]; then
		export JAIL_NET_HELPER=slirp4netns
		HOST4=10.0.2.2
		shift
	else
		HOST4=$GW4
	fi
	mkdir -p "$T/www"
	echo hello-jail >"$T/www/index.html"
	for s in 1 2; do bg in_s python3 "$HELPERS/http_server.py" "$T/p$s" 0.0.0.0 "$T/www"; done
	bg in_w python3 "$HELPERS/http_server.py" "$T/p3" 127.0.0.1 "$T/www"
	bg in_w python3 "$HELPERS/http_server.py" "$T/p6" ::1 "$T/www"
	bg in_w python3 "$HELPERS/dns_server.py" "$T/dnsport" "$T/dns.log" \
		"api.test=$PUB4" "other.test=$PUB4" "link.test=169.254.169.254" \
		"slirpdns.test=10.0.2.3" "alias.test=>api.test" "$@"
	for f in p1 p2 p3 p6 dnsport; do wait_file "$T/$f"; done
	P1=$(cat "$T/p1") P2=$(cat "$T/p2") P3=$(cat "$T/p3") P6=$(cat "$T/p6")
	DNSP=$(cat "$T/dnsport")
	mkrepo "$T/p"
	NET=(-D "$T/p" --net allow --dns-upstream "127.0.0.1:$DNSP" --allow "api.test:$P1"
		--allow "host:$P3")
}

# ms CMD...: inside the jail, how long CMD took (ms), after its own output.
MS='s=$(date +%s%N); "$@"; r=$?; echo "ms=$(( ($(date +%s%N) - s) / 1000000 )) rc=$r"'

# TCP_PROBE ADDR,PORT...: from inside, a TCP connection to each ("open", or
# "failed" and why).
TCP_PROBE='import socket, sys
for spec in sys.argv[1:]:
    addr, port = spec.rsplit(",", 1)
    s = socket.socket(socket.AF_INET6 if ":" in addr else socket.AF_INET)
    s.settimeout(5)
    try:
        s.connect((addr, int(port)))
        print(addr, port, "open")
    except OSError as e:
        print(addr, port, "failed", e)'
