/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmemramctl plan: what reconcile would do to the running system under the configuration, touching nothing. */
#include <getopt.h>
#include <json-c/json.h>

#include "ctl.h"
#include "json-util.h"
#include "macro.h"
#include "pmemram-observe.h"

#define PLAN_SCHEMA_VERSION 1

static int print_json(const struct pmemram_plan *plan, const char *dir, bool configured,
		      const struct pmemram_observation *o, const struct pmemram_config *config)
{
	struct json_object *root = NULL;
	int r;

	r = pmemram_plan_to_json(plan, &root);
	if (r < 0)
		return r;
	/* json-c takes the values; a failed add leaves root as it was. */
	return ctl_print_json(root,
			      json_object_object_add(root, "schema_version",
						     json_object_new_int(PLAN_SCHEMA_VERSION)) == 0 &&
				      json_object_object_add(root, "config_dir", json_object_new_string(dir)) == 0 &&
				      json_object_object_add(root, "configured", json_object_new_boolean(configured)) ==
					      0 &&
				      json_object_object_add(root, "unreadable_processes",
							     json_object_new_uint64(
								     o->observed.n_unreadable_processes)) == 0 &&
				      json_add(root, "daxctl_dir", json_object_new_string(ctl_daxctl_dir())) &&
				      json_add(root, "daxctl", pmemram_daxctl_to_json(config)));
}

static int print_human(const struct pmemram_plan *plan, const struct pmemram_config *config)
{
	struct json_object *daxctl;
	int r;

	r = pmemram_plan_print(plan, stdout);
	if (r < 0 || config->n_daxctl == 0)
		return r;
	daxctl = pmemram_daxctl_to_json(config);
	if (!daxctl)
		return -ENOMEM;
	ctl_print_daxctl(ctl_daxctl_dir(), daxctl);
	json_object_put(daxctl);
	return 0;
}

static void plan_help(void)
{
	printf("Usage: %s plan [--json] [--config DIR]\n"
	       "\n"
	       "Show what reconcile would do: the actions in order and, per device, whether it is\n"
	       "ignored, converged, pending or refused and why.  Changes nothing.\n"
	       "\n"
	       "  -h --help         Show this help\n"
	       "  -j --json         Print JSON (schema in pmemramctl(8))\n"
	       "  -c --config DIR   Configuration directory (default $PMEMRAM_CONFIG_DIR or " PMEMRAM_CONFIG_DIR_DEFAULT ")\n",
	       program_invocation_short_name);
}

int cmd_plan(const struct ctl_globals *g, int argc, char **argv)
{
	static const struct option options[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "json", no_argument, NULL, 'j' },
		{ "config", required_argument, NULL, 'c' },
		{},
	};
	_cleanup_(pmemram_ctx_unrefp) struct pmemram_ctx *ctx = NULL;
	_cleanup_(pmemram_config_freep) struct pmemram_config *config = NULL;
	_cleanup_(pmemram_observation_freep) struct pmemram_observation *o = NULL;
	_cleanup_(pmemram_plan_freep) struct pmemram_plan *plan = NULL;
	const char *dir = ctl_config_dir();
	bool json = g->json, configured = false;
	int c, r;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "hjc:", options, NULL)) >= 0) {
		switch (c) {
		case 'h':
			plan_help();
			return CTL_EXIT_OK;
		case 'j':
			json = true;
			break;
		case 'c':
			dir = optarg;
			break;
		default:
			return ctl_unknown_option("plan", argv);
		}
	}
	if (optind < argc)
		return ctl_usage_error("plan", "unexpected argument '%s'", argv[optind]);

	r = ctl_load_config(dir, false, &config, &configured);
	if (r != CTL_EXIT_OK)
		return r;

	r = ctl_ctx_new(&ctx);
	if (r < 0)
		return CTL_EXIT_SYSTEM;
	r = pmemram_observe(ctx, &o);
	if (r < 0)
		return ctl_read_failed(ctx, "the system state", r);
	if (o->observed.n_unreadable_processes > 0)
		fprintf(stderr,
			"%s: could not read the memory maps of %zu processes (not root?): a dax device they map looks free\n",
			program_invocation_short_name, o->observed.n_unreadable_processes);

	r = pmemram_plan_compute(config, &o->observed, &plan);
	if (r < 0) {
		fprintf(stderr, "%s: cannot compute the plan: %s\n", program_invocation_short_name, strerror(-r));
		return CTL_EXIT_SYSTEM;
	}

	r = json ? print_json(plan, dir, configured, o, config) : print_human(plan, config);
	if (r < 0) {
		fprintf(stderr, "%s: cannot format the plan: %s\n", program_invocation_short_name, strerror(-r));
		return CTL_EXIT_SYSTEM;
	}
	return ctl_flush_stdout();
}
