/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmemramd's state for others: the Prometheus textfile and the NFD feature file, after every
 * reconcile and on a timer; what a reconcile saw is kept here, the observation is not. */
#include <syslog.h>

#include "fileio.h"
#include "macro.h"
#include "manager.h"
#include "pmemram-class.h"
#include "pmemram-metrics.h"
#include "pmemram-nfd.h"

#define RESULTS 4 /* converged, work-remains, failed, error: as the status reply names them */
#define RELEASE_FAILURES_MAX 32
#define EXPORT_INTERVAL_USEC (60 * USEC_PER_SEC)
/* NFD drops the labels this long after the last write: a pmemramd gone for five intervals no
 * longer vouches for them. */
#define NFD_EXPIRY_USEC (5 * EXPORT_INTERVAL_USEC)

struct node_online {
	int node;
	uint64_t bytes[_PMEMRAM_ZONE_MAX];
};

struct release_failure {
	char outcome[24];
	char error[24];
	uint64_t n;
};

struct manager_export {
	uint64_t results[RESULTS];
	uint64_t reconcile_usec_total;
	/* the last reconcile that read the system */
	bool known;
	uint64_t devices[_PMEMRAM_DAX_MODE_MAX][_PMEMRAM_DAX_SOURCE_MAX]; /* by mode and source */
	uint64_t verdicts[_PMEMRAM_VERDICT_MAX][_PMEMRAM_REASON_MAX];
	size_t n_unmatched;
	uint64_t kmem_online_bytes;
	struct pmemram_nodemask kmem_nodes;
	size_t n_online;
	struct node_online *online;
	/* releases that failed */
	size_t n_release_failures;
	struct release_failure release_failures[RELEASE_FAILURES_MAX];
	/* what was last logged about each file (the errno, 0 for none): a failure each minute is logged once */
	int metrics_error, nfd_error, read_error;
	size_t nfd_dropped;
};

static const char *const result_names[RESULTS] = { "converged", "work-remains", "failed", "error" };

static struct manager_export *export_of(struct manager *m)
{
	if (!m->export && (m->metrics_path || m->nfd_path))
		m->export = calloc(1, sizeof(*m->export));
	return m->export;
}

/* Memory online per node and zone, from the observation's memory blocks: those of dax devices. */
static void note_online(struct manager_export *e, const struct pmemram_memory *memory)
{
	_cleanup_(pmemram_memory_summary_freep) struct pmemram_memory_summary *s = NULL;

	free(e->online);
	e->online = NULL;
	e->n_online = 0;
	if (pmemram_memory_summarize(memory, &s) < 0 || s->n_nodes == 0)
		return;
	e->online = calloc(s->n_nodes, sizeof(*e->online));
	if (!e->online)
		return;
	for (size_t i = 0; i < s->n_nodes; i++) {
		struct node_online *n = &e->online[e->n_online];

		if (s->nodes[i].node < 0)
			continue; /* blocks being added, no node yet */
		n->node = s->nodes[i].node;
		for (int z = 0; z < _PMEMRAM_ZONE_MAX; z++)
			n->bytes[z] = (uint64_t)s->nodes[i].online[z] * memory->block_size;
		e->n_online++;
	}
}

static void note_devices(struct manager_export *e, const struct pmemram_reconcile_result *res)
{
	const struct pmemram_observation *o = res->observation;
	const struct pmemram_plan *plan = res->plan;

	memset(e->devices, 0, sizeof(e->devices));
	memset(e->verdicts, 0, sizeof(e->verdicts));
	e->kmem_online_bytes = 0;
	for (size_t i = 0; i < o->observed.n_devices; i++) {
		const struct pmemram_observed_dax *d = &o->observed.devices[i];

		if ((unsigned)d->dax.mode < _PMEMRAM_DAX_MODE_MAX && (unsigned)d->dax.source < _PMEMRAM_DAX_SOURCE_MAX)
			e->devices[d->dax.mode][d->dax.source]++;
	}
	for (size_t i = 0; i < plan->n_verdicts; i++) {
		const struct pmemram_device_verdict *v = &plan->verdicts[i];

		if (v->reason == PMEMRAM_REASON_UNCLAIMED || v->verdict >= _PMEMRAM_VERDICT_MAX ||
		    v->reason >= _PMEMRAM_REASON_MAX)
			continue;
		e->verdicts[v->verdict][v->reason]++;
		e->kmem_online_bytes += (uint64_t)v->n_blocks_done * o->observed.block_size;
	}
	e->n_unmatched = plan->n_unmatched;
	pmemram_kmem_nodes(o->dax, &e->kmem_nodes);
	note_online(e, o->memory);
	e->known = true;
}

