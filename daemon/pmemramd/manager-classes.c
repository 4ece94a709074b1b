/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmemramd: tiering classes after each reconcile (slices, systemd reload) and the demotion switch. */
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>
#include <systemd/sd-bus.h>

#include "fileio.h"
#include "json-util.h"
#include "macro.h"
#include "manager.h"
#include "pmemram-class.h"
#include "pmemram-tiering.h"

/* systemd's own socket: there from early boot, when the D-Bus daemon is not yet. */
#define SYSTEMD_PRIVATE_BUS "unix:path=/run/systemd/private"

/* A connection to systemd's private bus for one call, closed by the caller with
 * sd_bus_flush_close_unref(); *ret NULL when it cannot be made. */
static int systemd_bus_open(sd_bus **ret)
{
	sd_bus *bus = NULL;
	int r;

	r = sd_bus_new(&bus);
	if (r >= 0)
		r = sd_bus_set_address(bus, SYSTEMD_PRIVATE_BUS);
	if (r >= 0)
		r = sd_bus_start(bus);
	if (r < 0)
		bus = sd_bus_flush_close_unref(bus);
	*ret = bus;
	return r;
}

/* systemctl daemon-reload: systemd re-reads the slices and applies AllowedMemoryNodes= to their
 * cgroups, running units included.  The call returns once the reload is done. */
static int systemd_reload(struct manager *m)
{
	_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
	sd_bus *bus = NULL;
	int r;

	r = systemd_bus_open(&bus);
	if (r >= 0)
		r = sd_bus_call_method(bus, "org.freedesktop.systemd1", "/org/freedesktop/systemd1",
				       "org.freedesktop.systemd1.Manager", "Reload", &error, NULL, NULL);
	if (r < 0)
		mevent(m, MANAGER_EVENT_CLASS_SLICES_FAILED, "cannot make systemd reload the class slices: %s",
		       error.message ? error.message : strerror(-r));
	sd_bus_flush_close_unref(bus);
	return r;
}

/*
 * systemd 257 re-reads changed slice files on a reload but leaves the cgroups of slices that are
 * running as they were (252 applied them): the properties pmemramd writes are also set on the
 * running unit, as `systemctl set-property --runtime` does.  That leaves runtime drop-ins in
 * SYSTEMD_CONTROL_DIR, set again at every change and removed with the slice.
 */
#define SYSTEMD_CONTROL_DIR "/run/systemd/system.control"

static uint64_t protect_sum(const struct manager *m, const struct manager_class *states);

/* sd_bus message: the AllowedMemoryNodes= bitmask, node n at bit n % 8 of byte n / 8. */
static int append_nodes(sd_bus_message *msg, const struct pmemram_nodemask *mask)
{
	uint8_t bytes[PMEMRAM_MAX_NODES / 8] = {};
	size_t n = 0;

	for (unsigned node = 0; node < PMEMRAM_MAX_NODES; node++)
		if (pmemram_nodemask_test(mask, node)) {
			bytes[node / 8] |= (uint8_t)(1u << (node % 8));
			n = node / 8 + 1;
		}
	int r;

	r = sd_bus_message_open_container(msg, 'r', "sv");
	if (r >= 0)
		r = sd_bus_message_append(msg, "s", "AllowedMemoryNodes");
	if (r >= 0)
		r = sd_bus_message_open_container(msg, 'v', "ay");
	if (r >= 0)
		r = sd_bus_message_append_array(msg, 'y', bytes, n);
	if (r >= 0)
		r = sd_bus_message_close_container(msg);
	if (r >= 0)
		r = sd_bus_message_close_container(msg);
	return r;
}

/* SetUnitProperties(unit, runtime, ...): AllowedMemoryNodes= when mask, and MemoryLow=. */
static int set_running(sd_bus *bus, const char *unit, const struct pmemram_nodemask *mask, uint64_t low,
		       sd_bus_error *error)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *msg = NULL, *reply = NULL;
	int r;

	r = sd_bus_message_new_method_call(bus, &msg, "org.freedesktop.systemd1", "/org/freedesktop/systemd1",
					   "org.freedesktop.systemd1.Manager", "SetUnitProperties");
	if (r >= 0)
		r = sd_bus_message_append(msg, "sb", unit, 1);
	if (r >= 0)
		r = sd_bus_message_open_container(msg, 'a', "(sv)");
	if (r >= 0 && mask)
		r = append_nodes(msg, mask);
	if (r >= 0)
		r = sd_bus_message_append(msg, "(sv)", "MemoryLow", "t", low);
	if (r >= 0)
		r = sd_bus_message_close_container(msg);
	if (r >= 0)
		r = sd_bus_call(bus, msg, 0, error, &reply);
	return r;
}

