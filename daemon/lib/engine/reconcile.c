/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Reconcile: rounds of observe, plan, apply-per-device, until the system is as configured. */
#include <time.h>

#include "pmemram-observe.h"
#include "pmemram-provenance.h"
#include "pmemram-private.h"
#include "pmemram-reconcile.h"

struct pmemram_reconcile_result *pmemram_reconcile_result_free(struct pmemram_reconcile_result *r)
{
	if (!r)
		return NULL;
	pmemram_plan_free(r->plan);
	pmemram_observation_free(r->observation);
	free(r->results);
	free(r);
	return NULL;
}

static bool name_in(const char *name, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (names[i] && streq(names[i], name))
			return true;
	return false;
}

/* Drop the actions of devices in names[0..n) from plan, keeping the order of the rest. */
static void drop_actions(struct pmemram_plan *plan, const char *const *names, size_t n)
{
	size_t kept = 0;

	for (size_t i = 0; i < plan->n_actions; i++)
		if (!name_in(plan->actions[i].device, names, n))
			plan->actions[kept++] = plan->actions[i];
	plan->n_actions = kept;
}

void pmemram_plan_apply_holds(struct pmemram_plan *plan, const char *const *held, size_t n_held)
{
	if (!plan || n_held == 0)
		return;
	for (size_t i = 0; i < plan->n_verdicts; i++) {
		struct pmemram_device_verdict *v = &plan->verdicts[i];

		if (!name_in(v->device, held, n_held))
			continue;
		v->verdict = PMEMRAM_VERDICT_IGNORED;
		v->reason = PMEMRAM_REASON_HELD;
		(void)snprintf(v->text, sizeof(v->text), "%s: given back by release, left alone until reclaimed",
			       v->device);
	}
	drop_actions(plan, held, n_held);
}

/* Devices that failed in this reconcile: names borrowed from results (which outlive the list). */
struct failed_list {
	size_t n;
	const char **names;
	const char **reasons;
};

