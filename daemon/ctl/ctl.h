/* Shared declarations of the pmemramctl subcommands: exit codes, global options, helpers. */
#pragma once

#include <stdbool.h>

#include "pmemram.h"

#define CTL_EXIT_OK 0
#define CTL_EXIT_USAGE 1
#define CTL_EXIT_SYSTEM 2
#define CTL_EXIT_CONFIG 3 /* configuration malformed or unreadable */

struct ctl_globals {
	bool json;
};

/* A subcommand: argv[0] is its name; returns a CTL_EXIT_* code. */
typedef int (*ctl_command_fn)(const struct ctl_globals *g, int argc, char **argv);

int cmd_status(const struct ctl_globals *g, int argc, char **argv);
int cmd_plan(const struct ctl_globals *g, int argc, char **argv);

/* Open the library context (sysfs root from $PMEMRAM_SYSFS_ROOT); diagnostics on stderr. */
int ctl_ctx_new(struct pmemram_ctx **ret_ctx);
/* Report a failed read naming the file at fault; returns CTL_EXIT_SYSTEM. */
int ctl_read_failed(struct pmemram_ctx *ctx, const char *what, int r);
/* Report a usage error ("pmemramctl status: ..."); returns CTL_EXIT_USAGE. */
int ctl_usage_error(const char *command, const char *format, ...) __attribute__((format(printf, 2, 3)));
/* After getopt returned '?': name the offending option; returns CTL_EXIT_USAGE. */
int ctl_unknown_option(const char *command, char **argv);
/* Flush stdout at the end of a command: CTL_EXIT_OK, or CTL_EXIT_SYSTEM with a message. */
int ctl_flush_stdout(void);
/* Print root as pretty JSON when complete (every value was added) and drop it either way;
 * 0, or -ENOMEM when it was not printed. */
struct json_object;
int ctl_print_json(struct json_object *root, bool complete);