/* The slices written in this pass, and pmemram.slice when parent_written, on their running units. */
static void apply_running(struct manager *m, const struct manager_class *states, bool parent_written)
{
	uint64_t sum = protect_sum(m, states);
	char unit[PMEMRAM_CLASS_NAME_MAX + 32];
	sd_bus *bus = NULL;
	int r;

	r = systemd_bus_open(&bus);
	for (size_t i = 0; r >= 0 && i <= m->config->n_classes; i++) {
		_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
		bool parent = i == m->config->n_classes;

		if (parent ? !parent_written : !states[i].written)
			continue;
		snprintf(unit, sizeof(unit), parent ? PMEMRAM_PARENT_SLICE : "pmemram-%s.slice", states[i].name);
		r = set_running(bus, unit, parent ? NULL : &states[i].mask, parent ? sum : states[i].protect, &error);
		if (r < 0)
			mevent(m, MANAGER_EVENT_CLASS_SLICES_FAILED, "cannot apply %s to its running unit: %s", unit,
			       error.message ? error.message : strerror(-r));
	}
	sd_bus_flush_close_unref(bus);
}

static void log_removed(const char *name, void *userdata)
{
	struct manager *m = userdata;
	char path[PATH_MAX];

	mlog(m, LOG_INFO, "removed %s/%s: its class is no longer configured", m->slice_dir, name);
	if (!m->slice_dir_is_systemds)
		return;
	/* and what apply_running() left in systemd's runtime drop-ins */
	for (size_t i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), SYSTEMD_CONTROL_DIR "/%s.d/50-%s.conf", name,
			 i ? "MemoryLow" : "AllowedMemoryNodes");
		(void)unlink(path);
	}
	snprintf(path, sizeof(path), SYSTEMD_CONTROL_DIR "/%s.d", name);
	(void)rmdir(path);
}

/* An event about one class, or information when e is _MANAGER_EVENT_INVALID. */
static void class_log(struct manager *m, enum manager_event e, const char *class, const char *format, ...)
	__attribute__((format(printf, 4, 5)));
static void class_log(struct manager *m, enum manager_event e, const char *class, const char *format, ...)
{
	char field[64], msg[512];
	const char *fields[] = { field, NULL };
	va_list args;

	(void)snprintf(field, sizeof(field), "PMEMRAM_CLASS=%s", class);
	va_start(args, format);
	(void)vsnprintf(msg, sizeof(msg), format, args);
	va_end(args);
	if (e == _MANAGER_EVENT_INVALID)
		manager_log(m, LOG_INFO, fields, "class %s: %s", class, msg);
	else
		manager_event(m, e, fields, "class %s: %s", class, msg);
}

/* With demotion on, the slow nodes demotion may take the class's pages to: logged when that changes. */
static void check_demotion(struct manager *m, const struct pmemram_class *c, const struct pmemram_topology *t,
			   const struct pmemram_nodemask *kmem, const struct pmemram_nodemask *mask,
			   struct manager_class *st)
{
	struct pmemram_nodemask escape = {};
	char nodes[sizeof(st->demotion_escape)] = "";

	if (m->demotion == 1)
		pmemram_class_demotion_escape(mask, t, kmem, &escape);
	(void)pmemram_nodemask_format(&escape, nodes, sizeof(nodes));
	if (nodes[0] && !streq(nodes, st->demotion_escape))
		class_log(m, MANAGER_EVENT_CLASS_DEMOTION_CONFLICT, c->name,
			  "demotion is on, and the kernel may demote pages of this class's units to node(s) %s, "
			  "outside nodes %s of its slice; %s",
			  nodes, st->nodes,
			  c->protect ? "protect = SIZE (" PMEMRAM_SLICE_PROTECT_KEY
				       "=) keeps that much of them from reclaim"
				     : "set demotion = off, or protect = SIZE in the class (" PMEMRAM_SLICE_PROTECT_KEY
				       "= on its slice)");
	snprintf(st->demotion_escape, sizeof(st->demotion_escape), "%s", nodes);
}

