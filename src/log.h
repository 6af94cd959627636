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
/* Debug output when JAIL_DEBUG is set in the host environment. */
void log_debug(const char *fmt, ...) PRINTF(1, 2);
#endif
