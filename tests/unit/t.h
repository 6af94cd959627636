/* t.h — a tiny unit-test harness: T(name) { CHECK(...); } and a main that runs
 * them all and ends with "N passed, N failed, N skipped".  A test whose premise
 * is the host's (an ABI, a kernel feature) checks it with a positive control
 * and, when the host lacks it, leaves with T_SKIP("why"): counted and printed,
 * never a pass. */
#ifndef JAIL_T_H
#define JAIL_T_H
#include <stdio.h>
#include <string.h>

struct t_case {
	const char *name;
	void (*fn)(void);
	struct t_case *next;
};
void t_register(struct t_case *c);
/* mkdir -p ROOT/REL (0755) for a test's tree; a failure is printed. */
void t_mkdir_under(const char *root, const char *rel);
/* An empty file root/rel (its directory exists); a failure fails the test. */
void t_touch_under(const char *root, const char *rel);
extern int t_failed_checks;
extern const char *t_skip_reason;

#define T(name)                                                                            \
	static void t_##name(void);                                                         \
	static struct t_case t_case_##name = {#name, t_##name, NULL};                       \
	__attribute__((constructor)) static void t_reg_##name(void)                         \
	{                                                                                   \
		t_register(&t_case_##name);                                                 \
	}                                                                                   \
	static void t_##name(void)

/* T_SKIP(reason): end this test as skipped (a check failed before still fails it). */
#define T_SKIP(reason)                                                                     \
	do {                                                                                \
		t_skip_reason = (reason);                                                   \
		return;                                                                     \
	} while (0)

#define CHECK(cond)                                                                        \
	do {                                                                                \
		if (!(cond)) {                                                              \
			fprintf(stderr, "  %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
			t_failed_checks++;                                                  \
		}                                                                           \
	} while (0)

#define CHECK_STR(a, b)                                                                    \
	do {                                                                                \
		const char *a_ = (a), *b_ = (b);                                            \
		if (!a_ || !b_ || strcmp(a_, b_) != 0) {                                    \
			fprintf(stderr, "  %s:%d: \"%s\" != \"%s\"\n", __FILE__, __LINE__,   \
			        a_ ? a_ : "(null)", b_ ? b_ : "(null)");                    \
			t_failed_checks++;                                                  \
		}                                                                           \
	} while (0)

#define CHECK_INT(a, b)                                                                    \
	do {                                                                                \
		long long a_ = (long long)(a), b_ = (long long)(b);                         \
		if (a_ != b_) {                                                             \
			fprintf(stderr, "  %s:%d: %s == %lld, expected %lld\n", __FILE__,    \
			        __LINE__, #a, a_, b_);                                      \
			t_failed_checks++;                                                  \
		}                                                                           \
	} while (0)
#endif