/* One class: resolve, and write its slice when that changes it; *changed set when it did. */
static void apply_class(struct manager *m, int dir_fd, const struct pmemram_class *c, const struct pmemram_topology *t,
			const struct pmemram_nodemask *kmem, struct manager_class *st, bool *changed)
{
	_cleanup_(freep) char *text = NULL;
	struct pmemram_nodemask mask;
	char origin[PATH_MAX + 16], why[256] = "";
	int r;

	snprintf(st->name, sizeof(st->name), "%s", c->name);
	r = pmemram_class_resolve(c, t, kmem, &mask, why, sizeof(why));
	if (r >= 0 && pmemram_nodemask_weight(&mask) == 0) {
		r = -ENXIO;
		snprintf(why, sizeof(why), "nodes = %s resolves to no node yet", c->nodes_text);
	}
	if (r >= 0)
		r = pmemram_nodemask_format(&mask, st->nodes, sizeof(st->nodes));
	if (r < 0) {
		/* Change nothing: a slice written before keeps its nodes. */
		if (!streq(st->error, why[0] ? why : strerror(-r)))
			class_log(m, MANAGER_EVENT_CLASS_UNRESOLVED, c->name, "%s; its slice is left as it was",
				  why[0] ? why : strerror(-r));
		snprintf(st->error, sizeof(st->error), "%s", why[0] ? why : strerror(-r));
		st->nodes[0] = '\0';
		return;
	}
	st->error[0] = '\0';
	check_demotion(m, c, t, kmem, &mask, st);

	r = pmemram_slice_render(c, st->nodes, pmemram_config_origin_to_string(m->config, c->defined, origin,
									       sizeof(origin)),
				 &text);
	if (r >= 0)
		r = pmemram_slice_write(dir_fd, c->name, text);
	if (r < 0) {
		snprintf(st->error, sizeof(st->error), "cannot write %s/pmemram-%s.slice: %s", m->slice_dir, c->name,
			 r == -EEXIST ? "a unit of that name that pmemramd did not write is there" : strerror(-r));
		class_log(m, MANAGER_EVENT_CLASS_SLICES_FAILED, c->name, "%s", st->error);
		return;
	}
	if (r > 0) {
		class_log(m, _MANAGER_EVENT_INVALID, c->name, "nodes = %s resolved to %s: wrote %s/pmemram-%s.slice",
			  c->nodes_text, st->nodes, m->slice_dir, c->name);
		*changed = true;
		st->written = true;
	}
	st->mask = mask;
	st->protect = c->protect;
}

/* Whether w has node at weight. */
static bool weights_have(const struct pmemram_weights *w, unsigned node, unsigned weight)
{
	for (size_t i = 0; i < w->n; i++)
		if (w->w[i].node == node)
			return w->w[i].weight == weight;
	return false;
}

/*
 * A weighted-interleave class that resolved: write the kernel's weight of each of its nodes that
 * differs.  The kernel has one weight per node for every process, so taken[] holds the weights the
 * classes before it in this pass set: another wanting a different one is refused.  A weight that
 * pmemramd wrote and finds changed was changed by another writer: said, and written again.
 */
static void apply_weights(struct manager *m, const struct pmemram_class *c, const struct pmemram_topology *t,
			  struct manager_class *st, unsigned *taken)
{
	struct pmemram_weights w, written = {};
	char why[256] = "", err[256] = "";
	unsigned n_written = 0;
	int r;

	st->weights[0] = '\0';
	st->wanted_weights = (struct pmemram_weights){};
	r = pmemram_class_weights(c, t, &st->mask, &w, why, sizeof(why));
	if (r >= 0) {
		st->wanted_weights = w;
		pmemram_weights_format(&w, st->weights, sizeof(st->weights));
		r = pmemram_weights_supported(m->ctx);
		if (r == 0)
			snprintf(err, sizeof(err),
				 "the kernel has no weighted interleave (Linux 6.9 and later): "
				 "pmemramctl run refuses the class");
		else if (r < 0)
			snprintf(err, sizeof(err), "cannot read %s: %s", PMEMRAM_WEIGHTS_DIR, strerror(-r));
	} else
		snprintf(err, sizeof(err), "%s", why[0] ? why : strerror(-r));

