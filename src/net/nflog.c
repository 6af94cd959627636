/* nflog.c — NFLOG over nfnetlink, without libnetfilter_log. */
#include "nflog.h"

#include <errno.h>
#include <netinet/in.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_log.h>
#include <linux/netlink.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <libmnl/libmnl.h>

#include "nftlib.h"

static struct nlmsghdr *config_msg(char *buf, uint16_t group, uint32_t seq)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = (NFNL_SUBSYS_ULOG << 8) | NFULNL_MSG_CONFIG;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = seq;
	struct nfgenmsg *g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->nfgen_family = AF_UNSPEC;
	g->version = NFNETLINK_V0;
	g->res_id = htons(group);
	return nlh;
}

/* Send one request and wait for its acknowledgement. */
static int request(int fd, struct nlmsghdr *nlh, const char *what, struct jail_err *e)
{
	struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
	if (sendto(fd, nlh, nlh->nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0)
		return jail_err_sys(e, "NFLOG: %s", what);
	char buf[8192];
	struct pollfd pfd = {fd, POLLIN, 0};
	if (poll(&pfd, 1, 5000) <= 0)
		return jail_err_set(e, ETIMEDOUT, "NFLOG: %s: no answer", what);
	ssize_t n = recv(fd, buf, sizeof(buf), 0);
	if (n < 0)
		return jail_err_sys(e, "NFLOG: %s", what);
	if (mnl_cb_run(buf, (size_t)n, nlh->nlmsg_seq, 0, NULL, NULL) < 0)
		return jail_err_sys(e, "NFLOG: %s", what);
	return 0;
}

int nflog_open(uint16_t group, struct jail_err *e)
{
	if (nftlib_load(e) < 0)
		return -1;
	_cleanup_close_ int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_NETFILTER);
	if (fd < 0)
		return jail_err_sys(e, "open the NFLOG socket");
	struct sockaddr_nl local = {.nl_family = AF_NETLINK};
	if (bind(fd, (struct sockaddr *)&local, sizeof(local)) < 0)
		return jail_err_sys(e, "bind the NFLOG socket");
	char buf[MNL_SOCKET_BUFFER_SIZE];
	uint32_t seq = (uint32_t)time(NULL);

	struct nlmsghdr *nlh = config_msg(buf, group, seq++);
	struct nfulnl_msg_config_cmd cmd = {.command = NFULNL_CFG_CMD_BIND};
	mnl_attr_put(nlh, NFULA_CFG_CMD, sizeof(cmd), &cmd);
	if (request(fd, nlh, "bind the log group", e) < 0)
		return -1;

	nlh = config_msg(buf, group, seq++);
	struct nfulnl_msg_config_mode mode = {.copy_range = htonl(128),
	                                      .copy_mode = NFULNL_COPY_PACKET};
	mnl_attr_put(nlh, NFULA_CFG_MODE, sizeof(mode), &mode);
	/* One packet is enough to send: the default batches up to 100 for 1 s,
	 * and a blocked line should appear when the client fails, not later. */
	mnl_attr_put_u32(nlh, NFULA_CFG_QTHRESH, htonl(1));
	if (request(fd, nlh, "set the copy mode", e) < 0)
		return -1;
	return steal_fd(&fd);
}

int nflog_parse_packet(int family, const unsigned char *pkt, size_t len,
                       struct nflog_conn *out)
{
	size_t l4;
	memset(out, 0, sizeof(*out));
	out->family = family;
	if (family == AF_INET) {
		if (len < 20 || (pkt[0] >> 4) != 4)
			return -1;
		l4 = (size_t)(pkt[0] & 0x0f) * 4;
		if (l4 < 20 || (((pkt[6] & 0x1f) << 8) | pkt[7]) != 0)
			return -1;  /* a bad header length, or a later fragment: no ports */
		out->proto = pkt[9];
		memcpy(out->daddr, pkt + 16, 4);
	} else if (family == AF_INET6) {
		if (len < 40 || (pkt[0] >> 4) != 6)
			return -1;
		l4 = 40;   /* extension headers are not followed: rare on a first packet */
		out->proto = pkt[6];
		memcpy(out->daddr, pkt + 24, 16);
	} else {
		return -1;
	}
	if ((out->proto != IPPROTO_TCP && out->proto != IPPROTO_UDP) || len < l4 + 4)
		return -1;
	out->dport = (uint16_t)(pkt[l4 + 2] << 8 | pkt[l4 + 3]);
	return 0;
}

static int payload_attr(const struct nlattr *a, void *data)
{
	if (mnl_attr_get_type(a) == NFULA_PAYLOAD)
		*(const struct nlattr **)data = a;
	return MNL_CB_OK;
}

void nflog_each(const void *buf, size_t len, void (*fn)(const struct nflog_conn *, void *),
                void *arg)
{
	struct jail_err e;
	if (nftlib_load(&e) < 0) /* loaded before the clone when the log is read */
		return;
	int n = (int)len;
	for (const struct nlmsghdr *h = buf; mnl_nlmsg_ok(h, n); h = mnl_nlmsg_next(h, &n)) {
		if (h->nlmsg_type != ((NFNL_SUBSYS_ULOG << 8) | NFULNL_MSG_PACKET) ||
		    h->nlmsg_len < NLMSG_HDRLEN + sizeof(struct nfgenmsg))
			continue;
		const struct nfgenmsg *g = mnl_nlmsg_get_payload(h);
		const struct nlattr *payload = NULL;
		if (mnl_attr_parse(h, sizeof(*g), payload_attr, &payload) < 0 || !payload)
			continue;
		struct nflog_conn c;
		if (nflog_parse_packet(g->nfgen_family, mnl_attr_get_payload(payload),
		                       mnl_attr_get_payload_len(payload), &c) == 0)
			fn(&c, arg);
	}
}
