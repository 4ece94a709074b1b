/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmemramctl reconcile: through pmemramd, or --local. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "ctl.h"
#include "macro.h"
#include "pmemram-apply.h"
#include "pmemram-protocol.h"
#include "pmemram-reconcile.h"

/* Human output of a reconcile reply (or of a local result converted to JSON). */
void ctl_print_reconcile_json(struct json_object *o)
{
	struct json_object *results, *plan, *devices, *v;
	size_t n;

	if (json_object_object_get_ex(o, "results", &results)) {
		n = json_object_array_length(results);
		if (n == 0)
			printf("Nothing to do.\n");
		for (size_t i = 0; i < n; i++) {
			struct json_object *r = json_object_array_get_idx(results, i), *st, *re;

			if (json_object_object_get_ex(r, "status", &st) && json_object_object_get_ex(r, "reason", &re))
				printf("  %-8s %s\n", json_object_get_string(st), json_object_get_string(re));
		}
	}
	if (json_object_object_get_ex(o, "plan", &plan) && json_object_object_get_ex(plan, "devices", &devices)) {
		n = json_object_array_length(devices);
		printf("%sDevices:\n", n ? "\n" : "");
		for (size_t i = 0; i < n; i++) {
			struct json_object *d = json_object_array_get_idx(devices, i), *dev, *verdict, *text;

			if (json_object_object_get_ex(d, "device", &dev) && json_object_object_get_ex(d, "verdict", &verdict) &&
			    json_object_object_get_ex(d, "text", &text))
				printf("  %-14s %-10s %s\n", json_object_get_string(dev), json_object_get_string(verdict),
				       json_object_get_string(text));
		}
	}
	if (json_object_object_get_ex(o, "error", &v))
		printf("\n%s\n", json_object_get_string(v));
}

/* ---- reconcile ------------------------------------------------------------------------------ */

static int reconcile_local(const char *dir, bool json)
{
	_cleanup_(pmemram_ctx_unrefp) struct pmemram_ctx *ctx = NULL;
	_cleanup_(pmemram_config_freep) struct pmemram_config *config = NULL;
	_cleanup_(pmemram_reconcile_result_freep) struct pmemram_reconcile_result *res = NULL;
	_cleanup_(ctl_held_done) struct ctl_held held = {};
	struct json_object *o = NULL;
	struct pmemram_reconcile_options opts = {};
	struct pmemram_apply_options apply = {};
	char record[PATH_MAX], onlined_dir[PATH_MAX];
	_cleanup_(closep) int lock = -1;
	bool configured;
	int r;

	r = ctl_load_config(dir, false, &config, &configured);
	if (r != CTL_EXIT_OK)
		return r;
	/* Never beside pmemramd, nor pmemramd beside this: each would undo the other's bind. */
	lock = ctl_lock_runtime();
	if (lock < 0)
		return -lock;
	if (ctl_ctx_new(&ctx) < 0)
		return CTL_EXIT_SYSTEM;
	ctl_held_read(ctx, &held);
	opts.held = (const char *const *)held.names;
	opts.n_held = held.n;
	/* The record of auto_online_blocks beside pmemramd's: both lock it during a bind. */
	if (config->online_at_bind && ctl_runtime_path(NULL, record, sizeof(record)) >= 0 &&
	    (mkdir(record, 0755) >= 0 || errno == EEXIST) &&
	    ctl_runtime_path(PMEMRAM_AUTO_ONLINE_NAME, record, sizeof(record)) >= 0)
		apply.auto_online_record = record;
	/* Its binds are pmemram's too, for status; its CXL region creations are recorded as pmemramd's. */
	if (ctl_runtime_path(NULL, onlined_dir, sizeof(onlined_dir)) >= 0 && access(onlined_dir, W_OK) >= 0)
		apply.onlined_dir = apply.cxl_record_dir = onlined_dir;
	opts.apply = &apply;
	r = pmemram_reconcile(ctx, config, &opts, &res);
	if (!res)
		return ctl_read_failed(ctx, "the system state", r);
	if (pmemram_reconcile_to_json(res, &o) < 0 ||
	    json_object_object_add(o, "ok", json_object_new_boolean(r == 0)) < 0) {
		json_object_put(o);
		return CTL_EXIT_SYSTEM;
	}
	return ctl_finish_reply(o, json, ctl_print_reconcile_json);
}

int cmd_reconcile(const struct ctl_globals *g, int argc, char **argv)
{
	static const struct option options[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "json", no_argument, NULL, 'j' },
		{ "local", no_argument, NULL, 'l' },
		{ "config", required_argument, NULL, 'c' },
		{},
	};
	struct json_object *reply = NULL;
	const char *dir = ctl_config_dir();
	bool json = g->json, local = false;
	int c, r;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "hjlc:", options, NULL)) >= 0) {
		switch (c) {
		case 'h':
			printf("Usage: %s reconcile [--json] [--local [--config DIR]]\n"
			       "\n"
			       "Bring the system to the configured state now, and show what was done and\n"
			       "each device's verdict.  Asks pmemramd; --local does the work in this process\n"
			       "instead (for when pmemramd is not running).  Needs root.\n",
			       program_invocation_short_name);
			return CTL_EXIT_OK;
		case 'j':
			json = true;
			break;
		case 'l':
			local = true;
			break;
		case 'c':
			dir = optarg;
			break;
		default:
			return ctl_unknown_option("reconcile", argv);
		}
	}
	if (optind < argc)
		return ctl_usage_error("reconcile", "unexpected argument '%s'", argv[optind]);
	if (local)
		return reconcile_local(dir, json);

	r = ctl_daemon_simple("reconcile", NULL, CTL_CHANGE_TIMEOUT_S, &reply);
	if (!reply)
		return ctl_call_failed("reconcile", r);
	return ctl_finish_reply(reply, json, ctl_print_reconcile_json);
}