void manager_export_note_reconcile(struct manager *m, int r, uint64_t duration_usec)
{
	struct manager_export *e = export_of(m);

	if (!e)
		return;
	e->results[r == 0 ? 0 : r == -EAGAIN ? 1 : r == -EIO ? 2 : 3]++;
	e->reconcile_usec_total += duration_usec;
	if (m->last && m->last->observation)
		note_devices(e, m->last);
	else if (!m->last)
		e->known = false;
}

void manager_export_note_release(struct manager *m, const char *outcome, int errnum)
{
	struct manager_export *e = export_of(m);
	const char *error = errnum > 0 ? strerrorname_np(errnum) : NULL;
	struct release_failure *f = NULL;

	if (!e)
		return;
	if (!outcome)
		outcome = "no-report";
	if (!error)
		error = "unknown";
	for (size_t i = 0; i < e->n_release_failures && !f; i++)
		if (streq(e->release_failures[i].outcome, outcome) && streq(e->release_failures[i].error, error))
			f = &e->release_failures[i];
	/* The table is full only with more kinds of failure than the code has: the last slot takes the rest. */
	if (!f && e->n_release_failures == RELEASE_FAILURES_MAX) {
		f = &e->release_failures[RELEASE_FAILURES_MAX - 1];
		(void)snprintf(f->outcome, sizeof(f->outcome), "other");
		(void)snprintf(f->error, sizeof(f->error), "other");
	}
	if (!f) {
		f = &e->release_failures[e->n_release_failures++];
		(void)snprintf(f->outcome, sizeof(f->outcome), "%s", outcome);
		(void)snprintf(f->error, sizeof(f->error), "%s", error);
	}
	f->n++;
}

/* Log a write's or a read's failure when it differs from the last one logged, and its recovery. */
static void log_change(struct manager *m, int *last, int r, const char *what)
{
	if (r < 0 && -r != *last)
		mevent(m, MANAGER_EVENT_EXPORT_FAILED, "%s: %s", what, strerror(-r));
	else if (r >= 0 && *last)
		mlog(m, LOG_INFO, "%s: works again", what);
	*last = r < 0 ? -r : 0;
}

/* What the kernel shows now, read at each write: nodes, tiers, caches, vmstat, shuffling, and
 * the classes' memory per node. */
struct reading {
	struct pmemram_topology *topology;
	struct pmemram_metrics_node *nodes;
	struct pmemram_vmstat_counter (*vmstat)[PMEMRAM_VMSTAT_MAX];
	struct pmemram_metrics_class *classes;
	struct pmemram_numa_usage *usage; /* one per class */
	struct pmemram_vmstat_counter system[PMEMRAM_VMSTAT_MAX];
	size_t n_system;
	bool shuffle_known;
	struct pmemram_shuffle shuffle;
};

static void reading_done(struct reading *rd)
{
	pmemram_topology_free(rd->topology);
	free(rd->nodes);
	free(rd->vmstat);
	free(rd->classes);
	free(rd->usage);
}

static const struct node_online *find_online(const struct manager_export *e, int node)
{
	for (size_t i = 0; e->known && i < e->n_online; i++)
		if (e->online[i].node == node)
			return &e->online[i];
	return NULL;
}

static int read_nodes(struct manager *m, struct reading *rd)
{
	const struct pmemram_topology *t;
	int r;

	if (!rd->topology) {
		r = pmemram_topology_read(m->ctx, &rd->topology);
		if (r < 0)
			return r;
	}
	t = rd->topology;
	rd->nodes = calloc(t->n_nodes ? t->n_nodes : 1, sizeof(*rd->nodes));
	rd->vmstat = calloc(t->n_nodes ? t->n_nodes : 1, sizeof(*rd->vmstat));
	if (!rd->nodes || !rd->vmstat)
		return -ENOMEM;
	for (size_t i = 0; i < t->n_nodes; i++) {
		const struct pmemram_node *n = &t->nodes[i];
		const struct node_online *on = find_online(m->export, n->id);
		struct pmemram_metrics_node *mn = &rd->nodes[i];

		*mn = (struct pmemram_metrics_node){ .id = n->id, .tier = n->tier, .mem_total = n->mem_total, .online_known = on,
						     .n_caches = n->n_caches, .caches = n->caches,
						     .vmstat = rd->vmstat[i] };
		if (on)
			memcpy(mn->online_bytes, on->bytes, sizeof(mn->online_bytes));
		r = pmemram_node_vmstat_read(m->ctx, n->id, rd->vmstat[i], PMEMRAM_VMSTAT_MAX);
		if (r < 0)
			return r;
		mn->n_vmstat = (size_t)r;
	}
	return 0;
}

