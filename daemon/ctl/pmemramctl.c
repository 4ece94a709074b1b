/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmemramctl: entry point, global options, subcommand dispatch and shared diagnostics. */
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <syslog.h>

#include <json-c/json.h>

#include "ctl.h"
#include "macro.h"
#include "pmemram-config.h"

static const struct {
	const char *name;
	ctl_command_fn fn;
	const char *summary;
} commands[] = {
	{ "status", cmd_status, "Show NUMA nodes, memory-side caches, dax devices, memory blocks, shuffling" },
	{ "plan", cmd_plan, "Show what reconcile would do under the configuration, changing nothing" },
	{ "doctor", cmd_doctor, "Check the machine for known traps: findings, their reasons and fixes" },
	{ "reconcile", cmd_reconcile, "Bring the system to the configured state now (through pmemramd)" },
	{ "release", cmd_release, "Give a dax device's memory back and hold it until reclaim" },
	{ "reclaim", cmd_reclaim, "Drop the hold of a released device and reconcile" },
	{ "udev-online", cmd_udev_online, "Online one hot-added memory block if a claim covers it (for udev)" },
	{ "claim", cmd_claim, "Write (or replace) pmemramctl's drop-in for a claim, then reload pmemramd" },
	{ "unclaim", cmd_unclaim, "Remove pmemramctl's drop-in for a claim (memory stays RAM: see release)" },
	{ "shuffle", cmd_shuffle, "Show the page shuffling policy; 'shuffle apply' writes it to the boot loader" },
	{ "hotplug", cmd_hotplug, "Show what the kernel does with added memory; 'hotplug apply' writes the policy" },
	{ "classes", cmd_classes, "List tiering classes: their nodes now, slices, units and processes" },
	{ "run", cmd_run, "Run a command under a tiering class's memory policy" },
	{ "cache-report", cmd_cache_report, "Model processes' pages in the direct-mapped memory-side caches" },
};

static void help(FILE *f)
{
	fprintf(f,
		"Usage: %s [OPTIONS] COMMAND [ARGS...]\n"
		"\n"
		"Inspect and manage persistent memory used as RAM.\n"
		"\n"
		"Options:\n"
		"  -h --help       Show this help\n"
		"  -V --version    Show the version\n"
		"  -j --json       Print machine-readable JSON\n"
		"\n"
		"Commands:\n",
		program_invocation_short_name);
	for (size_t i = 0; i < ELEMENTSOF(commands); i++)
		fprintf(f, "  %-14s  %s\n", commands[i].name, commands[i].summary);
	fprintf(f,
		"\n"
		"Environment:\n"
		"  PMEMRAM_SYSFS_ROOT  read sysfs from this directory instead of /sys\n"
		"  PMEMRAM_PROCFS_ROOT read procfs from this directory instead of /proc\n"
		"  PMEMRAM_UDEV_ROOT   look for etc/udev/rules.d and friends below this directory, not /\n"
		"  PMEMRAM_CONFIG_DIR  configuration directory instead of /etc/pmemram\n"
		"  PMEMRAM_SOCKET      pmemramd's control socket instead of /run/pmemram/pmemramd.sock\n"
		"  PMEMRAM_BOOT_ROOT   look for etc/kernel/cmdline and etc/default/grub below this directory\n"
		"  PMEMRAM_LOG         library log level: err, info or debug\n"
		"\n"
		"See pmemramctl(8).\n");
}

_printf_(6, 0) static void log_to_stderr(struct pmemram_ctx *ctx, int priority, const char *file,
					 int line, const char *fn, const char *format, va_list args)
{
	fprintf(stderr, "%s: %s:%d %s(): ", program_invocation_short_name, file, line, fn);
	vfprintf(stderr, format, args);
	fputc('\n', stderr);
}

