/* log.c — user-facing messages.  Lines are written with one write(2) so that
 * messages from the supervisor and init never interleave mid-line. */
#include "log.h"

#include <stdarg.h>
#include <string.h>
#include <time.h>

static bool quiet;

void log_set_quiet(bool q) { quiet = q; }

static void vlog(const char *prefix, const char *fmt, va_list ap)
{
	char line[2048];
	int n = snprintf(line, sizeof(line), "jail: %s", prefix);
	int m = vsnprintf(line + n, sizeof(line) - (size_t)n - 2, fmt, ap);
	size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
	if (len > sizeof(line) - 2)
		len = sizeof(line) - 2;
	/* The terminal may be in raw mode while the pty relay runs. */
	line[len++] = '\r';
	line[len++] = '\n';
	if (!isatty(STDERR_FILENO)) {
		line[len - 2] = '\n';
		len--;
	}
	if (write_all(STDERR_FILENO, line, len) < 0) {
		/* nowhere left to report it */
	}
}

#define LOGFN(name, prefix, cond)                                                          \
	void name(const char *fmt, ...)                                                     \
	{                                                                                   \
		if (!(cond))                                                                \
			return;                                                             \
		va_list ap;                                                                 \
		va_start(ap, fmt);                                                          \
		vlog(prefix, fmt, ap);                                                      \
		va_end(ap);                                                                 \
	}

LOGFN(log_error, "", true)
LOGFN(log_warn, "warning: ", true)
LOGFN(log_info, "", !quiet)
/* Debug lines carry the milliseconds since the supervisor started, so
 * JAIL_DEBUG=1 shows where start-up time goes. */
void log_debug(const char *fmt, ...)
{
	static double t0;
	if (!getenv("JAIL_DEBUG"))
		return;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	double now = (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
	if (t0 == 0)
		t0 = now;
	char prefix[48];
	snprintf(prefix, sizeof(prefix), "debug %7.2fms [%d]: ", now - t0, (int)getpid());
	va_list ap;
	va_start(ap, fmt);
	vlog(prefix, fmt, ap);
	va_end(ap);
}