static int read_state(struct manager *m, struct reading *rd)
{
	int r;

	rd->classes = calloc(m->n_classes ? m->n_classes : 1, sizeof(*rd->classes));
	rd->usage = calloc(m->n_classes ? m->n_classes : 1, sizeof(*rd->usage));
	if (!rd->classes || !rd->usage)
		return -ENOMEM;
	for (size_t i = 0; i < m->n_classes; i++) {
		struct pmemram_metrics_class *c = &rd->classes[i];

		c->name = m->classes[i].name;
		c->resolved = m->classes[i].nodes[0] && pmemram_parse_range_list(m->classes[i].nodes, &c->nodes) >= 0;
		/* no cgroup yet, or no memory controller on it: no figures */
		if (pmemram_slice_read_usage(m->ctx, c->name, &rd->usage[i]) > 0)
			c->usage = &rd->usage[i];
		if (c->usage && c->resolved)
			c->bytes_outside = pmemram_numa_usage_outside(c->usage, &c->nodes, NULL);
		if (m->classes[i].wanted_weights.n > 0) {
			c->weights = &m->classes[i].wanted_weights;
			c->weights_in_force = !m->classes[i].weights_error[0];
		}
	}
	rd->shuffle_known = pmemram_shuffle_read(m->ctx, &rd->shuffle) >= 0;
	r = pmemram_vmstat_read(m->ctx, rd->system, PMEMRAM_VMSTAT_MAX);
	rd->n_system = r > 0 ? (size_t)r : 0;
	pmemram_ctx_clear_error(m->ctx);
	r = read_nodes(m, rd);
	log_change(m, &m->export->read_error, r, "metrics and node features: cannot read the NUMA nodes");
	return r;
}

static void fill_counts(const struct manager_export *e, struct pmemram_metrics *mt, struct pmemram_metrics_count *results,
			struct pmemram_metrics_count *devices, struct pmemram_metrics_count *verdicts,
			struct pmemram_metrics_count *failures)
{
	for (size_t i = 0; i < RESULTS; i++)
		if (e->results[i])
			results[mt->n_reconciles++] = (struct pmemram_metrics_count){ result_names[i], NULL, e->results[i] };
	for (int d = 0; d < _PMEMRAM_DAX_MODE_MAX; d++)
		for (int s = 0; s < _PMEMRAM_DAX_SOURCE_MAX; s++)
			if (e->devices[d][s])
				devices[mt->n_devices++] = (struct pmemram_metrics_count){
					pmemram_dax_mode_to_string(d), pmemram_dax_source_to_string(s), e->devices[d][s]
				};
	for (int v = 0; v < _PMEMRAM_VERDICT_MAX; v++)
		for (int r = 0; r < _PMEMRAM_REASON_MAX; r++)
			if (e->verdicts[v][r])
				verdicts[mt->n_verdicts++] = (struct pmemram_metrics_count){
					pmemram_verdict_to_string(v), pmemram_reason_to_string(r), e->verdicts[v][r]
				};
	for (size_t i = 0; i < e->n_release_failures; i++)
		failures[mt->n_release_failures++] = (struct pmemram_metrics_count){
			e->release_failures[i].outcome, e->release_failures[i].error, e->release_failures[i].n
		};
	mt->reconciles = results;
	mt->devices = devices;
	mt->verdicts = verdicts;
	mt->release_failures = failures;
}