static int failed_add(struct failed_list *f, const char *device, const char *reason)
{
	const char **n, **r;

	n = realloc(f->names, (f->n + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	f->names = n;
	r = realloc(f->reasons, (f->n + 1) * sizeof(*r));
	if (!r)
		return -ENOMEM;
	f->reasons = r;
	f->names[f->n] = device;
	f->reasons[f->n] = reason;
	f->n++;
	return 0;
}

static int results_append(struct pmemram_reconcile_result *res, const struct pmemram_apply_report *report)
{
	struct pmemram_apply_result *p;

	if (report->n_results == 0)
		return 0;
	p = realloc(res->results, (res->n_results + report->n_results) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	res->results = p;
	memcpy(p + res->n_results, report->results, report->n_results * sizeof(*p));
	res->n_results += report->n_results;
	for (size_t i = 0; i < report->n_results; i++)
		if (report->results[i].status == PMEMRAM_APPLY_DONE || report->results[i].status == PMEMRAM_APPLY_ALREADY)
			res->n_done++;
	return 0;
}

/* Apply the plan's actions device by device; devices that fail join *failed. */
static int apply_by_device(struct pmemram_ctx *ctx, const struct pmemram_plan *plan,
			   const struct pmemram_apply_options *apply, struct pmemram_reconcile_result *res,
			   struct failed_list *failed, bool *changed)
{
	size_t i = 0;

	while (i < plan->n_actions) {
		_cleanup_(pmemram_apply_report_freep) struct pmemram_apply_report *report = NULL;
		const char *device = plan->actions[i].device;
		size_t j = i, before = res->n_results;
		int r;

		/* The planner lists a device's actions together; take the run of them. */
		while (j < plan->n_actions && streq(plan->actions[j].device, device))
			j++;

		r = pmemram_apply(ctx, plan->actions + i, j - i, apply, &report);
		if (!report)
			return r;
		r = results_append(res, report);
		if (r < 0)
			return r;
		if (report->failed >= 0) {
			r = failed_add(failed, res->results[before + (size_t)report->failed].action.device,
				       res->results[before + (size_t)report->failed].reason);
			if (r < 0)
				return r;
		}
		*changed = *changed || report->changed;
		i = j;
	}
	return 0;
}

static void mark_failed(struct pmemram_plan *plan, const struct failed_list *failed)
{
	for (size_t i = 0; i < plan->n_verdicts; i++) {
		struct pmemram_device_verdict *v = &plan->verdicts[i];

		for (size_t k = 0; k < failed->n; k++)
			if (streq(v->device, failed->names[k])) {
				v->verdict = PMEMRAM_VERDICT_FAILED;
				v->reason = PMEMRAM_REASON_APPLY_FAILED;
				(void)snprintf(v->text, sizeof(v->text), "%s", failed->reasons[k]);
			}
	}
	drop_actions(plan, failed->names, failed->n);
}

/* The plan for obs, with holds and earlier failures marked (their actions dropped). */
static int plan_compute(const struct pmemram_config *config, const struct pmemram_reconcile_options *o,
			const struct failed_list *failed, const struct pmemram_observation *obs,
			struct pmemram_plan **ret)
{
	int r;

	r = pmemram_plan_compute(config, &obs->observed, ret);
	if (r < 0)
		return r;
	pmemram_plan_apply_holds(*ret, o->held, o->n_held);
	mark_failed(*ret, failed);
	return 0;
}

/* Plan from *obs (observing first when it is NULL), with holds and earlier failures marked. */
static int observe_and_plan(struct pmemram_ctx *ctx, const struct pmemram_config *config,
			    const struct pmemram_reconcile_options *o, const struct failed_list *failed,
			    struct pmemram_reconcile_result *res, struct pmemram_observation **obs,
			    struct pmemram_plan **ret)
{
	int r;

	if (!*obs) {
		uint64_t t = now_usec(CLOCK_MONOTONIC);

		r = pmemram_observe_lazy(ctx, obs);
		if (r < 0)
			return r;
		res->n_observations++;
		res->observe_usec += now_usec(CLOCK_MONOTONIC) - t;
	}
	r = plan_compute(config, o, failed, *obs, ret);
	if (r < 0)
		return r;
	/* Scanning every process's maps and descriptors is most of the cost of an observation,
	 * and only a plan that takes a device from device_dax depends on it (a held or failed
	 * device's actions are dropped, so they never ask for it): the plan is made again from
	 * the same observation, completed, and nothing else is read again. */
	if (pmemram_plan_needs_users(*ret) && !(*obs)->users_scanned) {
		uint64_t t = now_usec(CLOCK_MONOTONIC);

		*ret = pmemram_plan_free(*ret);
		r = pmemram_observation_scan_users(ctx, *obs);
		if (r < 0)
			return r;
		res->users_usec += now_usec(CLOCK_MONOTONIC) - t;
		r = plan_compute(config, o, failed, *obs, ret);
		if (r < 0)
			return r;
	}
	res->n_unreadable_processes = (*obs)->observed.n_unreadable_processes;
	return 0;
}

static struct pmemram_observed_dax *observed_device(struct pmemram_observation *obs, const char *name)
{
	for (size_t i = 0; i < obs->observed.n_devices; i++)
		if (streq(obs->devices[i].dax.name, name))
			return &obs->devices[i];
	return NULL;
}

/* The block of obs with this id, added (sorted) when the observation had none. */
static struct pmemram_memblock *observed_block(struct pmemram_observation *obs, unsigned long id)
{
	struct pmemram_memory *m = obs->memory;
	struct pmemram_memblock *b;
	size_t at = 0;

	while (at < m->n_blocks && m->blocks[at].id < id)
		at++;
	if (at < m->n_blocks && m->blocks[at].id == id)
		return &m->blocks[at];
	b = reallocarray(m->blocks, m->n_blocks + 1, sizeof(*b));
	if (!b)
		return NULL;
	m->blocks = b;
	memmove(b + at + 1, b + at, (m->n_blocks - at) * sizeof(*b));
	m->n_blocks++;
	b[at] = (struct pmemram_memblock){ .id = id, .phys_index = id, .node = -1, .state = PMEMRAM_BLOCK_OFFLINE };
	obs->observed.blocks = m->blocks;
	obs->observed.n_blocks = m->n_blocks;
	return &b[at];
}

static void set_mode(struct pmemram_observation *obs, struct pmemram_observed_dax *d, enum pmemram_dax_mode mode,
		     const char *driver)
{
	d->dax.mode = mode;
	(void)snprintf(d->dax.driver, sizeof(d->dax.driver), "%s", driver);
	for (size_t i = 0; i < obs->dax->n_devices; i++)
		if (streq(obs->dax->devices[i].name, d->dax.name))
			obs->dax->devices[i] = d->dax;
}

/*
 * Carry what the applier verified into the observation: every result below was judged by reading
 * the kernel's state after the change (block state and zone, driver link), so the observation
 * needs no second reading to plan again.  -EAGAIN when a result cannot be carried (a namespace
 * conversion, a device not in the observation): the next round observes again.
 */
static int observation_note(struct pmemram_observation *obs, const struct pmemram_apply_result *results, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct pmemram_apply_result *res = &results[i];
		const struct pmemram_action *a = &res->action;
		struct pmemram_observed_dax *d = observed_device(obs, a->device);
		struct pmemram_memblock *b;

		if (res->status != PMEMRAM_APPLY_DONE && res->status != PMEMRAM_APPLY_ALREADY)
			return -EAGAIN;
		switch (a->type) {
		case PMEMRAM_ACTION_DISABLE_DEVDAX:
			if (!d)
				return -EAGAIN;
			set_mode(obs, d, PMEMRAM_DAX_UNBOUND, "");
			break;
		case PMEMRAM_ACTION_BIND_KMEM:
			if (!d)
				return -EAGAIN;
			set_mode(obs, d, PMEMRAM_DAX_SYSTEM_RAM, "kmem");
			break;
		case PMEMRAM_ACTION_ONLINE_BLOCK:
		case PMEMRAM_ACTION_OFFLINE_BLOCK:
			b = observed_block(obs, a->block);
			if (!b)
				return -ENOMEM;
			b->node = a->node;
			if (a->type == PMEMRAM_ACTION_OFFLINE_BLOCK) {
				b->state = PMEMRAM_BLOCK_OFFLINE;
				b->zones = (struct pmemram_zones){};
			} else {
				b->state = PMEMRAM_BLOCK_ONLINE;
				b->zones = (struct pmemram_zones){ .first = a->zone, .mask = 1u << a->zone };
			}
			break;
		default:
			return -EAGAIN;
		}
	}
	return 0;
}

int pmemram_reconcile(struct pmemram_ctx *ctx, const struct pmemram_config *config,
		      const struct pmemram_reconcile_options *options, struct pmemram_reconcile_result **ret)
{
	_cleanup_(pmemram_reconcile_result_freep) struct pmemram_reconcile_result *res = NULL;
	static const struct pmemram_reconcile_options no_options = {};
	const struct pmemram_reconcile_options *o = options ? options : &no_options;
	bool dry_run = o->apply && o->apply->dry_run;
	struct failed_list failed = {};
	struct pmemram_observation *obs = NULL;
	struct pmemram_plan *plan = NULL;
	int r;

	if (!ctx || !config || !ret)
		return -EINVAL;

	res = calloc(1, sizeof(*res));
	if (!res)
		return -ENOMEM;

	for (bool stop = false;;) {
		size_t done_before = res->n_done, results_before = res->n_results, failed_before = failed.n;
		bool changed = false;
		uint64_t t_apply;

		r = observe_and_plan(ctx, config, o, &failed, res, &obs, &plan);
		if (r < 0)
			goto out;
		if (plan->n_actions == 0 || stop || res->rounds >= PMEMRAM_RECONCILE_MAX_ROUNDS)
			break;

		res->rounds++;
		t_apply = now_usec(CLOCK_MONOTONIC);
		r = apply_by_device(ctx, plan, o->apply, res, &failed, &changed);
		if (r < 0)
			goto out;
		res->apply_usec += now_usec(CLOCK_MONOTONIC) - t_apply;
		if (dry_run)
			break;
		/* A round that changed nothing (every device failed) would only repeat itself: one more
		 * observation gives the verdicts, and then stop.  A device another changed meanwhile is
		 * planned again from the next observation (its result is not carried). */
		stop = res->n_done == done_before && !changed;
		plan = pmemram_plan_free(plan);
		/* A round where every action succeeded is planned again from what the applier verified;
		 * after a failure the system is read again. */
		r = failed.n == failed_before ?
			    observation_note(obs, res->results + results_before, res->n_results - results_before) :
			    -EAGAIN;
		if (r == -ENOMEM)
			goto out;
		if (r < 0)
			obs = pmemram_observation_free(obs);
	}

	/* The last plan came from observe_and_plan(), with every failure so far already marked. */
	res->n_failed = failed.n;
	res->plan = TAKE_PTR(plan);
	res->observation = TAKE_PTR(obs);
	/* pmemram's binds, for status: from the results and the observation carrying them, no reading */
	if (!dry_run && o->apply && o->apply->onlined_dir) {
		res->onlined_error =
			pmemram_onlined_note(o->apply->onlined_dir, res->observation, res->results, res->n_results);
		if (res->onlined_error > 0)
			res->onlined_error = 0;
	}
	if (failed.n > 0)
		r = -EIO;
	else if (res->plan->n_actions > 0 && !dry_run)
		r = -EAGAIN;
	else
		r = 0;
	*ret = TAKE_PTR(res);
out:
	pmemram_plan_free(plan);
	pmemram_observation_free(obs);
	free(failed.names);
	free(failed.reasons);
	return r;
}
