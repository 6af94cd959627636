# broker_world.bash — the brokered-secrets test world, shared by
# integration/broker.sh and security/fix_review2.sh (see broker.sh's header).

HELPERS=$TESTS/helpers
HOSTNAME_B=api.anthropic.com
REAL_KEY=sk-ant-api03-REALkey0123456789abcdefghijklmnopqrstuvwxyz-AAAA

bg() { "$@" & echo $! >>"$T/.pids"; }
cleanup_bg() { [ -f "$T/.pids" ] && kill $(cat "$T/.pids") 2>/dev/null; true; }
wait_file() { wait_for test -s "$1" || fail "did not appear: $1"; }

# broker_world [CERT_NAME] [SERVER_CA_DIR]: W, the upstream, the project;
# $JAIL runs in W with the host trusting $T/ca only.  The upstream is
# $HELPERS/${UPSTREAM:-tls_echo.py} PORTFILE CERT KEY LOG (python3, or node for a .js).
broker_world() {
	trap cleanup_bg EXIT
	command -v openssl >/dev/null || fail "openssl is missing (scripts/setup installs it)"
	[ -e /dev/net/tun ] || skip "the host has no /dev/net/tun (pasta and slirp4netns need it)"
	make_ca "$T/ca" "${1:-$HOSTNAME_B}"
	local srv=$T/ca
	if [ -n "${2:-}" ]; then make_ca "$2" "$HOSTNAME_B"; srv=$2; fi
	bg unshare -U -n --map-current-user --keep-caps sh -c '
		set -e
		ip link set lo up
		ip link add v0 type veth peer name v1
		ip link set v0 up; ip link set v1 up
		ip addr add 11.22.33.1/24 dev v0
		ip route add default via 11.22.33.254 dev v0
		echo $$ >'"$T"'/.w.tmp; mv '"$T"'/.w.tmp '"$T"'/.w
		exec sleep 1000'
	wait_file "$T/.w"
	W=$(cat "$T/.w")
	local run=python3
	case ${UPSTREAM:-} in *.js) run=node ;; esac
	bg nsenter --preserve-credentials -U -n -t "$W" \
		$run "$HELPERS/${UPSTREAM:-tls_echo.py}" "$T/port" "$srv/srv.crt" "$srv/srv.key" "$T/up.log"
	wait_file "$T/port"
	printf '#!/bin/sh\nexec nsenter --preserve-credentials -U -n -t %s env SSL_CERT_FILE=%s JAIL_TEST_BROKER_UPSTREAM=127.0.0.1:%s %s "$@"\n' \
		"$W" "$T/ca/ca.crt" "$(cat "$T/port")" "$JAIL" >"$T/jail-in-w"
	chmod +x "$T/jail-in-w"
	JAIL=$T/jail-in-w
	mkrepo "$T/p"
	export TEST_REAL_KEY=$REAL_KEY
	B=(-D "$T/p" --net allow --dns-upstream 127.0.0.1:9
		--secret "ANTHROPIC_API_KEY=broker:env:TEST_REAL_KEY for $HOSTNAME_B")
}
