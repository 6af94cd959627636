/* broker.c — brokered secrets: policy syntax, placeholders, the wipe-on-fork
 * vault, the counts and reports (see broker.h). */
#include "brokerpriv.h"
#include "allow.h"
#include "brokerrules.h"
#include "log.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/socket.h>

#define VAULT_SIZE (64 * 1024)

bool broker_is_spec(const char *value)
{
	return strncmp(value, "broker:", 7) == 0;
}

void broker_spec_free(struct broker_spec *s)
{
	free(s->source);
	strv_free(&s->hosts);
	strv_free(&s->headers);
	strv_free(&s->rules);
	memset(s, 0, sizeof(*s));
}

static bool header_name_ok(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      *s == '-' || *s == '_'))
			return false;
	return true;
}

enum item { IT_HOST, IT_HEADER, IT_RULE };

/* "METHOD   PATTERN" to "METHOD PATTERN", then checked */
static bool rule_ok(char *it)
{
	char *sp = strchr(it, ' ');
	if (sp) {
		size_t gap = strspn(sp, " ");
		memmove(sp + 1, sp + gap, strlen(sp + gap) + 1);
	}
	return brokerrules_valid(it);
}

/* Split a comma list; each item checked (and normalized). */
static int split_list(const char *name, const char *what, char *list, struct strv *out,
                      enum item kind, struct jail_err *e)
{
	for (char *save = NULL, *it = strtok_r(list, ",", &save); it; it = strtok_r(NULL, ",", &save)) {
		while (*it == ' ')
			it++;
		size_t l = strlen(it);
		while (l && it[l - 1] == ' ')
			it[--l] = '\0';
		bool ok = kind == IT_HOST ? allow_normalize_name(it) && strchr(it, '.')
		          : kind == IT_HEADER ? header_name_ok(it) : rule_ok(it);
		if (!ok) {
			_cleanup_free_ char *esc = escape_name(it);
			return jail_err_set(e, 0, "secret %s: '%s' is not a %s", name, esc, what);
		}
		if (!strv_contains(out, it))
			strv_push(out, it);
	}
	if (out->n == 0)
		return jail_err_set(e, 0, "secret %s: no %s in 'broker:...'", name, what);
	return 0;
}

static const char *rfind(const char *s, const char *needle)
{
	const char *last = NULL;
	for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle))
		last = p;
	return last;
}

int broker_spec_parse(const char *name, const char *value, struct broker_spec *out,
                      struct jail_err *e)
{
	memset(out, 0, sizeof(*out));
	/* from the right: a command may say "for" itself */
	const char *f = rfind(value, " for ");
	if (!broker_is_spec(value) || !f)
		return jail_err_set(e, 0, "secret %s: expected broker:SOURCE for HOST[,HOST] "
		                          "[in HEADER[,HEADER]] [only METHOD PATH[, METHOD PATH]]", name);
	out->source = strndup(value + 7, (size_t)(f - value - 7));
	_cleanup_free_ char *rest = xstrdup(f + 5);
	/* rules last: a path may hold " in " no more than a space */
	char *only = strstr(rest, " only ");
	if (only)
		*only = '\0';
	char *in = strstr(rest, " in ");
	if (in)
		*in = '\0';
	if (split_list(name, "host name", rest, &out->hosts, IT_HOST, e) < 0 ||
	    (in && split_list(name, "header name", in + 4, &out->headers, IT_HEADER, e) < 0) ||
	    (only && split_list(name, "rule (METHOD /PATH: METHOD in capitals or *, PATH "
	                              "with * for any run of characters and no query)",
	                        only + 6, &out->rules, IT_RULE, e) < 0)) {
		broker_spec_free(out);
		return -1;
	}
	if (!in) {
		strv_push(&out->headers, "Authorization");
		strv_push(&out->headers, "x-api-key");
	}
	if (!out->source || strncmp(out->source, "broker:", 7) == 0 || !out->source[0]) {
		broker_spec_free(out);
		return jail_err_set(e, 0, "secret %s: broker: needs a source (env:, file:, cmd:)", name);
	}
	return 0;
}

