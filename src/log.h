/* log.h — what jail says to the user: one line each, prefixed "jail: ". */
#ifndef JAIL_LOG_H
#define JAIL_LOG_H
#include "util.h"

void log_set_quiet(bool quiet);
/* An error line (always shown). */
void log_error(const char *fmt, ...) PRINTF(1, 2);
/* A warning: something was skipped or degraded; the run goes on. */
void log_warn(const char *fmt, ...) PRINTF(1, 2);
/* Information, suppressed by --quiet. */
void log_info(const char *fmt, ...) PRINTF(1, 2);
/* A progress line for work over many files, on a terminal only: "jail: WHAT
 * 12,345/100,000 files", rewritten in place ('\r') at most four times a second.
 * Nothing when stderr is not a terminal, with --quiet, or for fewer than
 * LOG_PROGRESS_MIN files (over before it could be read).  The next line logged,
 * or log_progress_end(), clears it. */
#define LOG_PROGRESS_MIN 1000
void log_progress(const char *what, size_t done, size_t total);
void log_progress_end(void);
/* Debug output when JAIL_DEBUG is set in the host environment. */
void log_debug(const char *fmt, ...) PRINTF(1, 2);
#endif