	/* All or nothing: a conflict on one node leaves the class's other nodes alone too. */
	for (size_t i = 0; !err[0] && i < w.n; i++)
		if (taken[w.w[i].node] && taken[w.w[i].node] != w.w[i].weight)
			snprintf(err, sizeof(err),
				 "node %u: weight %u, but a class before it wants %u, and the kernel has one weight per "
				 "node: that one stays",
				 w.w[i].node, w.w[i].weight, taken[w.w[i].node]);
	for (size_t i = 0; !err[0] && i < w.n; i++) {
		unsigned node = w.w[i].node, weight = w.w[i].weight, have = 0;
		char field[32], class_field[PMEMRAM_CLASS_NAME_MAX + 16];
		const char *fields[] = { class_field, field, NULL };

		taken[node] = weight;
		r = pmemram_weight_read(m->ctx, node, &have);
		if (r >= 0 && have == weight) {
			written.w[written.n++] = w.w[i];
			continue;
		}
		snprintf(field, sizeof(field), "PMEMRAM_NODE=%u", node);
		snprintf(class_field, sizeof(class_field), "PMEMRAM_CLASS=%s", c->name);
		if (r >= 0 && weights_have(&st->written_weights, node, weight))
			manager_event(m, MANAGER_EVENT_CLASS_WEIGHTS_CHANGED, fields,
				      "class %s: node %u's interleave weight is %u, not the %u pmemramd wrote: another "
				      "writer changed it; writing %u again",
				      c->name, node, have, weight, weight);
		r = pmemram_weight_write(m->ctx, node, weight);
		if (r < 0) {
			snprintf(err, sizeof(err), "cannot write %s/node%u: %s", PMEMRAM_WEIGHTS_DIR, node,
				 strerror(-r));
			break;
		}
		written.w[written.n++] = w.w[i];
		n_written++;
	}
	st->written_weights = written;
	if (n_written > 0)
		class_log(m, _MANAGER_EVENT_INVALID, c->name, "interleave weights %s written (%s)", st->weights,
			  c->weights_hmat ? "from the HMAT's read bandwidth" : "as configured");
	if (err[0] && !streq(err, st->weights_error))
		class_log(m, MANAGER_EVENT_CLASS_WEIGHTS_FAILED, c->name, "weights: %s", err);
	snprintf(st->weights_error, sizeof(st->weights_error), "%s", err);
}

/* The sum of the protections written to the classes' slices. */
static uint64_t protect_sum(const struct manager *m, const struct manager_class *states)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < m->config->n_classes; i++)
		if (states[i].nodes[0] && !states[i].error[0])
			sum = states[i].protect > UINT64_MAX - sum ? UINT64_MAX : sum + states[i].protect;
	return sum;
}

/* pmemram.slice with the sum of the classes' protections written to their slices, or removed
 * when there is none; *changed set when it changed. */
static void apply_parent(struct manager *m, int dir_fd, const struct manager_class *states, bool *changed,
			 bool *written)
{
	_cleanup_(freep) char *text = NULL;
	uint64_t sum = protect_sum(m, states);
	int r = 0;

	if (sum > 0)
		r = pmemram_parent_slice_render(sum, &text);
	if (r >= 0)
		r = pmemram_parent_slice_write(dir_fd, text);
	if (r < 0)
		mevent(m, MANAGER_EVENT_CLASS_SLICES_FAILED, "classes: cannot %s %s/" PMEMRAM_PARENT_SLICE ": %s",
		       text ? "write" : "remove", m->slice_dir,
		       r == -EEXIST ? "a unit of that name that pmemramd did not write is there" : strerror(-r));
	else if (r > 0) {
		mlog(m, LOG_INFO, "%s %s/" PMEMRAM_PARENT_SLICE " (the classes protect %" PRIu64 " bytes)",
		     text ? "wrote" : "removed", m->slice_dir, sum);
		*changed = true;
		*written = true;
	}
}

/* "512 MiB", "max", or why it could not be read. */
static const char *low_string(int r, uint64_t low, char *buf, size_t size)
{
	if (r < 0)
		snprintf(buf, size, "unreadable (%s)", strerror(-r));
	else if (low == UINT64_MAX)
		snprintf(buf, size, "max");
	else
		pmemram_format_size(low, buf, size);
	return buf;
}

/* Read back the memory.low systemd gave the class's slice cgroup, and pmemram.slice's, which
 * bounds it (parent_r and parent_low as pmemram_slice_read_protection() gave them, sum what
 * it should be); logged when it turns wrong. */
static void verify_protect(struct manager *m, struct manager_class *st, int parent_r, uint64_t parent_low, uint64_t sum)
{
	bool parent_short =
		st->protect > 0 &&
		(parent_r < 0 || (parent_r > 0 && parent_low < sum && !pmemram_protection_matches(sum, parent_low)));
	uint64_t low = 0;
	char a[32], b[64], c[64], d[32];
	int r, state;

	r = pmemram_slice_read_protection(m->ctx, st->name, &low);
	if (r == -ENOENT && st->protect == 0) /* no memory controller on the slice: nothing protected, as wanted */
		r = 1;
	state = r == 0 ? 0 : r > 0 && pmemram_protection_matches(st->protect, low) && !parent_short ? 1 : -1;
	if (state < 0 && (st->protect_state >= 0 || st->memory_low != low))
		class_log(m, MANAGER_EVENT_CLASS_SLICES_FAILED, st->name,
			  "protect = %s is not in effect: memory.low of its slice cgroup is %s, of " PMEMRAM_PARENT_SLICE
			  " %s (for %s in all classes)",
			  pmemram_format_size(st->protect, a, sizeof(a)), low_string(r, low, b, sizeof(b)),
			  parent_r == 0 ? "not there" : low_string(parent_r, parent_low, c, sizeof(c)),
			  pmemram_format_size(sum, d, sizeof(d)));
	st->protect_state = state;
	st->memory_low = low;
}