static bool is_alnum(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

enum { KIND_DIGIT = 1, KIND_LOWER = 2, KIND_UPPER = 4 };

/* A letter's or digit's kind (0: neither). */
static unsigned kind_of(char c)
{
	return c >= '0' && c <= '9' ? KIND_DIGIT : c >= 'a' && c <= 'z' ? KIND_LOWER
	       : c >= 'A' && c <= 'Z' ? KIND_UPPER : 0;
}

/* For each character of val from keep on, the kinds its run of letters and
 * digits holds (0 for anything else).  A placeholder's character is drawn
 * from all of them, not from its own character's kind: that would show
 * which of the key's characters are digits, small or capital letters
 * (about 1.5 bits of each of a random key's), where the run's kinds show
 * only its format (a run of digits stays digits: xoxb-123-...). */
static void run_kinds(const char *val, size_t keep, size_t len, unsigned *kinds)
{
	for (size_t i = keep; i < len;) {
		size_t j = i;
		unsigned k = 0;
		while (j < len && kind_of(val[j]))
			k |= kind_of(val[j++]);
		for (size_t n = i; n < j; n++)
			kinds[n] = k;
		if (j == i)
			kinds[j++] = 0;
		i = j;
	}
}

/* A random character of those kinds (KIND_*). */
static char random_of(unsigned kinds, unsigned char r)
{
	char alphabet[62];
	size_t n = 0;
	for (char c = '0'; c <= '9' && (kinds & KIND_DIGIT); c++)
		alphabet[n++] = c;
	for (char c = 'a'; c <= 'z' && (kinds & KIND_LOWER); c++)
		alphabet[n++] = c;
	for (char c = 'A'; c <= 'Z' && (kinds & KIND_UPPER); c++)
		alphabet[n++] = c;
	return alphabet[r % n];
}

/* Could [s, s+n) be a word of a key's public format ("sk", "ant", "api03",
 * "proj", "github", "pat", "v1"): 2 to 10 characters, 1 to 8 letters of one
 * case, then at most 2 digits?  A run of the key's random characters mostly
 * is not (it starts with a digit, mixes cases, is longer, or is one
 * character: a UUID's "123e4567", the "x" of sk-ant-api03-x-...). */
static bool format_word(const char *s, size_t n)
{
	size_t letters = 0;
	bool lower = s[0] >= 'a' && s[0] <= 'z';
	while (letters < n && (lower ? (s[letters] >= 'a' && s[letters] <= 'z')
	                             : (s[letters] >= 'A' && s[letters] <= 'Z')))
		letters++;
	if (n < 2 || !letters || letters > 8 || n - letters > 2)
		return false;
	for (size_t i = letters; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

/* How much of val a placeholder keeps: its public format prefix, the words
 * each ended by '-' or '_' within its first 16 characters (sk-ant-api03-,
 * ghp_, github_pat_).  Only such words: the prefix goes to the jail as it
 * is, and a key whose random part holds a '-' or '_' early (a UUID, an
 * sk-proj- key) would hand the agent every character before it. */
static size_t kept_prefix(const char *val)
{
	size_t keep = 0;
	for (size_t i = 0; val[i] && i < 16;) {
		size_t n = strcspn(val + i, "-_");
		if (!val[i + n] || i + n >= 16 || !format_word(val + i, n))
			break;
		keep = i = i + n + 1;
	}
	return keep;
}

/* The prefix a placeholder kept before kept_prefix read words: up to the
 * last '-' or '_' of the first 16 characters, random ones included. */
static size_t old_kept_prefix(const char *val)
{
	size_t keep = 0;
	for (size_t i = 0; val[i] && i < 16; i++)
		if (val[i] == '-' || val[i] == '_')
			keep = i + 1;
	return keep;
}

int broker_placeholder(const char *val, char *out, size_t cap)
{
	size_t len = strlen(val), keep = kept_prefix(val);
	if (len + 1 > cap)
		return -1;
	size_t randomized = 0;
	for (size_t i = keep; i < len; i++)
		randomized += is_alnum(val[i]);
	if (randomized < 16)
		return -1;
	/* (a byte each: getrandom gives up to 256 whole; the slight bias of
	 * r % n tells nothing of the value) */
	unsigned char rnd[BROKER_PH_MAX];
	unsigned kinds[BROKER_PH_MAX];
	run_kinds(val, keep, len, kinds);
	do {
		if (getrandom(rnd, len, 0) != (ssize_t)len)
			return -1;
		memcpy(out, val, keep);
		for (size_t i = keep; i < len; i++)
			out[i] = kinds[i] ? random_of(kinds[i], rnd[i]) : val[i];
		out[len] = '\0';
	} while (strcmp(out, val) == 0);
	explicit_bzero(kinds, sizeof(kinds));
	return 0;
}

bool broker_placeholder_fits(const char *val, const char *ph)
{
	size_t len = strlen(val), keep = kept_prefix(val);
	if (len >= BROKER_PH_MAX || strlen(ph) != len || memcmp(ph, val, keep) != 0 ||
	    strcmp(ph, val) == 0)
		return false;
	/* one stored by an older jail kept random characters of the value (a
	 * UUID's first groups): the agent has them, but it gets no more runs
	 * of them; a new placeholder shares them by chance only */
	size_t old = old_kept_prefix(val);
	if (old > keep && memcmp(ph + keep, val + keep, old - keep) == 0)
		return false;
	unsigned kinds[BROKER_PH_MAX];
	size_t mixed = 0, alike = 0;
	run_kinds(val, keep, len, kinds);
	for (size_t i = keep; i < len; i++) {
		if (kinds[i] ? !(kind_of(ph[i]) & kinds[i]) : ph[i] != val[i])
			return false;
		bool several = kinds[i] & (kinds[i] - 1);
		mixed += several;
		alike += several && kind_of(ph[i]) == kind_of(val[i]);
	}
	explicit_bzero(kinds, sizeof(kinds));
	/* one stored by an older jail has each character of the value's own
	 * kind; a new one, drawn from the run's kinds, has them all alike by
	 * chance only (under 1 in 300000 over 16 characters) */
	return !(mixed >= 16 && alike == mixed);
}

struct broker *broker_new(void)
{
	struct broker *b = xcalloc(1, sizeof(*b));
	b->listen_fd = -1;
	b->stop[0] = b->stop[1] = -1;
	for (size_t i = 0; i < BROKER_MAX_CONNS; i++)
		b->conns[i][0] = b->conns[i][1] = -1;
	pthread_mutex_init(&b->lock, NULL);
	pthread_cond_init(&b->idle, NULL);
	return b;
}

static int vault_open(struct broker *b, struct jail_err *e)
{
	if (b->vault)
		return 0;
	void *m = mmap(NULL, VAULT_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return jail_err_sys(e, "map memory for brokered secrets");
	/* the jail's init is a fork-like clone: it must get zeros here */
	if (madvise(m, VAULT_SIZE, MADV_WIPEONFORK) < 0 || madvise(m, VAULT_SIZE, MADV_DONTDUMP) < 0) {
		int err = errno;
		munmap(m, VAULT_SIZE);
		return jail_err_set(e, err, "brokered secrets need MADV_WIPEONFORK (Linux 4.14)");
	}
	b->vault = m;
	b->vault_len = VAULT_SIZE;
	return 0;
}

static void add_host(struct broker *b, const char *name)
{
	for (size_t i = 0; i < b->n_host; i++)
		if (strcmp(b->host[i].name, name) == 0)
			return;
	if (b->n_host < ARRAY_SIZE(b->host))
		b->host[b->n_host++] = (struct broker_host){.name = xstrdup(name), .making_fd = -1};
}

/* Is ph already another secret's placeholder?  Two secrets sharing one would
 * let the broker put one's real value where the other's was meant. */
static bool placeholder_taken(const struct broker *b, const char *ph)
{
	for (size_t i = 0; i < b->n_sec; i++)
		if (strcmp(b->sec[i].placeholder, ph) == 0)
			return true;
	return false;
}

int broker_add(struct broker *b, const char *name, const char *val, struct broker_spec *spec,
               const char *stored, const char **placeholder, struct jail_err *e)
{
	size_t len = strlen(val);
	if (b->n_sec == BROKER_MAX_SECRETS)
		return jail_err_set(e, 0, "secret %s: at most %d brokered secrets", name, BROKER_MAX_SECRETS);
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)val[i] < 0x21 || val[i] == 0x7f)
			return jail_err_set(e, 0, "secret %s: a brokered value must be one token "
			                          "(no spaces or control characters)", name);
	if (len >= BROKER_PH_MAX)
		return jail_err_set(e, 0, "secret %s: a brokered value is at most %d characters",
		                    name, BROKER_PH_MAX - 1);
	if (spec->hosts.n + b->n_host > ARRAY_SIZE(b->host))
		return jail_err_set(e, 0, "secret %s: too many brokered hosts", name);
	struct broker_secret *s = &b->sec[b->n_sec];
	if (broker_placeholder(val, s->placeholder, sizeof(s->placeholder)) < 0)
		return jail_err_set(e, 0, "secret %s: too short to broker (16 letters or digits "
		                          "after its prefix are needed)", name);
	/* the session's earlier placeholder, while the value keeps its shape:
	 * a client that remembers an approved key by its tail asks only once */
	if (stored && broker_placeholder_fits(val, stored) && !placeholder_taken(b, stored))
		memcpy(s->placeholder, stored, len + 1);
	else if (stored)
		log_debug("secret %s: a new placeholder (the value changed shape)", name);
	if (vault_open(b, e) < 0)
		return -1;
	if (b->vault_used + len + 1 > b->vault_len)
		return jail_err_set(e, 0, "secret %s: brokered values too long", name);
	s->real = b->vault + b->vault_used;
	memcpy(s->real, val, len + 1);
	b->vault_used += len + 1;
	s->name = xstrdup(name);
	s->hosts = spec->hosts;
	s->headers = spec->headers;
	memset(&spec->hosts, 0, sizeof(spec->hosts));
	memset(&spec->headers, 0, sizeof(spec->headers));
	s->rules = spec->rules;
	memset(&spec->rules, 0, sizeof(spec->rules));
	for (size_t i = 0; i < s->hosts.n; i++)
		add_host(b, s->hosts.v[i]);
	b->n_sec++;
	*placeholder = s->placeholder;
	return 0;
}

int broker_check_leaks(const struct broker *b, const struct strv *env, const char *const *files,
                       const size_t *lens, size_t n_files, struct jail_err *e)
{
	for (size_t i = 0; i < b->n_sec; i++) {
		const char *real = b->sec[i].real;
		for (size_t j = 0; j < env->n; j++)
			if (strstr(env->v[j], real))
				return jail_err_set(e, 0, "secret %s is brokered, but its real value would "
				                          "reach the jail in $%.*s too; stop passing that "
				                          "variable ([env] or [secrets])", b->sec[i].name,
				                    (int)strcspn(env->v[j], "="), env->v[j]);
		for (size_t j = 0; j < n_files; j++)
			if (memmem(files[j], lens[j], real, strlen(real)))
				return jail_err_set(e, 0, "secret %s is brokered, but its real value would "
				                          "reach the jail in a secret file too", b->sec[i].name);
	}
	return 0;
}

bool broker_serves(const struct broker *b, const char *name)
{
	for (size_t i = 0; b && i < b->n_host; i++)
		if (strcasecmp(b->host[i].name, name) == 0)
			return true;
	return false;
}

int broker_prepare(struct broker *b, struct jail_err *e)
{
	return brokertls_prepare(b, e);
}

const char *broker_ca_pem(const struct broker *b)
{
	return b->ca_pem;
}

const char *broker_bundle_pem(const struct broker *b)
{
	return b->bundle_pem;
}

void broker_placeholders(const struct broker *b, struct strv *out)
{
	for (size_t i = 0; b && i < b->n_sec; i++)
		strv_push_take(out, xasprintf("%s=%s", b->sec[i].name, b->sec[i].placeholder));
}

size_t broker_creds(const struct broker *b, const char *host, struct broker_cred *out)
{
	for (size_t i = 0; i < b->n_sec; i++) {
		const struct broker_secret *s = &b->sec[i];
		out[i] = (struct broker_cred){s->name, s->placeholder,
		                              strv_contains(&s->hosts, host) ? s->real : NULL, &s->headers,
		                              s->rules.n ? &s->rules : NULL};
	}
	return b->n_sec;
}

/* The first WARN_SHOWN warnings are shown as they come, the rest only
 * counted: an agent repeating a refused request, a placeholder or a
 * connection in a loop must not bury the user's terminal. */
#define WARN_SHOWN 20

void broker_warn(struct broker *b, const char *fmt, ...)
{
	pthread_mutex_lock(&b->lock);
	unsigned long n = ++b->warnings;
	pthread_mutex_unlock(&b->lock);
	if (n > WARN_SHOWN)
		return;
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_warn("%s", msg);
	if (n == WARN_SHOWN)
		log_warn("broker: further warnings are only counted (the totals come at the end)");
}

void broker_report(struct broker *b, const char *host, const char *name, const char *where)
{
	pthread_mutex_lock(&b->lock);
	b->reports++;
	pthread_mutex_unlock(&b->lock);
	broker_warn(b, "possible exfiltration attempt: the placeholder of %s in %s of a request to %s "
	               "(sent unchanged, as the placeholder)", name, where, host);
}

void broker_withheld(struct broker *b, const char *name, const char *request)
{
	broker_warn(b, "%s withheld from %s (not in its rules)", name, request);
}

void broker_count(struct broker *b, struct broker_host *h, unsigned long n)
{
	pthread_mutex_lock(&b->lock);
	h->carried += n;
	pthread_mutex_unlock(&b->lock);
}

void broker_guessed(struct broker *b, const char *host, size_t i)
{
	if (i >= b->n_sec)
		return;
	pthread_mutex_lock(&b->lock);
	bool first = !b->sec[i].guessed;
	b->sec[i].guessed = true;
	/* and every connection open now ends: one made before, its request not
	 * yet sent, could carry the value once more, and each could answer one
	 * more guess (a right one held through a pause, a wrong one cut at once) */
	for (int k = 0; first && k < BROKER_MAX_CONNS; k++)
		for (int side = 0; side < 2; side++)
			if (b->conns[k][side] >= 0)
				shutdown(b->conns[k][side], SHUT_RDWR);
	pthread_mutex_unlock(&b->lock);
	/* shown whatever the count of warnings: the run's access ends here */
	if (first)
		log_warn("broker: an answer from %s began %s's real value and then was not it (a "
		         "guess at %s the agent had echoed?): every brokered connection cut, and %s "
		         "is brokered no more in this run", host, b->sec[i].name, b->sec[i].name,
		         b->sec[i].name);
}

bool broker_host_guessed(struct broker *b, const char *host)
{
	bool g = false;
	pthread_mutex_lock(&b->lock);
	for (size_t i = 0; i < b->n_sec && !g; i++)
		g = b->sec[i].guessed && strv_contains(&b->sec[i].hosts, host);
	pthread_mutex_unlock(&b->lock);
	return g;
}

void broker_summary(const struct broker *b, bool quiet)
{
	for (size_t i = 0; i < b->n_host && !quiet; i++)
		if (b->host[i].carried)
			log_info("%lu request%s to %s carried your key", b->host[i].carried,
			         b->host[i].carried == 1 ? "" : "s", b->host[i].name);
	if (b->reports)
		log_warn("%lu possible exfiltration attempt%s: a placeholder outside its credential "
		         "header (reported above)", b->reports, b->reports == 1 ? "" : "s");
	if (b->warnings > WARN_SHOWN)
		log_warn("broker: %lu warnings in all, %lu of them not shown", b->warnings,
		         b->warnings - WARN_SHOWN);
}

void broker_free(struct broker *b)
{
	if (!b)
		return;
	brokertls_free(b);
	for (size_t i = 0; i < b->n_sec; i++) {
		free(b->sec[i].name);
		strv_free(&b->sec[i].hosts);
		strv_free(&b->sec[i].headers);
		strv_free(&b->sec[i].rules);
		explicit_bzero(b->sec[i].placeholder, sizeof(b->sec[i].placeholder));
	}
	for (size_t i = 0; i < b->n_host; i++)
		free(b->host[i].name);
	if (b->vault) {
		explicit_bzero(b->vault, b->vault_len);
		munmap(b->vault, b->vault_len);
	}
	free(b->ca_pem);
	free(b->bundle_pem);
	pthread_mutex_destroy(&b->lock);
	pthread_cond_destroy(&b->idle);
	free(b);
}
