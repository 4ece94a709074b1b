/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmemramctl release and reclaim: through pmemramd, or release --local. */
#include <getopt.h>

#include <json-c/json.h>

#include "ctl.h"
#include "macro.h"
#include "pmemram-protocol.h"
#include "pmemram-release.h"

/* ---- release and reclaim ----------------------------------------------------------------------- */

static void print_release_json(struct json_object *o)
{
	struct json_object *blocks, *v;
	size_t n;

	if (json_object_object_get_ex(o, "reason", &v))
		printf("%s\n", json_object_get_string(v));
	if (!json_object_object_get_ex(o, "blocks", &blocks))
		return;
	n = json_object_array_length(blocks);
	for (size_t i = 0; i < n; i++) {
		struct json_object *b = json_object_array_get_idx(blocks, i), *st, *re;

		if (json_object_object_get_ex(b, "status", &st) && json_object_object_get_ex(b, "reason", &re))
			printf("  %-14s %s\n", json_object_get_string(st), json_object_get_string(re));
	}
}

static int release_local(const char *device, bool json, bool dry_run)
{
	_cleanup_(pmemram_ctx_unrefp) struct pmemram_ctx *ctx = NULL;
	_cleanup_(pmemram_release_report_freep) struct pmemram_release_report *report = NULL;
	const struct pmemram_apply_options opts = { .dry_run = dry_run };
	struct json_object *o = NULL;
	int r;

	if (ctl_ctx_new(&ctx) < 0)
		return CTL_EXIT_SYSTEM;
	r = pmemram_release(ctx, device, &opts, &report);
	if (!report) {
		fprintf(stderr, "%s release: %s: %s\n", program_invocation_short_name, device, strerror(-r));
		return CTL_EXIT_SYSTEM;
	}
	if (json) {
		if (pmemram_release_report_to_json(report, &o) < 0 ||
		    json_object_object_add(o, "ok", json_object_new_boolean(r == 0)) < 0 ||
		    json_object_object_add(o, "held", json_object_new_boolean(false)) < 0) {
			json_object_put(o);
			return CTL_EXIT_SYSTEM;
		}
		if (ctl_print_json(o, true) < 0)
			return CTL_EXIT_SYSTEM;
	} else {
		(void)pmemram_release_report_print(report, stdout);
	}
	if (r == 0 && !dry_run)
		fprintf(stderr, "%s: pmemramd is not running, so %s is not held: while a claim matches it, a pmemramd "
				"started later takes it again (unclaim it to keep it)\n",
			program_invocation_short_name, device);
	if (ctl_flush_stdout() != CTL_EXIT_OK)
		return CTL_EXIT_SYSTEM;
	return r == 0 ? CTL_EXIT_OK : CTL_EXIT_FAILED;
}

static int device_command(const struct ctl_globals *g, int argc, char **argv, bool release)
{
	/* reclaim has no --dry-run: with it in reclaim's table, getopt_long() would accept it. */
	static const struct option options[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "json", no_argument, NULL, 'j' },
		{ "dry-run", no_argument, NULL, 'n' },
		{},
	};
	static const struct option reclaim_options[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "json", no_argument, NULL, 'j' },
		{},
	};
	const char *command = release ? "release" : "reclaim";
	struct ctl_progress progress;
	struct json_object *reply = NULL;
	bool json = g->json, dry_run = false;
	int c, r;

	opterr = 0;
	while ((c = getopt_long(argc, argv, release ? "hjn" : "hj", release ? options : reclaim_options, NULL)) >= 0) {
		switch (c) {
		case 'h':
			if (release)
				printf("Usage: %s release [--json] [--dry-run] DEVICE\n"
				       "\n"
				       "Give a dax device's memory back: offline its memory blocks (the kernel\n"
				       "migrates what is on them), unbind kmem and bind device_dax.  When a block\n"
				       "cannot be offlined, every block is put back as it was and each one that\n"
				       "failed is named with the reason.  pmemramd then holds the device (leaves it\n"
				       "alone) until 'reclaim'.  --dry-run shows what would be done.  Needs root.\n",
				       program_invocation_short_name);
			else
				printf("Usage: %s reclaim [--json] DEVICE\n"
				       "\n"
				       "Drop the hold a release left on DEVICE and reconcile: a claimed device is\n"
				       "taken into system RAM again.  Needs root and pmemramd.\n",
				       program_invocation_short_name);
			return CTL_EXIT_OK;
		case 'j':
			json = true;
			break;
		case 'n':
			dry_run = true;
			break;
		default:
			return ctl_unknown_option(command, argv);
		}
	}
	if (optind >= argc)
		return ctl_usage_error(command, "missing DEVICE (a dax device such as dax0.0)");
	if (optind + 1 < argc)
		return ctl_usage_error(command, "unexpected argument '%s'", argv[optind + 1]);
	if (!pmemram_dax_name_is_valid(argv[optind]))
		return ctl_usage_error(command, "'%s' is not a dax device name (daxX.Y)", argv[optind]);

	/* A dry run changes nothing, so pmemramd need not be asked (nor hold anything). */
	if (dry_run)
		return release_local(argv[optind], json, true);

	ctl_progress_start(&progress, json, command, argv[optind], !release);
	r = ctl_daemon_simple_ticking(command, argv[optind], CTL_CHANGE_TIMEOUT_S, ctl_progress_tick, &progress,
				      &reply);
	ctl_progress_end(&progress);
	if (!reply) {
		if (release && ctl_daemon_absent(r))
			return release_local(argv[optind], json, false);
		return ctl_call_failed(command, r);
	}
	return ctl_finish_reply(reply, json, release ? print_release_json : ctl_print_reconcile_json);
}

int cmd_release(const struct ctl_globals *g, int argc, char **argv)
{
	return device_command(g, argc, argv, true);
}

int cmd_reclaim(const struct ctl_globals *g, int argc, char **argv)
{
	return device_command(g, argc, argv, false);
}