static void verify_protection(struct manager *m, struct manager_class *states)
{
	uint64_t parent_low = 0, sum = protect_sum(m, states);
	int parent_r = pmemram_slice_read_protection(m->ctx, NULL, &parent_low);

	for (size_t i = 0; i < m->config->n_classes; i++)
		if (states[i].nodes[0] && !states[i].error[0])
			verify_protect(m, &states[i], parent_r, parent_low, sum);
}

static void apply_demotion(struct manager *m)
{
	bool want = m->config->demotion == PMEMRAM_CONFIG_SWITCH_ON, now;
	int r;

	r = pmemram_demotion_read(m->ctx, &now);
	m->demotion = r < 0 ? -1 : now;
	if (m->config->demotion == PMEMRAM_CONFIG_SWITCH_KEEP)
		return;
	if (r == -ENOENT) {
		if (!m->demotion_absent_logged)
			mevent(m, MANAGER_EVENT_DEMOTION_UNSUPPORTED,
			       "demotion = %s, but this kernel has no /sys/kernel/mm/numa/demotion_enabled",
			       pmemram_config_switch_to_string(m->config->demotion));
		m->demotion_absent_logged = true;
		return;
	}
	if (r >= 0 && now == want)
		return;
	r = pmemram_demotion_write(m->ctx, want);
	if (r < 0) {
		mevent(m, MANAGER_EVENT_DEMOTION_FAILED, "cannot turn memory-tier demotion %s: %s", want ? "on" : "off", strerror(-r));
		return;
	}
	m->demotion = want;
	mlog(m, LOG_INFO, "memory-tier demotion turned %s (demotion = %s)", want ? "on" : "off",
	     pmemram_config_switch_to_string(m->config->demotion));
}

/* kernel.numa_balancing needs CAP_SYS_ADMIN to write, which the daemon does without: it writes its
 * wish as a sysctl.d file and has systemd-sysctl, which runs with every privilege, apply it. */
#define SYSCTL_FILE "/run/sysctl.d/50-pmemram-promotion.conf"
#define SYSCTL_HEADER "# Written by pmemramd for promotion and promotion-rate in pmemram.conf(5).\n"
#define SYSCTL_WAIT_USEC (1000 * 1000)

/* Whether the promotion sysctls read as wanted. */
static bool promotion_in_place(const struct manager *m, bool want)
{
	return m->promotion_r >= 0 && m->promotion.tiering == want &&
	       (m->config->promotion_rate == 0 || m->config->promotion_rate == m->promotion.rate_mbps);
}

/* systemctl restart systemd-sysctl.service, on systemd's private bus: it applies every sysctl.d
 * file again, ours included.  Returns once the job is queued. */
static int systemd_restart_sysctl(void)
{
	_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
	sd_bus *bus = NULL;
	int r;

	r = systemd_bus_open(&bus);
	if (r >= 0)
		r = sd_bus_call_method(bus, "org.freedesktop.systemd1", "/org/freedesktop/systemd1",
				       "org.freedesktop.systemd1.Manager", "RestartUnit", &error, NULL, "ss",
				       "systemd-sysctl.service", "replace");
	sd_bus_flush_close_unref(bus);
	return r;
}

/* Whether SYSCTL_FILE is there, written by pmemramd. */
static bool sysctl_file_ours(void)
{
	char head[sizeof(SYSCTL_HEADER)];
	FILE *f = fopen(SYSCTL_FILE, "re");
	bool ours;

	if (!f)
		return false;
	ours = fgets(head, sizeof(head), f) && streq(head, SYSCTL_HEADER);
	fclose(f);
	return ours;
}

