/* sockfilter.c — which internet sockets the jail may make (sockfilter.h).
 *
 * socket(AF_INET or AF_INET6, TYPE, PROTOCOL) reaches a protocol module by
 * its numbers, and the kernel loads the module on demand for anyone:
 * "net-pf-2-proto-132" is SCTP, "-proto-115" L2TP over IP, "-proto-0-type-6"
 * DCCP; UDP-Lite is built in.  Such modules are where local root exploits
 * have come from (DCCP CVE-2017-6074, L2TP CVE-2016-10200), and no coding
 * agent speaks them: the network filter passes TCP and UDP alone anyway,
 * while loopback takes anything.  So the types are SOCK_STREAM and
 * SOCK_DGRAM, the protocols 0 (the type's default: TCP or UDP), TCP, UDP,
 * ICMP and ICMPv6 (ping sockets, where the host allows them) and MPTCP
 * (TCP underneath; Go and systemd try it and fall back).  SOCK_RAW needs a
 * capability the jail does not have: refusing it here changes nothing.
 *
 * The families come first: unix, inet, inet6 and netlink (NETLINK_ROUTE
 * only: audit, uevents, sock_diag and the rest are host-wide); every other
 * family's create code runs, and its module loads on demand, before anything
 * could say no.
 *
 * A hand-made prefix, as idfilter.c's and for the same reason: "neither of
 * these six values" is one compare each here, but a pile of masked rules in
 * libseccomp (the families were 130 of the filter's instructions there).
 * The kernel reads family, type and protocol as ints, so the low 32 bits are
 * what is compared; a family or netlink protocol with any upper bit set is
 * refused all the same (no program passes one).
 *
 * socketpair(2) takes the same three arguments and makes its sockets the same
 * way (the module loads, the protocol's create code runs) before the protocol
 * says it has no pairs: the same rules hold for it. */
#include "sockfilter.h"
#include "sysfilter.h"

#include <endian.h>
#include <errno.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <seccomp.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/netlink.h>

#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif
#define SOCK_TYPE_MASK 0xf  /* the kernel's: the rest are SOCK_NONBLOCK/CLOEXEC */

#define LD(off) ((struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (off)))
/* jump to `t` if A == k, else to `f` (absolute instruction indexes, from `at`) */
#define JEQ(at, k, t, f) \
	((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (k), (unsigned char)((t) - (at) - 1), \
	                              (unsigned char)((f) - (at) - 1)))

/* The syscalls that make a socket from family, type and protocol (args 0-2),
 * each left out when the policy allows it back. */
static const char *const makers[] = {"socket", "socketpair"};

int sockfilter_prefix(const struct jail_config *cfg, struct sock_filter *out, size_t cap)
{
	int nrs[ARRAY_SIZE(makers)];
	size_t n = 0;
	for (size_t i = 0; i < ARRAY_SIZE(makers); i++)
		if (bpf_filtered_nr(cfg, makers[i], &nrs[n]))
			n++;
	if (n == 0)
		return 0;  /* both allowed back, or not syscalls on this architecture */
	/* with one maker, its JEQ is there twice: the layout stays fixed */
	if (n == 1)
		nrs[1] = nrs[0];
	static const uint32_t protos[] = {0, IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMP, IPPROTO_ICMPV6,
	                                  IPPROTO_MPTCP};
	enum { FAMILY = 7, NETLINK = 12, TYPE = 16, PROTO = 20, DENY = PROTO + 1 + 6, END = DENY + 1 };
	struct sock_filter p[END] = {
		[0] = LD(offsetof(struct seccomp_data, arch)),
		[1] = JEQ(1, seccomp_arch_native(), 2, END),
		[2] = LD(offsetof(struct seccomp_data, nr)),
		[3] = JEQ(3, (uint32_t)nrs[0], 5, 4),
		[4] = JEQ(4, (uint32_t)nrs[1], 5, END),
		[5] = LD(seccomp_arg_high(0)),
		[6] = JEQ(6, 0, FAMILY, DENY),
		[FAMILY] = LD(seccomp_arg_low(0)),
		[FAMILY + 1] = JEQ(FAMILY + 1, AF_INET, TYPE, FAMILY + 2),
		[FAMILY + 2] = JEQ(FAMILY + 2, AF_INET6, TYPE, FAMILY + 3),
		[FAMILY + 3] = JEQ(FAMILY + 3, AF_UNIX, END, FAMILY + 4),
		[FAMILY + 4] = JEQ(FAMILY + 4, AF_NETLINK, NETLINK, DENY),
		[NETLINK] = LD(seccomp_arg_high(2)),
		[NETLINK + 1] = JEQ(NETLINK + 1, 0, NETLINK + 2, DENY),
		[NETLINK + 2] = LD(seccomp_arg_low(2)),
		[NETLINK + 3] = JEQ(NETLINK + 3, NETLINK_ROUTE, END, DENY),
		[TYPE] = LD(seccomp_arg_low(1)),
		[TYPE + 1] = BPF_STMT(BPF_ALU | BPF_AND | BPF_K, SOCK_TYPE_MASK),
		[TYPE + 2] = JEQ(TYPE + 2, SOCK_STREAM, PROTO, TYPE + 3),
		[TYPE + 3] = JEQ(TYPE + 3, SOCK_DGRAM, PROTO, DENY),
		[PROTO] = LD(seccomp_arg_low(2)),
		[DENY] = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
	};
	for (unsigned i = 0; i < ARRAY_SIZE(protos); i++) {
		unsigned at = PROTO + 1 + i;
		p[at] = JEQ(at, protos[i], END, i + 1 < ARRAY_SIZE(protos) ? at + 1 : DENY);
	}
	if (cap < END)
		return -1;
	memcpy(out, p, sizeof(p));
	return END;
}
