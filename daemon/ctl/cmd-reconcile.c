/* pmemramctl reconcile, release, reclaim (through pmemramd) and udev-online (local, run by udev). */
#include <getopt.h>
#include <limits.h>
#include <syslog.h>

#include <json-c/json.h>

#include "ctl.h"
#include "macro.h"
#include "pmemram-observe.h"
#include "pmemram-protocol.h"
#include "pmemram-reconcile.h"
#include "pmemram-release.h"

#define CHANGE_TIMEOUT_S 600 /* a release migrates pages: it can take long */

/* The holds that still stand for the device now behind their name: a hold whose identity (the
 * namespace, or the physical range) is not the device's any more held a device that is gone. */
void ctl_held_read(struct pmemram_ctx *ctx, struct ctl_held *h)
{
	const char *sock = ctl_socket_path(), *slash = strrchr(sock, '/');
	char *ids[PMEMRAM_HELD_MAX] = {}, dir[PATH_MAX], now[PMEMRAM_DEVICE_IDENTITY_MAX];
	_cleanup_(pmemram_dax_list_freep) struct pmemram_dax_list *l = NULL;
	size_t n = 0;

	h->n = 0;
	if (!slash || (size_t)(slash - sock) >= sizeof(dir))
		return;
	memcpy(dir, sock, (size_t)(slash - sock));
	dir[slash - sock] = '\0';
	/* Unreadable is as good as absent here: pmemramd, when it runs, applies the holds itself. */
	if (pmemram_held_read(dir, h->names, ids, &n) < 0)
		return;
	if (n > 0 && pmemram_dax_list_read(ctx, &l) < 0)
		l = NULL; /* then no identity can be checked: every hold with one is stale */
	pmemram_ctx_clear_error(ctx);
	for (size_t i = 0; i < n; i++) {
		const struct pmemram_dax *d = NULL;
		bool stale;

		for (size_t k = 0; l && k < l->n_devices; k++)
			if (streq(l->devices[k].name, h->names[i]))
				d = &l->devices[k];
		stale = ids[i] && (!d || pmemram_dax_identity(ctx, d, now, sizeof(now)) < 0 || !streq(now, ids[i]));

		pmemram_ctx_clear_error(ctx);
		free(ids[i]);
		if (stale)
			free(h->names[i]);
		else
			h->names[h->n++] = h->names[i];
	}
}

void ctl_held_done(struct ctl_held *h)
{
	for (size_t i = 0; i < h->n; i++)
		free(h->names[i]);
	h->n = 0;
}

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

int ctl_daemon_missing(const char *command)
{
	fprintf(stderr, "%s %s: pmemramd is not running (no %s)%s\n", program_invocation_short_name, command,
		ctl_socket_path(), streq(command, "reconcile") ? "; start it, or use --local" : "");
	return CTL_EXIT_NO_DAEMON;
}

int ctl_call_failed(const char *command, int r)
{
	if (ctl_daemon_absent(r))
		return ctl_daemon_missing(command);
	if (r == -EPERM)
		return CTL_EXIT_SYSTEM;
	fprintf(stderr, "%s %s: talking to pmemramd: %s\n", program_invocation_short_name, command, strerror(-r));
	return CTL_EXIT_SYSTEM;
}