static void apply_promotion(struct manager *m)
{
	const struct pmemram_config *c = m->config;
	bool want = c->promotion == PMEMRAM_CONFIG_SWITCH_ON;
	_cleanup_(freep) char *text = NULL;
	char rate[96] = "";
	uint64_t deadline;
	int r;

	m->promotion_r = pmemram_promotion_read(m->ctx, &m->promotion);
	if (c->promotion == PMEMRAM_CONFIG_SWITCH_KEEP && c->promotion_rate == 0) {
		/* Nothing wanted any more: the file goes, the sysctls stay as they are. */
		if (sysctl_file_ours())
			(void)unlink(SYSCTL_FILE);
		return;
	}
	if (m->promotion_r == -ENOENT) {
		if (!m->promotion_absent_logged)
			mevent(m, MANAGER_EVENT_PROMOTION_UNSUPPORTED,
			       "promotion is configured, but this kernel has no /proc/sys/kernel/numa_balancing");
		m->promotion_absent_logged = true;
		return;
	}
	if (m->promotion_r < 0)
		return;
	if (c->promotion == PMEMRAM_CONFIG_SWITCH_KEEP)
		want = m->promotion.tiering;
	if (promotion_in_place(m, want))
		return;

	if (c->promotion_rate)
		(void)snprintf(rate, sizeof(rate), "kernel.numa_balancing_promote_rate_limit_MBps = %" PRIu64 "\n",
			       c->promotion_rate);
	/* Bit 1 (balancing between the nodes of one tier) as it is now. */
	if (c->promotion == PMEMRAM_CONFIG_SWITCH_KEEP)
		r = asprintf(&text, SYSCTL_HEADER "%s", rate);
	else
		r = asprintf(&text, SYSCTL_HEADER "kernel.numa_balancing = %u\n%s",
			     want ? m->promotion.numa_balancing | 2u : m->promotion.numa_balancing & ~2u, rate);
	if (r < 0) {
		text = NULL;
		mevent(m, MANAGER_EVENT_PROMOTION_FAILED, "cannot set memory-tier promotion: out of memory");
		return;
	}
	r = file_write_atomic(SYSCTL_FILE, text, strlen(text), 0644, 0);
	if (r >= 0)
		r = systemd_restart_sysctl();
	if (r < 0) {
		mevent(m, MANAGER_EVENT_PROMOTION_FAILED,
		       "cannot set memory-tier promotion %s through %s and systemd-sysctl: %s", want ? "on" : "off",
		       SYSCTL_FILE, strerror(-r));
		return;
	}
	/* systemd-sysctl runs at once and takes milliseconds: wait for it, bounded. */
	deadline = now_usec(CLOCK_MONOTONIC) + SYSCTL_WAIT_USEC;
	do {
		(void)usleep(20 * 1000);
		m->promotion_r = pmemram_promotion_read(m->ctx, &m->promotion);
	} while (!promotion_in_place(m, want) && now_usec(CLOCK_MONOTONIC) < deadline);
	if (!promotion_in_place(m, want)) {
		mevent(m, MANAGER_EVENT_PROMOTION_FAILED,
		       "memory-tier promotion is not %s after systemd-sysctl applied %s: kernel.numa_balancing %u, rate limit %" PRIu64
		       " MB/s",
		       want ? "on" : "off", SYSCTL_FILE, m->promotion.numa_balancing, m->promotion.rate_mbps);
		return;
	}
	mlog(m, LOG_INFO,
	     "memory-tier promotion %s (kernel.numa_balancing %u, rate limit %" PRIu64 " MB/s), through %s",
	     want ? "on" : "off", m->promotion.numa_balancing, m->promotion.rate_mbps, SYSCTL_FILE);
}

/* The baseline of the nodes not seen before (and of the system, the first time): their counters now. */
static void note_node_counters(struct manager *m, const struct pmemram_topology *t)
{
	struct manager_node_counters *sc = &m->system_counters;

	if (!m->system_counters_known) {
		int n = pmemram_vmstat_read(m->ctx, sc->base, ELEMENTSOF(sc->base));

		sc->node = -1;
		sc->n = n >= 0 ? (size_t)n : 0;
		sc->since_usec = now_usec(CLOCK_REALTIME);
		m->system_counters_known = n >= 0; /* else tried again after the next reconcile */
	}
	for (size_t i = 0; i < t->n_nodes; i++) {
		struct manager_node_counters *nc;
		bool seen = false;
		int n;

		for (size_t k = 0; k < m->n_node_counters && !seen; k++)
			seen = m->node_counters[k].node == t->nodes[i].id;
		if (seen)
			continue;
		nc = reallocarray(m->node_counters, m->n_node_counters + 1, sizeof(*nc));
		if (!nc)
			return;
		m->node_counters = nc;
		nc = &m->node_counters[m->n_node_counters];
		n = pmemram_node_vmstat_read(m->ctx, t->nodes[i].id, nc->base, ELEMENTSOF(nc->base));
		if (n < 0) {
			mlog(m, LOG_DEBUG, "node %d: cannot read its vmstat: %s", t->nodes[i].id, strerror(-n));
			continue; /* tried again after the next reconcile */
		}
		nc->node = t->nodes[i].id;
		nc->n = (size_t)n;
		nc->since_usec = now_usec(CLOCK_REALTIME);
		m->n_node_counters++;
	}
}