static void write_metrics(struct manager *m, const struct reading *rd)
{
	struct manager_export *e = m->export;
	struct pmemram_metrics_count results[RESULTS], devices[_PMEMRAM_DAX_MODE_MAX * _PMEMRAM_DAX_SOURCE_MAX],
		verdicts[_PMEMRAM_VERDICT_MAX * _PMEMRAM_REASON_MAX], failures[RELEASE_FAILURES_MAX];
	struct pmemram_metrics mt = {
		.ready = m->ready,
		.uevents = m->n_uevents,
		.uevents_lost = m->n_uevents_lost,
		.reconcile_usec_total = e->reconcile_usec_total,
		.last_reconcile_usec = m->last_duration_usec,
		.last_reconcile_time_usec = m->n_reconciles ? m->last_usec : 0,
		.devices_known = e->known,
		.n_unmatched_claims = e->n_unmatched,
		.kmem_online_bytes = e->kmem_online_bytes,
		.shuffle = rd->shuffle_known ? &rd->shuffle : NULL,
		.shuffle_policy = m->shuffle_known ? pmemram_config_shuffle_to_string(m->shuffle.policy) : NULL,
		.shuffle_policy_state =
			m->shuffle_known ? pmemram_shuffle_policy_state_to_string(m->shuffle.state) : NULL,
		.hotplug_policy = m->hotplug_known ? pmemram_config_hotplug_to_string(m->hotplug.policy) : NULL,
		.hotplug_policy_state =
			m->hotplug_known ? pmemram_hotplug_policy_state_to_string(m->hotplug.state) : NULL,
		.demotion = m->demotion,
		.n_nodes = rd->topology ? rd->topology->n_nodes : 0,
		.nodes = rd->nodes,
		.n_classes = m->n_classes,
		.classes = rd->classes,
		.n_vmstat = rd->n_system,
		.vmstat = rd->system,
	};
	_cleanup_(freep) char *text = NULL;
	size_t len;
	int r;

	fill_counts(e, &mt, results, devices, verdicts, failures);
	r = pmemram_metrics_format(&mt, &text, &len);
	if (r >= 0)
		r = file_write_atomic(m->metrics_path, text, len, 0644, 0);
	log_change(m, &e->metrics_error, r, m->metrics_path);
}

static void write_nfd(struct manager *m, const struct reading *rd)
{
	struct manager_export *e = m->export;
	struct pmemram_nfd n = {
		.expiry_usec = now_usec(CLOCK_REALTIME) + NFD_EXPIRY_USEC,
		.kmem_online_bytes = e->kmem_online_bytes,
		.shuffle = rd->shuffle_known ? &rd->shuffle : NULL,
		.n_classes = m->n_classes,
		.classes = rd->classes,
	};
	struct pmemram_nfd_dropped dropped;
	_cleanup_(freep) char *text = NULL;
	size_t len;
	int r;

	if (e->known)
		pmemram_class_slow_nodes(rd->topology, &e->kmem_nodes, &n.slow_nodes);
	pmemram_topology_direct_mapped_nodes(rd->topology, &n.direct_mapped_nodes);
	r = pmemram_nfd_format(&n, &text, &len, &dropped);
	if (r >= 0 && dropped.n != e->nfd_dropped && dropped.n > 0)
		mevent(m, MANAGER_EVENT_NFD_LABELS_DROPPED, "%s: %zu labels left out, first %s: not a valid Kubernetes label or past %d bytes",
		     m->nfd_path, dropped.n, dropped.first, PMEMRAM_NFD_FILE_MAX);
	if (r >= 0)
		e->nfd_dropped = dropped.n;
	if (r >= 0)
		r = file_write_atomic(m->nfd_path, text, len, 0644, 0);
	log_change(m, &e->nfd_error, r, m->nfd_path);
}

void manager_export_write(struct manager *m, struct pmemram_topology *topology)
{
	/* Large (the shuffle state has a slot per possible node): on the heap. */
	_cleanup_(freep) struct reading *rd = NULL;

	if (!export_of(m)) {
		pmemram_topology_free(topology);
		return;
	}
	rd = calloc(1, sizeof(*rd));
	if (!rd) {
		log_change(m, &m->export->read_error, -ENOMEM, "metrics and node features");
		pmemram_topology_free(topology);
		return;
	}
	rd->topology = topology;
	/* What could not be read is left out; the rest is still written. */
	(void)read_state(m, rd);
	if (m->metrics_path)
		write_metrics(m, rd);
	if (m->nfd_path)
		write_nfd(m, rd);
	reading_done(rd);
}

static int on_export_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct manager *m = userdata;

	manager_export_write(m, NULL);
	(void)sd_event_source_set_time(s, usec + EXPORT_INTERVAL_USEC);
	return 0;
}

int manager_export_start(struct manager *m)
{
	uint64_t now;
	int r;

	if (!m->metrics_path && !m->nfd_path)
		return 0;
	r = sd_event_now(m->event, CLOCK_MONOTONIC, &now);
	if (r >= 0)
		r = sd_event_add_time(m->event, &m->export_source, CLOCK_MONOTONIC, now + EXPORT_INTERVAL_USEC,
				      USEC_PER_SEC, on_export_timer, m);
	if (r >= 0)
		r = sd_event_source_set_enabled(m->export_source, SD_EVENT_ON);
	return r;
}

void manager_export_free(struct manager *m)
{
	m->export_source = sd_event_source_disable_unref(m->export_source);
	if (m->export)
		free(m->export->online);
	free(m->export);
	m->export = NULL;
}
