/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmemramd logging: the journal with structured fields under systemd, stderr otherwise. */
#include <stdarg.h>
#include <stdio.h>
#include <sys/uio.h>
#include <syslog.h>

#define SD_JOURNAL_SUPPRESS_LOCATION
#include <systemd/sd-journal.h>

#include "macro.h"
#include "manager.h"
#include "messages.h"

void manager_log_init(struct manager *m)
{
	const char *target = secure_getenv("PMEMRAM_LOG_TARGET");

	/* systemd connects stderr to the journal and says so in $JOURNAL_STREAM. */
	if (target && streq(target, "journal"))
		m->journal = true;
	else if (target && streq(target, "stderr"))
		m->journal = false;
	else
		m->journal = secure_getenv("JOURNAL_STREAM") != NULL;
}

static const char *priority_prefix(int priority)
{
	switch (priority) {
	case LOG_EMERG:
	case LOG_ALERT:
	case LOG_CRIT:
	case LOG_ERR:
		return "error: ";
	case LOG_WARNING:
		return "warning: ";
	default:
		return "";
	}
}

/* message_id: NULL for none (information and debug lines). */
static void log_message(struct manager *m, int priority, const char *message_id, const char *const *fields,
			const char *msg)
{
	char message[1200], prio[16], id[48];
	_cleanup_(freep) struct iovec *iov = NULL;
	size_t n = 0, n_fields = 0;

	while (fields && fields[n_fields])
		n_fields++;
	/* The line alone when there is no room for its fields. */
	if (m->journal && !(iov = calloc(n_fields + 4, sizeof(*iov))) && n_fields > 0)
		n_fields = 0, iov = calloc(4, sizeof(*iov));
	if (!m->journal || !iov) {
		fprintf(stderr, "pmemramd: %s%s\n", priority_prefix(priority), msg);
		return;
	}
	(void)snprintf(message, sizeof(message), "MESSAGE=%s", msg);
	(void)snprintf(prio, sizeof(prio), "PRIORITY=%d", priority);
	iov[n++] = (struct iovec){ .iov_base = message, .iov_len = strlen(message) };
	iov[n++] = (struct iovec){ .iov_base = prio, .iov_len = strlen(prio) };
	iov[n++] = (struct iovec){ .iov_base = (char *)"SYSLOG_IDENTIFIER=pmemramd", .iov_len = 26 };
	if (message_id) {
		(void)snprintf(id, sizeof(id), "MESSAGE_ID=%s", message_id);
		iov[n++] = (struct iovec){ .iov_base = id, .iov_len = strlen(id) };
	}
	for (size_t i = 0; i < n_fields; i++)
		iov[n++] = (struct iovec){ .iov_base = (char *)fields[i], .iov_len = strlen(fields[i]) };
	if (sd_journal_sendv(iov, (int)n) < 0)
		fprintf(stderr, "pmemramd: %s%s\n", priority_prefix(priority), msg);
}

void manager_log(struct manager *m, int priority, const char *const *fields, const char *format, ...)
{
	char msg[1024];
	va_list args;

	/* The daemon's own debug lines only with PMEMRAM_LOG=debug, like the library's. */
	if (priority >= LOG_DEBUG && (!m->ctx || pmemram_ctx_get_log_priority(m->ctx) < LOG_DEBUG))
		return;
	va_start(args, format);
	(void)vsnprintf(msg, sizeof(msg), format, args);
	va_end(args);
	log_message(m, priority, NULL, fields, msg);
}

static void log_event(struct manager *m, enum manager_event e, const char *const *fields, const char *format,
		      va_list args) __attribute__((format(printf, 4, 0)));
static void log_event(struct manager *m, enum manager_event e, const char *const *fields, const char *format,
		      va_list args)
{
	char msg[1024];

	(void)vsnprintf(msg, sizeof(msg), format, args);
	log_message(m, manager_events[e].priority, manager_events[e].id, fields, msg);
}

void manager_event(struct manager *m, enum manager_event e, const char *const *fields, const char *format, ...)
{
	va_list args;

	va_start(args, format);
	log_event(m, e, fields, format, args);
	va_end(args);
}

void manager_device_event(struct manager *m, enum manager_event e, const char *device, const char *format, ...)
{
	char field[64];
	const char *fields[] = { field, NULL };
	va_list args;

	(void)snprintf(field, sizeof(field), "PMEMRAM_DEVICE=%s", device);
	va_start(args, format);
	log_event(m, e, fields, format, args);
	va_end(args);
}

void manager_log_library(struct pmemram_ctx *ctx, int priority, const char *file, int line, const char *fn,
			 const char *format, va_list args)
{
	struct manager *m = pmemram_ctx_get_userdata(ctx);
	char msg[1024], code_file[320], code_line[32], code_func[160];
	const char *fields[] = { code_file, code_line, code_func, NULL };

	(void)vsnprintf(msg, sizeof(msg), format, args);
	(void)snprintf(code_file, sizeof(code_file), "CODE_FILE=%s", file);
	(void)snprintf(code_line, sizeof(code_line), "CODE_LINE=%d", line);
	(void)snprintf(code_func, sizeof(code_func), "CODE_FUNC=%s", fn);
	/* The library's warnings and errors (it cannot load libdaxctl, say) have one id of their own;
	 * the step that needed it fails and is logged as its own event too. */
	if (m)
		log_message(m, priority, priority <= LOG_NOTICE ? manager_events[MANAGER_EVENT_LIBRARY_ERROR].id : NULL,
			    fields, msg);
}