int manager_apply_classes(struct manager *m, struct pmemram_topology **topology)
{
	_cleanup_(closep) int dir_fd = -1;
	struct pmemram_topology *t = NULL;
	struct pmemram_dax_list *dax = NULL;
	const struct pmemram_dax_list *kmem_dax = NULL;
	struct pmemram_nodemask kmem;
	const char **keep = NULL;
	struct manager_class *states;
	unsigned *taken; /* the interleave weight a class set for each node in this pass, 0 none */
	bool changed = false, parent_written = false, pruned;
	int r, removed;

	if (topology)
		*topology = NULL;
	apply_demotion(m);
	apply_promotion(m);
	/* No class configured, and the slices of earlier ones removed since the configuration was
	 * loaded: nothing to read or write after a reconcile. */
	if (m->config->n_classes == 0 && m->classes_pruned)
		return 0;

	states = calloc(m->config->n_classes ? m->config->n_classes : 1, sizeof(*states));
	keep = calloc(m->config->n_classes ? m->config->n_classes : 1, sizeof(*keep));
	taken = calloc(PMEMRAM_MAX_NODES, sizeof(*taken));
	if (!states || !keep || !taken) {
		free(states);
		free(keep);
		free(taken);
		return -ENOMEM;
	}
	/* Keep the last errors so that an unchanged one is not logged again. */
	for (size_t i = 0; i < m->config->n_classes; i++) {
		const struct manager_class *old = manager_find_class(m, m->config->classes[i].name);

		if (old)
			states[i] = *old;
		snprintf(states[i].name, sizeof(states[i].name), "%s", m->config->classes[i].name);
		keep[i] = m->config->classes[i].name;
	}

	/* The dax devices as the reconcile just left them (its verified results carried in), or
	 * read when it could not read the system. */
	r = pmemram_topology_read(m->ctx, &t);
	if (r >= 0 && m->last && m->last->observation)
		kmem_dax = m->last->observation->dax;
	else if (r >= 0)
		r = pmemram_dax_list_read(m->ctx, &dax);
	if (r >= 0 && !kmem_dax)
		kmem_dax = dax;
	if (r < 0) {
		mevent(m, MANAGER_EVENT_CLASS_SLICES_FAILED, "classes: cannot read the system: %s", strerror(-r));
		for (size_t i = 0; i < m->config->n_classes; i++)
			snprintf(states[i].error, sizeof(states[i].error), "cannot read the system: %s", strerror(-r));
		goto done;
	}
	pmemram_kmem_nodes(kmem_dax, &kmem);
	note_node_counters(m, t);

	(void)mkdir(m->slice_dir, 0755);
	dir_fd = open(m->slice_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir_fd < 0) {
		r = negative_errno();
		mevent(m, MANAGER_EVENT_CLASS_SLICES_FAILED, "classes: cannot open %s: %s", m->slice_dir, strerror(-r));
		for (size_t i = 0; i < m->config->n_classes; i++)
			snprintf(states[i].error, sizeof(states[i].error), "cannot open %s: %s", m->slice_dir, strerror(-r));
		goto done;
	}
	for (size_t i = 0; i < m->config->n_classes; i++) {
		apply_class(m, dir_fd, &m->config->classes[i], t, &kmem, &states[i], &changed);
		if (m->config->classes[i].mode == PMEMRAM_CLASS_WEIGHTED_INTERLEAVE && !states[i].error[0])
			apply_weights(m, &m->config->classes[i], t, &states[i], taken);
		else {
			states[i].weights[0] = states[i].weights_error[0] = '\0';
			states[i].wanted_weights = (struct pmemram_weights){};
		}
	}
	apply_parent(m, dir_fd, states, &changed, &parent_written);
	removed = pmemram_slice_prune(dir_fd, keep, m->config->n_classes, log_removed, m);
	if (removed < 0)
		mevent(m, MANAGER_EVENT_CLASS_SLICES_FAILED, "classes: cannot remove old slices from %s: %s", m->slice_dir,
		       strerror(-removed));
	pruned = removed >= 0;
	/* A reload that failed is owed until one succeeds: the files are already as wanted. */
	if (changed || removed > 0 || m->slice_reload_pending) {
		m->slice_reload_pending = true;
		if (m->slice_dir_is_systemds)
			r = systemd_reload(m);
		if (r >= 0 && m->slice_dir_is_systemds)
			apply_running(m, states, parent_written);
		if (r >= 0) {
			m->n_slice_reloads++;
			m->slice_reload_pending = false;
		}
	}
	if (!m->slice_reload_pending)
		verify_protection(m, states);
	r = 0;
	m->classes_pruned = m->config->n_classes == 0 && pruned && !m->slice_reload_pending;
done:
	free(m->classes);
	m->classes = states;
	m->n_classes = m->config->n_classes;
	free(keep);
	free(taken);
	if (topology)
		*topology = TAKE_PTR(t);
	pmemram_topology_free(t);
	pmemram_dax_list_free(dax);
	return r;
}