/* Print a reply (JSON, or human through print), and turn its "ok" into an exit code. */
int ctl_finish_reply(struct json_object *reply, bool json, void (*print)(struct json_object *))
{
	struct json_object *ok;
	bool success = json_object_object_get_ex(reply, "ok", &ok) && json_object_get_boolean(ok);

	if (json) {
		if (ctl_print_json(json_object_get(reply), true) < 0) {
			json_object_put(reply);
			return CTL_EXIT_SYSTEM;
		}
	} else {
		print(reply);
	}
	json_object_put(reply);
	if (ctl_flush_stdout() != CTL_EXIT_OK)
		return CTL_EXIT_SYSTEM;
	return success ? CTL_EXIT_OK : CTL_EXIT_FAILED;
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
	bool configured;
	int r;

	r = ctl_load_config(dir, false, &config, &configured);
	if (r != CTL_EXIT_OK)
		return r;
	if (ctl_ctx_new(&ctx) < 0)
		return CTL_EXIT_SYSTEM;
	ctl_held_read(ctx, &held);
	opts.held = (const char *const *)held.names;
	opts.n_held = held.n;
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

	r = ctl_daemon_simple("reconcile", NULL, CHANGE_TIMEOUT_S, &reply);
	if (!reply)
		return ctl_call_failed("reconcile", r);
	return ctl_finish_reply(reply, json, ctl_print_reconcile_json);
}

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
	static const struct option options[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "json", no_argument, NULL, 'j' },
		{ "dry-run", no_argument, NULL, 'n' },
		{},
	};
	const char *command = release ? "release" : "reclaim";
	struct json_object *reply = NULL;
	bool json = g->json, dry_run = false;
	int c, r;

	opterr = 0;
	while ((c = getopt_long(argc, argv, release ? "hjn" : "hj", options, NULL)) >= 0) {
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

	r = ctl_daemon_simple(command, argv[optind], CHANGE_TIMEOUT_S, &reply);
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

/* ---- udev-online -------------------------------------------------------------------------------- */

/*
 * Run by udev (60-pmemram.rules) for every memory block added offline.  Plans with the same
 * configuration and holds as pmemramd and performs only the plan's actions for this block, so a
 * block is onlined only when a claim covers its device, in the claimed zone.  A block that
 * pmemramd onlined first is found in the target state: success.  Quiet when it has nothing to do.
 */
int cmd_udev_online(const struct ctl_globals *g, int argc, char **argv)
{
	_cleanup_(pmemram_ctx_unrefp) struct pmemram_ctx *ctx = NULL;
	_cleanup_(pmemram_config_freep) struct pmemram_config *config = NULL;
	_cleanup_(pmemram_observation_freep) struct pmemram_observation *o = NULL;
	_cleanup_(pmemram_plan_freep) struct pmemram_plan *plan = NULL;
	_cleanup_(pmemram_apply_report_freep) struct pmemram_apply_report *report = NULL;
	_cleanup_(ctl_held_done) struct ctl_held held = {};
	struct pmemram_action actions[2];
	const char *dir = ctl_config_dir(), *name;
	bool configured;
	unsigned long block;
	size_t n = 0;
	int r;

	if (argc == 2 && (streq(argv[1], "-h") || streq(argv[1], "--help"))) {
		printf("Usage: %s udev-online memoryN\n"
		       "\n"
		       "Online one memory block that the kernel added offline, when a claim of the\n"
		       "configuration covers its dax device, into the claimed zone; do nothing\n"
		       "otherwise.  Run by pmemram's udev rule for every memory block added; quiet\n"
		       "when there is nothing to do.  Needs root.\n",
		       program_invocation_short_name);
		return CTL_EXIT_OK;
	}
	if (argc != 2)
		return ctl_usage_error("udev-online", "expected one argument, a memory block such as memory37");
	name = argv[1];
	if (pmemram_parse_block_name(name, &block) < 0)
		return ctl_usage_error("udev-online", "'%s' is not a memory block name (memoryN)", name);

	r = ctl_load_config(dir, true, &config, &configured);
	if (r != CTL_EXIT_OK)
		return r;
	if (!configured)
		return CTL_EXIT_OK; /* nothing claimed: not ours */
	if (ctl_ctx_new(&ctx) < 0)
		return CTL_EXIT_SYSTEM;
	ctl_held_read(ctx, &held);
	/* Only this block's actions are taken here: the block and its device are all that is read,
	 * so that onlining a device of n blocks costs n times one block, not n times n. */
	r = pmemram_observe_block(ctx, block, &o);
	if (r < 0)
		return ctl_read_failed(ctx, "the system state", r);
	r = pmemram_plan_compute(config, &o->observed, &plan);
	if (r < 0)
		return CTL_EXIT_SYSTEM;
	pmemram_plan_apply_holds(plan, (const char *const *)held.names, held.n);

	for (size_t i = 0; i < plan->n_actions && n < ELEMENTSOF(actions); i++) {
		const struct pmemram_action *a = &plan->actions[i];

		if ((a->type == PMEMRAM_ACTION_ONLINE_BLOCK || a->type == PMEMRAM_ACTION_OFFLINE_BLOCK) &&
		    a->block == block)
			actions[n++] = *a;
	}
	if (n == 0)
		return CTL_EXIT_OK;

	r = pmemram_apply(ctx, actions, n, NULL, &report);
	if (!report)
		return CTL_EXIT_SYSTEM;
	openlog("pmemramctl", LOG_PID, LOG_DAEMON);
	for (size_t i = 0; i < report->n_results; i++) {
		const struct pmemram_apply_result *res = &report->results[i];

		syslog(res->status == PMEMRAM_APPLY_FAILED ? LOG_ERR : LOG_INFO, "udev-online: %s (claim %s)",
		       res->reason, res->action.claim);
		fprintf(stderr, "%s udev-online: %s: %s\n", program_invocation_short_name,
			pmemram_apply_status_to_string(res->status), res->reason);
	}
	closelog();
	return r < 0 ? CTL_EXIT_FAILED : CTL_EXIT_OK;
}