int ctl_ctx_new(struct pmemram_ctx **ret_ctx)
{
	struct pmemram_ctx *ctx;
	const char *root;
	int r;

	r = pmemram_ctx_new(&ctx);
	if (r < 0) {
		root = secure_getenv("PMEMRAM_SYSFS_ROOT");
		fprintf(stderr, "%s: cannot open sysfs root %s: %s\n", program_invocation_short_name,
			root && *root ? root : "/sys", strerror(-r));
		return r;
	}

	pmemram_ctx_set_log_fn(ctx, log_to_stderr);
	*ret_ctx = ctx;
	return 0;
}

int ctl_read_failed(struct pmemram_ctx *ctx, const char *what, int r)
{
	const char *path = pmemram_ctx_get_error_path(ctx);

	if (path)
		fprintf(stderr, "%s: cannot read %s: %s\n", program_invocation_short_name, path,
			strerror(r < 0 ? -r : r));
	else
		fprintf(stderr, "%s: cannot read %s: %s\n", program_invocation_short_name, what,
			strerror(r < 0 ? -r : r));
	return CTL_EXIT_SYSTEM;
}

int ctl_usage_error(const char *command, const char *format, ...)
{
	va_list args;

	fprintf(stderr, "%s%s%s: ", program_invocation_short_name, command ? " " : "", command ? command : "");
	va_start(args, format);
	vfprintf(stderr, format, args);
	va_end(args);
	fprintf(stderr, "\nTry '%s --help' for more information.\n", program_invocation_short_name);
	return CTL_EXIT_USAGE;
}

int ctl_unknown_option(const char *command, char **argv)
{
	if (optopt)
		return ctl_usage_error(command, "invalid option -- '%c'", optopt);
	return ctl_usage_error(command, "unrecognized option '%s'", argv[optind - 1]);
}

int ctl_print_json(struct json_object *root, bool complete)
{
	const char *text = NULL;

	if (complete)
		text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	if (text)
		printf("%s\n", text);
	json_object_put(root);
	return text ? 0 : -ENOMEM;
}

const char *ctl_config_dir(void)
{
	const char *dir = secure_getenv(PMEMRAM_CONFIG_DIR_ENV);

	return dir && *dir ? dir : PMEMRAM_CONFIG_DIR_DEFAULT;
}

const char *ctl_daxctl_dir(void)
{
	const char *dir = secure_getenv(PMEMRAM_DAXCTL_CONFIG_DIR_ENV);

	return dir && *dir ? dir : PMEMRAM_DAXCTL_CONFIG_DIR_DEFAULT;
}

int ctl_load_daxctl(struct pmemram_config *c, bool quiet)
{
	struct pmemram_config_errors warnings = {};
	const char *dir = ctl_daxctl_dir();
	_cleanup_(closep) int fd = -1;
	int r = 0;

	if (!c->daxctl_conf)
		return 0;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 && errno != ENOENT)
		pmemram_config_errors_add(&warnings, dir, 0, "cannot open: %m");
	if (fd >= 0)
		r = pmemram_daxctl_load(c, fd, dir, &warnings);
	if (r < 0 || quiet)
		return r;
	for (size_t i = 0; i < warnings.n; i++)
		fprintf(stderr, "%s: warning: %s\n", program_invocation_short_name, warnings.msg[i]);
	if (warnings.n_dropped > 0)
		fprintf(stderr, "%s: warning: ... and %zu more on %s\n", program_invocation_short_name,
			warnings.n_dropped, dir);
	for (size_t i = 0; i < c->n_daxctl; i++) {
		char origin[PATH_MAX + 16];

		if (c->daxctl[i].state != PMEMRAM_DAXCTL_CONFLICT)
			continue;
		pmemram_config_origin_to_string(c, c->daxctl[i].defined, origin, sizeof(origin));
		fprintf(stderr, "%s: warning: %s: section '%s' conflicts: %s\n", program_invocation_short_name, origin,
			c->daxctl[i].name, c->daxctl[i].text);
	}
	return 0;
}