const struct manager_class *manager_find_class(const struct manager *m, const char *name)
{
	for (size_t i = 0; i < m->n_classes; i++)
		if (streq(m->classes[i].name, name))
			return &m->classes[i];
	return NULL;
}

struct json_object *manager_classes_json(const struct manager *m)
{
	_cleanup_(freep) struct pmemram_numa_usage *usage = calloc(1, sizeof(*usage));
	struct json_object *a = usage ? json_object_new_array() : NULL;

	for (size_t i = 0; a && i < m->n_classes; i++) {
		const struct manager_class *st = &m->classes[i];
		const struct pmemram_class *c = m->config ? pmemram_config_find_class(m->config, st->name) : NULL;
		struct json_object *o = json_object_new_object();
		char slice[PMEMRAM_CLASS_NAME_MAX + 16] = "";
		struct pmemram_nodemask nodes;
		bool ok = o, resolved = st->nodes[0] && pmemram_parse_range_list(st->nodes, &nodes) >= 0;
		int r = pmemram_slice_read_usage(m->ctx, st->name, usage);

		(void)pmemram_slice_name(st->name, slice, sizeof(slice));
		ok = ok && json_add(o, "class", json_object_new_string(st->name));
		ok = ok && json_add(o, "slice", json_object_new_string(slice));
		ok = ok && json_add_string_or_null(o, "nodes", st->nodes[0] ? st->nodes : NULL);
		ok = ok && json_add_string_or_null(o, "error", st->error[0] ? st->error : NULL);
		/* The slice only fences: preferred and interleave are pmemramctl run's alone. */
		ok = ok && json_add_string_or_null(o, "mode", c ? pmemram_class_mode_to_string(c->mode) : NULL);
		ok = ok && (c ? json_add(o, "mode_in_slice", json_object_new_boolean(c->mode == PMEMRAM_CLASS_BIND))
			      : json_add_null_value(o, "mode_in_slice"));
		ok = ok && json_add_string_or_null(o, "weights", st->weights[0] ? st->weights : NULL);
		ok = ok && json_add_string_or_null(o, "weights_error", st->weights_error[0] ? st->weights_error : NULL);
		ok = ok && json_add(o, "protect", json_object_new_int64((int64_t)st->protect));
		/* null: not known yet, or no protection and none left over */
		ok = ok && (st->protect_state == 0 || (st->protect == 0 && st->protect_state > 0)
				    ? json_add_null_value(o, "protect_in_effect")
				    : json_add(o, "protect_in_effect", json_object_new_boolean(st->protect_state > 0)));
		/* what its units use now: null before the slice has a cgroup */
		ok = ok && pmemram_numa_usage_to_json(o, r, usage, resolved ? &nodes : NULL);
		if (!ok)
			json_object_putp(&o);
		if (!json_append(a, o)) {
			json_object_put(a);
			return NULL;
		}
	}
	return a;
}

/* The increase of nc's counters, read now; NULL when they cannot be read (or no memory). */
static struct json_object *counters_json(const struct manager *m, const struct manager_node_counters *nc)
{
	struct pmemram_vmstat_counter now[PMEMRAM_VMSTAT_MAX];
	struct json_object *o;
	int n = nc->node < 0 ? pmemram_vmstat_read(m->ctx, now, ELEMENTSOF(now))
			     : pmemram_node_vmstat_read(m->ctx, nc->node, now, ELEMENTSOF(now));

	if (n < 0)
		return NULL;
	o = pmemram_vmstat_to_json(now, (size_t)n, nc->base, nc->n);
	if ((nc->node >= 0 && !json_add(o, "node", json_object_new_int(nc->node))) ||
	    !json_add(o, "since_usec", json_object_new_uint64(nc->since_usec)))
		json_object_putp(&o);
	return o;
}

struct json_object *manager_tiering_counters_json(const struct manager *m)
{
	struct json_object *o = json_object_new_object(), *a = json_object_new_array(), *system = NULL;
	bool ok = json_add(o, "nodes", a);

	/* a node whose vmstat cannot be read now is left out */
	for (size_t i = 0; ok && i < m->n_node_counters; i++) {
		struct json_object *c = counters_json(m, &m->node_counters[i]);

		ok = !c || json_append(a, c);
	}
	if (ok && m->system_counters_known)
		system = counters_json(m, &m->system_counters);
	ok = ok && (system ? json_add(o, "system", system) : json_add_null_value(o, "system"));
	if (!ok)
		json_object_putp(&o);
	return o;
}
