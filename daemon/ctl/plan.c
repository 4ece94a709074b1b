/* pmemramctl plan: what reconcile would do to the running system under the configuration, touching nothing. */
#include <fcntl.h>
#include <getopt.h>
#include <json-c/json.h>

#include "ctl.h"
#include "macro.h"
#include "pmemram-observe.h"

#define PLAN_SCHEMA_VERSION 1
#define DEFAULT_CONFIG_DIR "/etc/pmemram"

/* Load the configuration in dir: CTL_EXIT_OK with *ret (empty when there is none), else an exit code. */
static int load_config(const char *dir, struct pmemram_config **ret, bool *ret_configured)
{
	_cleanup_(closep) int fd = -1;
	struct pmemram_config_errors errors = {};
	int r;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 && errno != ENOENT) {
		fprintf(stderr, "%s: cannot open %s: %m\n", program_invocation_short_name, dir);
		return CTL_EXIT_CONFIG;
	}

	r = fd < 0 ? -ENOENT : pmemram_config_load(fd, ret, &errors);
	if (r == -ENOENT) {
		fprintf(stderr, "%s: no configuration in %s: nothing is claimed\n", program_invocation_short_name, dir);
		*ret_configured = false;
		r = pmemram_config_new(ret);
		if (r < 0) {
			fprintf(stderr, "%s: %s\n", program_invocation_short_name, strerror(-r));
			return CTL_EXIT_SYSTEM;
		}
		return CTL_EXIT_OK;
	}
	if (r < 0) {
		for (size_t i = 0; i < errors.n; i++)
			fprintf(stderr, "%s/%s\n", dir, errors.msg[i]);
		if (errors.n_dropped > 0)
			fprintf(stderr, "%s: ... and %zu more errors\n", program_invocation_short_name, errors.n_dropped);
		if (errors.n == 0)
			fprintf(stderr, "%s: cannot load the configuration in %s: %s\n", program_invocation_short_name,
				dir, strerror(-r));
		return CTL_EXIT_CONFIG;
	}
	*ret_configured = true;
	return CTL_EXIT_OK;
}

static int print_json(const struct pmemram_plan *plan, const char *dir, bool configured,
		      const struct pmemram_observation *o)
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
				      json_object_object_add(root, "configured",
							     json_object_new_boolean(configured)) == 0 &&
				      json_object_object_add(root, "unreadable_processes",
							     json_object_new_uint64(o->n_unreadable_processes)) == 0);
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
	       "  -c --config DIR   Configuration directory (default $PMEMRAM_CONFIG_DIR or " DEFAULT_CONFIG_DIR ")\n",
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
	const char *dir = getenv("PMEMRAM_CONFIG_DIR");
	bool json = g->json, configured = false;
	int c, r;

	if (!dir || !*dir)
		dir = DEFAULT_CONFIG_DIR;

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

	r = load_config(dir, &config, &configured);
	if (r != CTL_EXIT_OK)
		return r;

	r = ctl_ctx_new(&ctx);
	if (r < 0)
		return CTL_EXIT_SYSTEM;
	r = pmemram_observe(ctx, &o);
	if (r < 0)
		return ctl_read_failed(ctx, "the system state", r);
	if (o->n_unreadable_processes > 0)
		fprintf(stderr, "%s: could not read the memory maps of %zu processes (not root?): a dax device they map looks free\n",
			program_invocation_short_name, o->n_unreadable_processes);

	r = pmemram_plan_compute(config, &o->observed, &plan);
	if (r < 0) {
		fprintf(stderr, "%s: cannot compute the plan: %s\n", program_invocation_short_name, strerror(-r));
		return CTL_EXIT_SYSTEM;
	}

	r = json ? print_json(plan, dir, configured, o) : pmemram_plan_print(plan, stdout);
	if (r < 0) {
		fprintf(stderr, "%s: cannot format the plan: %s\n", program_invocation_short_name, strerror(-r));
		return CTL_EXIT_SYSTEM;
	}
	return ctl_flush_stdout();
}