void ctl_print_daxctl(const char *dir, struct json_object *sections)
{
	size_t n = sections ? json_object_array_length(sections) : 0;

	if (n == 0)
		return;
	printf("\nSections of %s:\n", dir);
	for (size_t i = 0; i < n; i++) {
		struct json_object *s = json_object_array_get_idx(sections, i);
		const char *state = json_object_get_string(json_object_object_get(s, "state"));
		const char *claim = json_object_get_string(json_object_object_get(s, "claim"));
		const char *text = json_object_get_string(json_object_object_get(s, "text"));

		printf("  %s: [reconfigure-device %s] %s", json_object_get_string(json_object_object_get(s, "origin")),
		       json_object_get_string(json_object_object_get(s, "section")), state ? state : "?");
		if (state && streq(state, "claimed"))
			printf(" as '%s'\n", claim ? claim : "?");
		else
			printf(": %s\n", text ? text : "");
	}
}

void ctl_print_config_errors(const char *dir, const struct pmemram_config_errors *errors, int r)
{
	for (size_t i = 0; i < errors->n; i++)
		fprintf(stderr, "%s/%s\n", dir, errors->msg[i]);
	if (errors->n_dropped > 0)
		fprintf(stderr, "%s: ... and %zu more errors\n", program_invocation_short_name, errors->n_dropped);
	if (errors->n == 0)
		fprintf(stderr, "%s: cannot load the configuration in %s: %s\n", program_invocation_short_name, dir,
			strerror(-r));
}

int ctl_load_config(const char *dir, bool quiet, struct pmemram_config **ret, bool *ret_configured)
{
	struct pmemram_config_errors errors = {};
	_cleanup_(closep) int fd = -1;
	int r;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 && errno != ENOENT) {
		fprintf(stderr, "%s: cannot open %s: %m\n", program_invocation_short_name, dir);
		return CTL_EXIT_CONFIG;
	}

	r = fd < 0 ? -ENOENT : pmemram_config_load(fd, ret, &errors);
	if (r == -ENOENT) {
		*ret_configured = false;
		r = pmemram_config_new(ret);
	} else if (r < 0) {
		ctl_print_config_errors(dir, &errors, r);
		return CTL_EXIT_CONFIG;
	} else
		*ret_configured = true;
	if (r >= 0)
		r = ctl_load_daxctl(*ret, quiet);
	if (r < 0) {
		fprintf(stderr, "%s: %s\n", program_invocation_short_name, strerror(-r));
		*ret = pmemram_config_free(*ret);
		return CTL_EXIT_SYSTEM;
	}
	if (!*ret_configured && (*ret)->n_claims > 0)
		*ret_configured = true;
	else if (!*ret_configured && !quiet)
		fprintf(stderr, "%s: no configuration in %s: nothing is claimed\n", program_invocation_short_name, dir);
	return CTL_EXIT_OK;
}

int ctl_flush_stdout(void)
{
	if (fflush(stdout) != 0) {
		fprintf(stderr, "%s: cannot write output: %m\n", program_invocation_short_name);
		return CTL_EXIT_SYSTEM;
	}
	return CTL_EXIT_OK;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "json", no_argument, NULL, 'j' },
		{},
	};
	struct ctl_globals g = {};
	int c;

	/* "+": stop at the command name, its options are its own. */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+hVj", options, NULL)) >= 0) {
		switch (c) {
		case 'h':
			help(stdout);
			return CTL_EXIT_OK;
		case 'V':
			printf("%s %s\n", program_invocation_short_name, PACKAGE_VERSION);
			return CTL_EXIT_OK;
		case 'j':
			g.json = true;
			break;
		default:
			return ctl_unknown_option(NULL, argv);
		}
	}

	if (optind >= argc)
		return ctl_usage_error(NULL, "missing command");

	if (streq(argv[optind], "help")) {
		help(stdout);
		return CTL_EXIT_OK;
	}

	for (size_t i = 0; i < ELEMENTSOF(commands); i++)
		if (streq(argv[optind], commands[i].name)) {
			int first = optind;

			/* Subcommands run getopt afresh over their own arguments. */
			optind = 0;
			return commands[i].fn(&g, argc - first, argv + first);
		}

	return ctl_usage_error(NULL, "unknown command '%s'", argv[optind]);
}
