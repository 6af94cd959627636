/* log.c — user-facing messages.  Lines are written with one write(2) so that
 * messages from the supervisor and init never interleave mid-line. */
#include "log.h"

#include "hints.h"

#include <stdarg.h>
#include <string.h>

static bool quiet;
static bool progress_shown;  /* a progress line is on the terminal now */

void log_set_quiet(bool q) { quiet = q; }

/* The line as written: each name in it was escaped where it was put in, and
 * this is the one place every line passes, so a control byte that came in
 * by any other way (a path, a host's or a program's words) is escaped here
 * too: jail's own lines never drive the terminal.  No allocation: init's
 * vfork child logs. */
static void vlog(const char *prefix, const char *fmt, va_list ap)
{
	char line[2048], out[4 * sizeof(line) + 2];
	int n = snprintf(line, sizeof(line), "jail: %s", prefix);
	int m = vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
	if (len > sizeof(line) - 1)
		len = sizeof(line) - 1;
	len = escape_controls(line, len, out, sizeof(out) - 2);
	/* The terminal may be in raw mode while the pty relay runs. */
	if (isatty(STDERR_FILENO))
		out[len++] = '\r';
	out[len++] = '\n';
	log_progress_end();
	if (write_all(STDERR_FILENO, out, len) < 0) {
		/* nowhere left to report it */
	}
}

void log_progress(const char *what, size_t done, size_t total)
{
	static double last;
	static int tty = -1;  /* asked once: an export calls this for every file */
	if (quiet || total < LOG_PROGRESS_MIN)
		return;
	/* the first and the last count always show: a phase is seen to end */
	double now = mono_ms();
	if (done != 0 && done != total && now - last < 250)
		return;
	if (tty < 0)
		tty = isatty(STDERR_FILENO);
	if (!tty)
		return;
	last = now;
	char line[256];
	int n = snprintf(line, sizeof(line), "\r\033[Kjail: %s %s/%s files", what,
	                 thousands(done).s, thousands(total).s);
	if (n > 0 && write_all(STDERR_FILENO, line, (size_t)n < sizeof(line) ? (size_t)n
	                                                                    : sizeof(line) - 1) == 0)
		progress_shown = true;
}

void log_progress_end(void)
{
	if (!progress_shown)
		return;
	progress_shown = false;
	if (write_all(STDERR_FILENO, "\r\033[K", 4) < 0) {
		/* the terminal went away: nothing left to clear */
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
	double now = mono_ms();
	if (t0 == 0)
		t0 = now;
	char prefix[48];
	snprintf(prefix, sizeof(prefix), "debug %7.2fms [%d]: ", now - t0, (int)getpid());
	va_list ap;
	va_start(ap, fmt);
	vlog(prefix, fmt, ap);
	va_end(ap);
}
