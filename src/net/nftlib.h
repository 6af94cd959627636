/* nftlib.h — libnftnl and libmnl, loaded when the network is filtered
 * (--net allow) instead of at every start.
 *
 * Linked, the dynamic loader mapped and relocated both libraries at every
 * `jail` run, 0.2-0.3 ms of CPU before main(), though only --net allow uses
 * them (the ruleset init installs, the sets the supervisor updates, the log
 * it reads, the host's listening sockets it asks about) and the default is
 * --net none.  nft_netlink.c, nflog.c and hostlisten.c include this header
 * (which includes libmnl's and libnftnl's): every function of theirs they call is a
 * pointer in `nftlib`, filled by dlsym once nftlib_load() has opened the
 * libraries (as tlslib.h does for OpenSSL).  The pointers carry the headers'
 * own types, so calls are checked as before. */
#ifndef JAIL_NFTLIB_H
#define JAIL_NFTLIB_H
#include "nftload.h"

#include <libmnl/libmnl.h>
#include <libnftnl/chain.h>
#include <libnftnl/common.h>
#include <libnftnl/expr.h>
#include <libnftnl/rule.h>
#include <libnftnl/set.h>
#include <libnftnl/table.h>

#define NFTLIB_MNL_FUNCS(X) \
	X(mnl_attr_get_payload) X(mnl_attr_get_payload_len) X(mnl_attr_get_type) X(mnl_attr_parse) \
	X(mnl_attr_put) X(mnl_attr_put_u32) X(mnl_cb_run) X(mnl_nlmsg_batch_current) \
	X(mnl_nlmsg_batch_head) X(mnl_nlmsg_batch_next) X(mnl_nlmsg_batch_size) \
	X(mnl_nlmsg_batch_start) X(mnl_nlmsg_batch_stop) X(mnl_nlmsg_get_payload) \
	X(mnl_nlmsg_get_payload_len) X(mnl_nlmsg_next) X(mnl_nlmsg_ok) \
	X(mnl_nlmsg_put_extra_header) X(mnl_nlmsg_put_header)

#define NFTLIB_NFTNL_FUNCS(X) \
	X(nftnl_batch_begin) X(nftnl_batch_end) X(nftnl_chain_alloc) X(nftnl_chain_free) \
	X(nftnl_chain_nlmsg_build_payload) X(nftnl_chain_set_s32) X(nftnl_chain_set_str) \
	X(nftnl_chain_set_u32) X(nftnl_expr_alloc) X(nftnl_expr_set) X(nftnl_expr_set_str) \
	X(nftnl_expr_set_u16) X(nftnl_expr_set_u32) X(nftnl_expr_set_u8) X(nftnl_nlmsg_build_hdr) \
	X(nftnl_rule_add_expr) X(nftnl_rule_alloc) X(nftnl_rule_free) \
	X(nftnl_rule_nlmsg_build_payload) X(nftnl_rule_set_str) X(nftnl_rule_set_u32) \
	X(nftnl_set_alloc) X(nftnl_set_elem_add) X(nftnl_set_elem_alloc) X(nftnl_set_elem_set) \
	X(nftnl_set_elem_set_u64) X(nftnl_set_elems_nlmsg_build_payload) X(nftnl_set_free) \
	X(nftnl_set_nlmsg_build_payload) X(nftnl_set_set_str) X(nftnl_set_set_u32) \
	X(nftnl_table_alloc) X(nftnl_table_free) X(nftnl_table_nlmsg_build_payload) \
	X(nftnl_table_set_str) X(nftnl_table_set_u32)

#define NFTLIB_FIELD(f) __typeof__(&f) f;
struct nftlib {
	NFTLIB_MNL_FUNCS(NFTLIB_FIELD)
	NFTLIB_NFTNL_FUNCS(NFTLIB_FIELD)
};
#undef NFTLIB_FIELD

extern struct nftlib nftlib;

