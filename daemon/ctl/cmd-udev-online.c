/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmemramctl udev-online: run by udev for each memory block added offline; local, no daemon. */
#include <syslog.h>

#include "ctl.h"
#include "macro.h"
#include "pmemram-observe.h"
#include "pmemram-reconcile.h"

/* ---- udev-online -------------------------------------------------------------------------------- */

/* How long a block's "add" waits for the kmem probe that is adding it (see
 * pmemram_observe_block_bound()): a probe adds every block of the device first. */
#define BIND_WAIT_USEC (60 * USEC_PER_SEC)
#define BIND_POLL_USEC (50 * USEC_PER_MSEC)

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
	r = pmemram_observe_block_bound(ctx, block, BIND_WAIT_USEC, BIND_POLL_USEC, &o);
	if (r < 0)
		return ctl_read_failed(ctx, "the system state", r);
	if (r > 0) {
		/* udevd shows a RUN program's stderr only at debug level: the journal gets it too, as a
		 * block left offline is what someone will look for. */
		openlog("pmemramctl", LOG_PID, LOG_DAEMON);
		syslog(LOG_WARNING,
		       "udev-online: %s: still being added to %s after %llu s; left offline (a running "
		       "pmemramd onlines it when the kmem bind is done)",
		       name, o->observed.devices[0].dax.name, (unsigned long long)(BIND_WAIT_USEC / USEC_PER_SEC));
		closelog();
		fprintf(stderr, "%s udev-online: %s: still being added to %s after %llu s; left offline\n",
			program_invocation_short_name, name, o->observed.devices[0].dax.name,
			(unsigned long long)(BIND_WAIT_USEC / USEC_PER_SEC));
	}
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
