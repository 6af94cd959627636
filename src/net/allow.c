/* allow.c — parsing the egress allowlist. */
#include "allow.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

static int parse_port(const char *s, uint16_t *port)
{
	if (!*s || strlen(s) > 5)
		return -1;
	unsigned long v = 0;
	for (const char *p = s; *p; p++) {
		if (!isdigit((unsigned char)*p))
			return -1;
		v = v * 10 + (unsigned long)(*p - '0');
	}
	if (v == 0 || v > 65535)
		return -1;
	*port = (uint16_t)v;
	return 0;
}

bool allow_normalize_name(char *name)
{
	size_t n = strlen(name);
	if (n > 0 && name[n - 1] == '.')
		name[--n] = '\0';
	if (n == 0 || n > 253)
		return false;
	size_t label = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)name[i];
		if (c == '.') {
			if (label == 0)
				return false;
			label = 0;
			continue;
		}
		if (!isalnum(c) && c != '-' && c != '_')
			return false;
		name[i] = (char)tolower(c);
		if (++label > 63)
			return false;
	}
	return label > 0;
}

/* Split "HOST:PORT" / "[V6]:PORT" into a host string and a port. */
static int split_host_port(const char *spec, char **host, uint16_t *port)
{
	const char *colon;
	if (spec[0] == '[') {
		const char *close = strchr(spec, ']');
		if (!close || close[1] != ':')
			return -1;
		*host = strndup(spec + 1, (size_t)(close - spec - 1));
		colon = close + 1;
	} else {
		colon = strrchr(spec, ':');
		if (!colon || memchr(spec, ':', (size_t)(colon - spec)))
			return -1;  /* no port, or a bare IPv6 address without brackets */
		*host = strndup(spec, (size_t)(colon - spec));
	}
	if (!*host)
		abort();
	return parse_port(colon + 1, port);
}

static int parse_one(const char *spec, struct allow_entry *a, struct jail_err *e)
{
	_cleanup_free_ char *host = NULL;
	memset(a, 0, sizeof(*a));
	if (split_host_port(spec, &host, &a->port) < 0)
		return jail_err_set(e, 0, "--allow %s: expected HOST:PORT (port 1-65535; "
		                    "IPv6 as [ADDR]:PORT)", spec);
	if (inet_pton(AF_INET, host, a->addr) == 1) {
		a->kind = ALLOW_V4;
		return 0;
	}
	if (inet_pton(AF_INET6, host, a->addr) == 1) {
		a->kind = ALLOW_V6;
		return 0;
	}
	if (strcasecmp(host, "host") == 0 || strcasecmp(host, ALLOW_HOST_NAME) == 0) {
		a->kind = ALLOW_HOST;
		return 0;
	}
	char *name = host;
	a->kind = ALLOW_NAME;
	if (strncmp(host, "*.", 2) == 0) {
		a->kind = ALLOW_SUFFIX;
		name += 2;
	}
	if (!allow_normalize_name(name))
		return jail_err_set(e, 0, "--allow %s: '%s' is neither an address nor a host "
		                    "name (a wildcard is written *.example.com)", spec, host);
	a->name = xstrdup(name);
	return 0;
}

int allow_parse(const struct strv *specs, struct allow_list *out, struct jail_err *e)
{
	out->v = specs->n ? xcalloc(specs->n, sizeof(*out->v)) : NULL;
	out->n = 0;
	for (size_t i = 0; i < specs->n; i++) {
		if (parse_one(specs->v[i], &out->v[out->n], e) < 0) {
			allow_free(out);
			return -1;
		}
		out->n++;
	}
	return 0;
}

void allow_free(struct allow_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].name);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

bool allow_entry_matches(const struct allow_entry *a, const char *name)
{
	if (a->kind == ALLOW_NAME)
		return strcmp(a->name, name) == 0;
	if (a->kind != ALLOW_SUFFIX)
		return false;
	size_t n = strlen(name), s = strlen(a->name);
	return n > s + 1 && name[n - s - 1] == '.' && strcmp(name + n - s, a->name) == 0;
}

static size_t add_port(uint16_t *ports, size_t n, size_t max, uint16_t port)
{
	for (size_t i = 0; i < n; i++)
		if (ports[i] == port)
			return n;
	if (n < max)
		ports[n++] = port;
	return n;
}

size_t allow_name_ports(const struct allow_list *l, const char *name, uint16_t *ports,
                        size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < l->n; i++)
		if (allow_entry_matches(&l->v[i], name))
			n = add_port(ports, n, max, l->v[i].port);
	return n;
}

bool allow_name_gated(const struct allow_list *l, const char *name)
{
	uint16_t ports[2];
	return allow_name_ports(l, name, ports, ARRAY_SIZE(ports)) == 1 &&
	       ports[0] == ALLOW_GATE_PORT;
}

bool allow_gate_wanted(const struct allow_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		if ((l->v[i].kind == ALLOW_NAME || l->v[i].kind == ALLOW_SUFFIX) &&
		    l->v[i].port == ALLOW_GATE_PORT)
			return true;
	return false;
}

size_t allow_host_ports(const struct allow_list *l, uint16_t *ports, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].kind == ALLOW_HOST)
			n = add_port(ports, n, max, l->v[i].port);
	return n;
}

int addr_port_parse(const char *s, uint16_t default_port, struct sockaddr_storage *ss,
                    socklen_t *len, struct jail_err *e)
{
	_cleanup_free_ char *host = NULL;
	uint16_t port = default_port;
	struct in6_addr a6;
	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET6, s, &a6) == 1) {
		host = xstrdup(s);
	} else if (strchr(s, ':') || s[0] == '[') {
		if (split_host_port(s, &host, &port) < 0)
			return jail_err_set(e, 0, "'%s': expected ADDR or ADDR:PORT", s);
	} else {
		host = xstrdup(s);
	}
	struct sockaddr_in *in = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
	if (inet_pton(AF_INET, host, &in->sin_addr) == 1) {
		in->sin_family = AF_INET;
		in->sin_port = htons(port);
		*len = sizeof(*in);
	} else if (inet_pton(AF_INET6, host, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
		*len = sizeof(*in6);
	} else {
		return jail_err_set(e, 0, "'%s': not an IP address", s);
	}
	return 0;
}