#ifndef NFTLIB_IMPL
#define mnl_attr_get_payload (*nftlib.mnl_attr_get_payload)
#define mnl_attr_get_payload_len (*nftlib.mnl_attr_get_payload_len)
#define mnl_attr_get_type (*nftlib.mnl_attr_get_type)
#define mnl_attr_parse (*nftlib.mnl_attr_parse)
#define mnl_attr_put (*nftlib.mnl_attr_put)
#define mnl_attr_put_u32 (*nftlib.mnl_attr_put_u32)
#define mnl_cb_run (*nftlib.mnl_cb_run)
#define mnl_nlmsg_batch_current (*nftlib.mnl_nlmsg_batch_current)
#define mnl_nlmsg_batch_head (*nftlib.mnl_nlmsg_batch_head)
#define mnl_nlmsg_batch_next (*nftlib.mnl_nlmsg_batch_next)
#define mnl_nlmsg_batch_size (*nftlib.mnl_nlmsg_batch_size)
#define mnl_nlmsg_batch_start (*nftlib.mnl_nlmsg_batch_start)
#define mnl_nlmsg_batch_stop (*nftlib.mnl_nlmsg_batch_stop)
#define mnl_nlmsg_get_payload (*nftlib.mnl_nlmsg_get_payload)
#define mnl_nlmsg_get_payload_len (*nftlib.mnl_nlmsg_get_payload_len)
#define mnl_nlmsg_next (*nftlib.mnl_nlmsg_next)
#define mnl_nlmsg_ok (*nftlib.mnl_nlmsg_ok)
#define mnl_nlmsg_put_extra_header (*nftlib.mnl_nlmsg_put_extra_header)
#define mnl_nlmsg_put_header (*nftlib.mnl_nlmsg_put_header)
#define nftnl_batch_begin (*nftlib.nftnl_batch_begin)
#define nftnl_batch_end (*nftlib.nftnl_batch_end)
#define nftnl_chain_alloc (*nftlib.nftnl_chain_alloc)
#define nftnl_chain_free (*nftlib.nftnl_chain_free)
#define nftnl_chain_nlmsg_build_payload (*nftlib.nftnl_chain_nlmsg_build_payload)
#define nftnl_chain_set_s32 (*nftlib.nftnl_chain_set_s32)
#define nftnl_chain_set_str (*nftlib.nftnl_chain_set_str)
#define nftnl_chain_set_u32 (*nftlib.nftnl_chain_set_u32)
#define nftnl_expr_alloc (*nftlib.nftnl_expr_alloc)
#define nftnl_expr_set (*nftlib.nftnl_expr_set)
#define nftnl_expr_set_str (*nftlib.nftnl_expr_set_str)
#define nftnl_expr_set_u16 (*nftlib.nftnl_expr_set_u16)
#define nftnl_expr_set_u32 (*nftlib.nftnl_expr_set_u32)
#define nftnl_expr_set_u8 (*nftlib.nftnl_expr_set_u8)
#define nftnl_nlmsg_build_hdr (*nftlib.nftnl_nlmsg_build_hdr)
#define nftnl_rule_add_expr (*nftlib.nftnl_rule_add_expr)
#define nftnl_rule_alloc (*nftlib.nftnl_rule_alloc)
#define nftnl_rule_free (*nftlib.nftnl_rule_free)
#define nftnl_rule_nlmsg_build_payload (*nftlib.nftnl_rule_nlmsg_build_payload)
#define nftnl_rule_set_str (*nftlib.nftnl_rule_set_str)
#define nftnl_rule_set_u32 (*nftlib.nftnl_rule_set_u32)
#define nftnl_set_alloc (*nftlib.nftnl_set_alloc)
#define nftnl_set_elem_add (*nftlib.nftnl_set_elem_add)
#define nftnl_set_elem_alloc (*nftlib.nftnl_set_elem_alloc)
#define nftnl_set_elem_set (*nftlib.nftnl_set_elem_set)
#define nftnl_set_elem_set_u64 (*nftlib.nftnl_set_elem_set_u64)
#define nftnl_set_elems_nlmsg_build_payload (*nftlib.nftnl_set_elems_nlmsg_build_payload)
#define nftnl_set_free (*nftlib.nftnl_set_free)
#define nftnl_set_nlmsg_build_payload (*nftlib.nftnl_set_nlmsg_build_payload)
#define nftnl_set_set_str (*nftlib.nftnl_set_set_str)
#define nftnl_set_set_u32 (*nftlib.nftnl_set_set_u32)
#define nftnl_table_alloc (*nftlib.nftnl_table_alloc)
#define nftnl_table_free (*nftlib.nftnl_table_free)
#define nftnl_table_nlmsg_build_payload (*nftlib.nftnl_table_nlmsg_build_payload)
#define nftnl_table_set_str (*nftlib.nftnl_table_set_str)
#define nftnl_table_set_u32 (*nftlib.nftnl_table_set_u32)
#endif

#endif
