/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmemramd: configuration, reconcile glue, holds and the status it reports. */
#include <fcntl.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>

#include <json-c/json.h>
#include "json-util.h"
#include <systemd/sd-daemon.h>

#include "fileio.h"
#include "macro.h"
#include "manager.h"
#include "pmemram-observe.h"
#include "pmemram-protocol.h"
#include "pmemram-provenance.h"

/* ---- configuration ----------------------------------------------------------------------- */

static void config_errors_join(const struct manager *m, const struct pmemram_config_errors *e, int r,
			       char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < e->n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s/%s", i ? "; " : "", m->config_dir, e->msg[i]);
	if (e->n_dropped > 0 && len < size)
		len += (size_t)snprintf(buf + len, size - len, "; and %zu more errors", e->n_dropped);
	if (e->n == 0 && len < size)
		(void)snprintf(buf + len, size - len, "%s: %s", m->config_dir, strerror(-r));
}

/* Read what the shuffle policy needs and evaluate it into m->shuffle; topology NULL: read it. */
static int evaluate_shuffle(struct manager *m, const struct pmemram_topology *topology)
{
	_cleanup_(freep) struct pmemram_shuffle *k = NULL;
	_cleanup_(freep) char *cmdline = NULL;
	struct pmemram_topology *t = NULL;
	struct pmemram_bootparam boot = {};
	int r;

	m->shuffle_known = false;
	k = malloc(sizeof(*k)); /* a slot per possible node: not on the stack */
	if (!k)
		return -ENOMEM;
	r = pmemram_shuffle_read(m->ctx, k);
	if (r >= 0 && !topology) {
		r = pmemram_topology_read(m->ctx, &t);
		topology = t;
	}
	if (r >= 0)
		r = pmemram_cmdline_read(m->ctx, &cmdline);
	if (r >= 0)
		r = pmemram_bootparam_read("/", &pmemram_boot_shuffle, &boot);
	if (r >= 0)
		r = pmemram_shuffle_policy_evaluate_config(m->config, k, topology, cmdline, &boot, &m->shuffle);
	pmemram_topology_free(t);
	if (r >= 0)
		m->shuffle_known = true;
	return r;
}

/* Evaluate and log the shuffle policy of the configuration in force; failures only say so.  On a
 * kernel that switches nodes at runtime the reconcile that follows puts the nodes right. */
static void check_shuffle(struct manager *m)
{
	char field[64];
	const char *fields[] = { field, NULL }, *policy;
	int r;

	m->shuffle_refused = (struct pmemram_nodemask){};
	r = evaluate_shuffle(m, NULL);
	if (r < 0) {
		mevent(m, MANAGER_EVENT_SHUFFLE_UNKNOWN, "cannot evaluate the shuffle policy: %s", strerror(-r));
		return;
	}
	snprintf(field, sizeof(field), "PMEMRAM_SHUFFLE_POLICY=%s",
		 pmemram_shuffle_policy_state_to_string(m->shuffle.state));
	policy = pmemram_config_shuffle_to_string(m->shuffle.policy);
	if (m->shuffle.live && m->shuffle.state == PMEMRAM_SHUFFLE_POLICY_NOT_APPLIED && !m->shuffle.remove_ours)
		/* the reconcile that follows writes the nodes and logs each */
		manager_log(m, LOG_DEBUG, fields, "shuffle policy %s: %s", policy, m->shuffle.text);
	else if (m->shuffle.state == PMEMRAM_SHUFFLE_POLICY_IN_EFFECT || (m->shuffle.live && !m->shuffle.remove_ours))
		manager_log(m, LOG_INFO, fields, "shuffle policy %s: %s", policy, m->shuffle.text);
	else
		manager_event(m,
			      m->shuffle.state == PMEMRAM_SHUFFLE_POLICY_NEXT_BOOT ? MANAGER_EVENT_SHUFFLE_NEXT_BOOT
										   : MANAGER_EVENT_SHUFFLE_DRIFT,
			      fields, "shuffle policy %s: %s", policy, m->shuffle.text);
}

/* Evaluate and log the hotplug policy of the configuration in force: in effect at info, pending a reboot
 * at notice, not applied (or nowhere to write it) as a warning; a failure only says so. */
static void check_hotplug(struct manager *m)
{
	struct pmemram_hotplug_running k;
	struct pmemram_bootparam boot;
	char field[64];
	const char *fields[] = { field, NULL }, *policy;
	int r;

	m->hotplug_known = false;
	r = pmemram_hotplug_running_read(m->ctx, &k);
	if (r >= 0)
		r = pmemram_bootparam_read("/", &pmemram_boot_hotplug, &boot);
	if (r >= 0)
		r = pmemram_hotplug_policy_evaluate_config(m->config, &k, &boot, &m->hotplug);
	if (r < 0) {
		mevent(m, MANAGER_EVENT_HOTPLUG_UNKNOWN, "cannot evaluate the hotplug policy: %s", strerror(-r));
		return;
	}
	m->hotplug_known = true;
	snprintf(field, sizeof(field), "PMEMRAM_HOTPLUG_POLICY=%s",
		 pmemram_hotplug_policy_state_to_string(m->hotplug.state));
	policy = pmemram_config_hotplug_to_string(m->hotplug.policy);
	if (m->hotplug.state == PMEMRAM_HOTPLUG_POLICY_IN_EFFECT)
		manager_log(m, LOG_INFO, fields, "hotplug policy %s: %s", policy, m->hotplug.text);
	else
		manager_event(m,
			      m->hotplug.state == PMEMRAM_HOTPLUG_POLICY_NEXT_BOOT ? MANAGER_EVENT_HOTPLUG_NEXT_BOOT
										   : MANAGER_EVENT_HOTPLUG_DRIFT,
			      fields, "hotplug policy %s: %s", policy, m->hotplug.text);
}

/* A node refused or failed: reported once, then left alone (m->shuffle_refused). */
static void shuffle_refused(struct manager *m, int node, enum manager_event e, const char *format, ...) _printf_(4, 5);
static void shuffle_refused(struct manager *m, int node, enum manager_event e, const char *format, ...)
{
	char field[32], text[256];
	const char *fields[] = { field, NULL };
	va_list args;

	pmemram_nodemask_set(&m->shuffle_refused, (unsigned)node);
	snprintf(field, sizeof(field), "PMEMRAM_NODE=%d", node);
	va_start(args, format);
	(void)vsnprintf(text, sizeof(text), format, args);
	va_end(args);
	manager_event(m, e, fields, "%s", text);
}

void manager_apply_shuffle(struct manager *m, const struct pmemram_topology *topology)
{
	const char *policy;
	unsigned n_written = 0;
	int r;

	/* Only a kernel that switches nodes at runtime (as the last evaluation found) has anything to
	 * write; on it, cheap when nothing differs: the nodes' two small files, /proc/cmdline, the boot
	 * file. */
	if (!m->shuffle.live)
		return;
	r = evaluate_shuffle(m, topology);
	if (r < 0) {
		mlog(m, LOG_DEBUG, "shuffle: cannot evaluate the policy: %s", strerror(-r));
		return;
	}
	if (!m->shuffle.live)
		return; /* the boot parameter: pmemramctl shuffle apply writes it */
	policy = pmemram_config_shuffle_to_string(m->shuffle.policy);
	for (size_t i = 0; i < m->shuffle.n_nodes; i++) {
		const struct pmemram_shuffle_policy_node *n = &m->shuffle.nodes[i];
		bool enable = n->action == PMEMRAM_SHUFFLE_NODE_ENABLE;

		if (n->action == PMEMRAM_SHUFFLE_NODE_KEEP ||
		    pmemram_nodemask_test(&m->shuffle_refused, (unsigned)n->node))
			continue;
		if (n->action == PMEMRAM_SHUFFLE_NODE_FORCED_OFF) {
			shuffle_refused(m, n->node, MANAGER_EVENT_SHUFFLE_FORCED_OFF,
					"shuffle policy %s: node %d not shuffled: forced off by page_alloc.shuffle=0 "
					"on the kernel command line",
					policy, n->node);
			continue;
		}
		r = pmemram_shuffle_node_write(m->ctx, n->node, enable);
		if (r == -EPERM)
			shuffle_refused(m, n->node, MANAGER_EVENT_SHUFFLE_FORCED_OFF,
					"shuffle policy %s: node %d not shuffled: forced off by page_alloc.shuffle=0 "
					"on the kernel command line (the kernel refused the write)",
					policy, n->node);
		else if (r < 0)
			shuffle_refused(m, n->node, MANAGER_EVENT_SHUFFLE_SWITCH_FAILED,
					"shuffle policy %s: cannot %s node %d's shuffling: %s", policy,
					enable ? "switch on" : "switch off", n->node, strerror(-r));
		else {
			n_written++;
			mlog(m, LOG_INFO, "shuffle policy %s: node %d %s (its reason was %s)", policy, n->node,
			     enable ? "shuffled" : "no longer shuffled", n->reason);
		}
	}
	/* Status shows the nodes as they are now. */
	if (n_written > 0 && evaluate_shuffle(m, topology) < 0)
		mlog(m, LOG_DEBUG, "shuffle: cannot read the nodes back");
}

/* Journal what became of daxctl.conf.d: its warnings, claims and conflicts (redundant, merged and
 * mode = devdax sections only at info). */
static void log_daxctl(struct manager *m, const struct pmemram_config *c, const struct pmemram_config_errors *w)
{
	for (size_t i = 0; i < w->n; i++)
		mevent(m, MANAGER_EVENT_DAXCTL_WARNING, "%s", w->msg[i]);
	if (w->n_dropped > 0)
		mevent(m, MANAGER_EVENT_DAXCTL_WARNING, "... and %zu more warnings on %s", w->n_dropped, m->daxctl_dir);

	for (size_t i = 0; i < c->n_daxctl; i++) {
		const struct pmemram_daxctl_section *s = &c->daxctl[i];
		char origin[PATH_MAX + 16], f_claim[96], f_origin[PATH_MAX + 32];
		const char *fields[] = { f_claim, f_origin, NULL };

		pmemram_config_origin_to_string(c, s->defined, origin, sizeof(origin));
		(void)snprintf(f_claim, sizeof(f_claim), "PMEMRAM_CLAIM=%s", s->claim);
		(void)snprintf(f_origin, sizeof(f_origin), "PMEMRAM_ORIGIN=%s", origin);
		if (s->state == PMEMRAM_DAXCTL_CLAIMED)
			manager_event(m, MANAGER_EVENT_DAXCTL_CLAIM, fields, "claim '%s' from %s: uuid %s, online = %s",
				      s->claim, origin, s->uuid, s->movable ? "movable" : "normal");
		else if (s->state == PMEMRAM_DAXCTL_CONFLICT)
			manager_event(m, MANAGER_EVENT_DAXCTL_CONFLICT, fields, "%s: section '%s' conflicts: %s",
				      origin, s->name, s->text);
		else if (s->state == PMEMRAM_DAXCTL_REDUNDANT)
			mlog(m, LOG_INFO, "%s: section '%s' is redundant: %s", origin, s->name, s->text);
		else if (s->state == PMEMRAM_DAXCTL_MERGED ||
			 (s->state == PMEMRAM_DAXCTL_SKIPPED && !s->invalid && !s->system_ram)) /* mode = devdax */
			mlog(m, LOG_INFO, "%s: section '%s': %s", origin, s->name, s->text);
	}
}

/* Add daxctl.conf.d's claims to c (unless it says daxctl-conf = no): 0, or -ENOMEM. */
static int load_daxctl(struct manager *m, struct pmemram_config *c)
{
	struct pmemram_config_errors warnings = {};
	_cleanup_(closep) int fd = -1;
	int r = 0;

	if (!c->daxctl_conf)
		return 0;
	fd = open(m->daxctl_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 && errno != ENOENT)
		pmemram_config_errors_add(&warnings, m->daxctl_dir, 0, "cannot open: %m");
	if (fd >= 0)
		r = pmemram_daxctl_load(c, fd, m->daxctl_dir, &warnings);
	if (r < 0)
		return r;
	log_daxctl(m, c, &warnings);
	return 0;
}

int manager_load_config(struct manager *m, bool initial)
{
	struct pmemram_config_errors errors = {};
	struct pmemram_config *c = NULL;
	_cleanup_(closep) int fd = -1;
	bool configured = true;
	int r;

	fd = open(m->config_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 && errno != ENOENT) {
		r = negative_errno();
		pmemram_config_errors_add(&errors, m->config_dir, 0, "cannot open: %s", strerror(-r));
	} else {
		r = fd < 0 ? -ENOENT : pmemram_config_load(fd, &c, &errors);
	}

	if (r == -ENOENT) {
		configured = false;
		r = pmemram_config_new(&c);
		if (r < 0)
			return r;
	}
	if (r >= 0) {
		r = load_daxctl(m, c);
		if (r < 0) {
			pmemram_config_free(c);
			return r;
		}
		configured = configured || c->n_claims > 0;
	}
	if (r < 0) {
		config_errors_join(m, &errors, r, m->config_error, sizeof(m->config_error));
		for (size_t i = 0; i < errors.n; i++)
			mevent(m, MANAGER_EVENT_CONFIG_ERROR, "%s/%s", m->config_dir, errors.msg[i]);
		if (errors.n_dropped > 0)
			mevent(m, MANAGER_EVENT_CONFIG_ERROR, "... and %zu more configuration errors",
			       errors.n_dropped);
		if (errors.n == 0)
			mevent(m, MANAGER_EVENT_CONFIG_ERROR, "cannot load the configuration in %s: %s", m->config_dir,
			       strerror(-r));
		if (!initial)
			mevent(m, MANAGER_EVENT_RELOAD_REJECTED,
			       "configuration reload failed: keeping the configuration loaded %s",
			       m->configured ? "before" : "(none: nothing claimed)");
		return r;
	}

	pmemram_config_free(m->config);
	m->config = c;
	m->classes_pruned = false; /* the next classes step looks at the slices again */
	m->configured = configured;
	m->config_error[0] = '\0';
	m->config_loaded_usec = now_usec(CLOCK_REALTIME);
	if (configured)
		mlog(m, LOG_INFO, "configuration loaded from %s: %zu claims in %zu files", m->config_dir, c->n_claims,
		     c->n_files);
	else
		mevent(m, MANAGER_EVENT_NO_CONFIG, "no configuration in %s: nothing is claimed", m->config_dir);
	check_shuffle(m);
	check_hotplug(m);
	return 0;
}

/* ---- holds ---------------------------------------------------------------------------------- */

bool manager_is_held(const struct manager *m, const char *device)
{
	for (size_t i = 0; i < m->n_held; i++)
		if (streq(m->held[i], device))
			return true;
	return false;
}

/* Write runtime_dir/held atomically: one device per line, "daxX.Y IDENTITY". */
static int save_held(struct manager *m)
{
	_cleanup_(freep) char *text = NULL;
	char path[PATH_MAX];
	size_t size = 0;
	FILE *f;
	int r;

	if (!m->runtime_dir)
		return 0;
	(void)snprintf(path, sizeof(path), "%s/" PMEMRAM_HELD_FILE, m->runtime_dir);
	f = open_memstream(&text, &size);
	if (!f)
		goto oom;
	for (size_t i = 0; i < m->n_held; i++)
		fprintf(f, "%s%s%s\n", m->held[i], m->held_id[i] ? " " : "", m->held_id[i] ? m->held_id[i] : "");
	if (fclose(f) != 0)
		goto oom;
	r = file_write_atomic(path, text ? text : "", size, 0644, 0);
	if (r < 0) {
		mevent(m, MANAGER_EVENT_HELD_UNSAVED, "cannot write %s: %s", path, strerror(-r));
		return -EIO;
	}
	return 0;
oom:
	mevent(m, MANAGER_EVENT_HELD_UNSAVED, "cannot write %s: out of memory", path);
	return -ENOMEM;
}

int manager_hold(struct manager *m, const char *device)
{
	char id[PMEMRAM_DEVICE_IDENTITY_MAX];
	int r;

	if (manager_is_held(m, device))
		return 0;
	if (m->n_held >= PMEMRAM_HELD_MAX)
		return -E2BIG;
	/* The hold is for this device, not for whatever takes its name later. */
	r = pmemram_dax_identity_read(m->ctx, device, id, sizeof(id));
	if (r < 0)
		return r;
	m->held[m->n_held] = strdup(device);
	m->held_id[m->n_held] = strdup(id);
	if (!m->held[m->n_held] || !m->held_id[m->n_held]) {
		free(m->held[m->n_held]);
		free(m->held_id[m->n_held]);
		m->held[m->n_held] = m->held_id[m->n_held] = NULL;
		return -ENOMEM;
	}
	m->n_held++;
	return save_held(m);
}

int manager_unhold(struct manager *m, const char *device)
{
	for (size_t i = 0; i < m->n_held; i++)
		if (streq(m->held[i], device)) {
			free(m->held[i]);
			free(m->held_id[i]);
			m->n_held--;
			m->held[i] = m->held[m->n_held];
			m->held_id[i] = m->held_id[m->n_held];
			return save_held(m);
		}
	return -ENOENT;
}

/* A hold stands for the memory of one device given back.  It goes when the device is gone, when
 * another device took its name (a namespace destroyed and created again), and, at start, when the
 * device is still bound to kmem: a release that never ended (the daemon was killed or crashed in
 * it) gave nothing back, and reconcile puts any block it offlined back online.  While the daemon
 * runs, a hold on a kmem device is one a release left incomplete on purpose: it stays. */
void manager_drop_stale_holds(struct manager *m, bool at_start)
{
	_cleanup_(pmemram_dax_list_freep) struct pmemram_dax_list *l = NULL;
	int r;

	if (m->n_held == 0)
		return;
	r = pmemram_dax_list_read(m->ctx, &l);
	if (r < 0) {
		mevent(m, MANAGER_EVENT_HELD_UNREADABLE, "cannot read the dax devices to check the holds: %s",
		       strerror(-r));
		return;
	}
	for (size_t i = m->n_held; i-- > 0;) {
		const struct pmemram_dax *d = NULL;
		char now[PMEMRAM_DEVICE_IDENTITY_MAX], why[160];
		_cleanup_(freep) char *name = strdup(m->held[i]);

		if (!name)
			return;
		for (size_t k = 0; k < l->n_devices; k++)
			if (streq(l->devices[k].name, name))
				d = &l->devices[k];
		if (!d)
			(void)snprintf(why, sizeof(why), "the device is gone");
		else if (m->held_id[i] && pmemram_dax_identity(m->ctx, d, now, sizeof(now)) >= 0 &&
			 !streq(now, m->held_id[i]))
			(void)snprintf(why, sizeof(why), "another device has its name now (%s, the hold was for %s)", now,
				       m->held_id[i]);
		else if (at_start && d->mode == PMEMRAM_DAX_SYSTEM_RAM)
			(void)snprintf(why, sizeof(why),
				       "still bound to kmem, an earlier release did not end; its memory was not given back");
		else
			continue;
		pmemram_ctx_clear_error(m->ctx);
		(void)manager_unhold(m, name);
		manager_device_event(m, MANAGER_EVENT_HOLD_DROPPED, name, "%s: hold dropped: %s", name, why);
	}
}

int manager_load_held(struct manager *m)
{
	int r;

	if (!m->runtime_dir)
		return 0;
	r = pmemram_held_read(m->runtime_dir, m->held, m->held_id, &m->n_held);
	if (r < 0)
		return r;
	manager_drop_stale_holds(m, true);
	for (size_t i = 0; i < m->n_held; i++)
		mlog(m, LOG_INFO, "%s: still held by an earlier release (%s/" PMEMRAM_HELD_FILE ")", m->held[i],
		     m->runtime_dir);
	return 0;
}

/* runtime_dir's record of auto_online_blocks (PMEMRAM_AUTO_ONLINE_NAME) into buf; NULL when the
 * configuration turns the kernel's onlining during the bind off, or there is no runtime_dir. */
static const char *auto_online_record(const struct manager *m, char *buf, size_t size)
{
	int n;

	if (!m->runtime_dir || (m->config && !m->config->online_at_bind))
		return NULL;
	n = snprintf(buf, size, "%s/" PMEMRAM_AUTO_ONLINE_NAME, m->runtime_dir);
	return n < 0 || (size_t)n >= size ? NULL : buf;
}

void manager_undo_auto_online(struct manager *m)
{
	char path[PATH_MAX], value[32];
	int r;

	if (!m->runtime_dir)
		return;
	(void)snprintf(path, sizeof(path), "%s/" PMEMRAM_AUTO_ONLINE_NAME, m->runtime_dir);
	r = pmemram_apply_undo_auto_online(m->ctx, path, value, sizeof(value));
	if (r > 0)
		mevent(m, MANAGER_EVENT_AUTO_ONLINE_RESTORED,
		       "auto_online_blocks put back to '%s', as %s recorded: a kmem bind was interrupted", value, path);
	else if (r < 0)
		mevent(m, MANAGER_EVENT_AUTO_ONLINE_STUCK,
		       "cannot put back the auto_online_blocks value recorded in %s: %s", path, strerror(-r));
}

/* ---- reconcile ------------------------------------------------------------------------------- */

static const struct pmemram_device_verdict *find_verdict(const struct pmemram_plan *plan, const char *device)
{
	for (size_t i = 0; plan && i < plan->n_verdicts; i++)
		if (streq(plan->verdicts[i].device, device))
			return &plan->verdicts[i];
	return NULL;
}

/* An action result's journal fields, NULL-terminated: the first RESULT_FIELDS_BASE are its
 * device, action, status and claim; its block and errno follow when it has them. */
#define RESULT_FIELDS_BASE 4
struct result_fields {
	char dev[64], action[64], status[48], claim[96], block[48], err[32];
	const char *list[RESULT_FIELDS_BASE + 3];
};

static const char *const *result_fields(const struct pmemram_apply_result *res, struct result_fields *f)
{
	size_t n = 0;

	(void)snprintf(f->dev, sizeof(f->dev), "PMEMRAM_DEVICE=%s", res->action.device);
	(void)snprintf(f->action, sizeof(f->action), "PMEMRAM_ACTION=%s",
		       pmemram_action_type_to_string(res->action.type));
	(void)snprintf(f->status, sizeof(f->status), "PMEMRAM_STATUS=%s", pmemram_apply_status_to_string(res->status));
	(void)snprintf(f->claim, sizeof(f->claim), "PMEMRAM_CLAIM=%s", res->action.claim);
	f->list[n++] = f->dev;
	f->list[n++] = f->action;
	f->list[n++] = f->status;
	f->list[n++] = f->claim;
	if (res->action.type == PMEMRAM_ACTION_ONLINE_BLOCK || res->action.type == PMEMRAM_ACTION_OFFLINE_BLOCK) {
		(void)snprintf(f->block, sizeof(f->block), "PMEMRAM_BLOCK=memory%lu", res->action.block);
		f->list[n++] = f->block;
	}
	if (res->result < 0) {
		(void)snprintf(f->err, sizeof(f->err), "ERRNO=%d", -res->result);
		f->list[n++] = f->err;
	}
	f->list[n] = NULL;
	return f->list;
}

static void log_result(struct manager *m, const struct pmemram_apply_result *res)
{
	struct result_fields f;
	const char *const *fields = result_fields(res, &f);

	if (res->status == PMEMRAM_APPLY_FAILED)
		manager_event(m, MANAGER_EVENT_ACTION_FAILED, fields, "%s", res->reason);
	else if (res->status == PMEMRAM_APPLY_DONE && res->action.type == PMEMRAM_ACTION_CONVERT_NAMESPACE)
		manager_event(m, MANAGER_EVENT_NAMESPACE_CONVERTED, fields, "%s", res->reason);
	else if (res->status == PMEMRAM_APPLY_DONE && res->action.type == PMEMRAM_ACTION_CREATE_NAMESPACE)
		manager_event(m, MANAGER_EVENT_NAMESPACE_CREATED, fields, "%s", res->reason);
	else if (res->status == PMEMRAM_APPLY_DONE || res->status == PMEMRAM_APPLY_CHANGED)
		manager_log(m, LOG_INFO, fields, "%s", res->reason);
	else if (pmemram_ctx_get_log_priority(m->ctx) >= LOG_DEBUG)
		manager_log(m, LOG_DEBUG, fields, "%s", res->reason);
}

/* A verdict's event: online, refused, failed; pending and ignored are information. */
static enum manager_event verdict_event(enum pmemram_verdict verdict)
{
	switch (verdict) {
	case PMEMRAM_VERDICT_CONVERGED:
		return MANAGER_EVENT_DEVICE_ONLINE;
	case PMEMRAM_VERDICT_REFUSED:
		return MANAGER_EVENT_DEVICE_REFUSED;
	case PMEMRAM_VERDICT_FAILED:
		return MANAGER_EVENT_DEVICE_FAILED;
	default:
		return _MANAGER_EVENT_INVALID;
	}
}

/* A daxctl.conf.d section the claim deciding for the device overrides. */
static void log_verdict_conflict(struct manager *m, const struct pmemram_device_verdict *v)
{
	char f_dev[64], f_claim[96];
	const char *fields[] = { f_dev, f_claim, NULL };

	(void)snprintf(f_dev, sizeof(f_dev), "PMEMRAM_DEVICE=%s", v->device);
	(void)snprintf(f_claim, sizeof(f_claim), "PMEMRAM_CLAIM=%s", v->claim);
	manager_event(m, MANAGER_EVENT_DAXCTL_CONFLICT, fields, "%s: %s", v->device, v->conflict);
}

/* Log the verdicts that are new or changed since the previous reconcile. */
static void log_verdicts(struct manager *m, const struct pmemram_plan *old, const struct pmemram_plan *plan)
{
	for (size_t i = 0; i < plan->n_verdicts; i++) {
		const struct pmemram_device_verdict *v = &plan->verdicts[i], *o = find_verdict(old, v->device);
		char f_dev[64], f_verdict[48], f_reason[64], f_claim[96];
		const char *fields[] = { f_dev, f_verdict, f_reason, f_claim, NULL };
		enum manager_event e;

		if (v->conflict[0] && !(o && streq(o->conflict, v->conflict)))
			log_verdict_conflict(m, v);
		if (o && o->verdict == v->verdict && streq(o->text, v->text))
			continue;
		(void)snprintf(f_dev, sizeof(f_dev), "PMEMRAM_DEVICE=%s", v->device);
		(void)snprintf(f_verdict, sizeof(f_verdict), "PMEMRAM_VERDICT=%s", pmemram_verdict_to_string(v->verdict));
		(void)snprintf(f_reason, sizeof(f_reason), "PMEMRAM_REASON=%s", pmemram_reason_to_string(v->reason));
		(void)snprintf(f_claim, sizeof(f_claim), "PMEMRAM_CLAIM=%s", v->claim);
		e = verdict_event(v->verdict);
		if (e == _MANAGER_EVENT_INVALID)
			manager_log(m, LOG_INFO, fields, "%s: %s: %s", v->device, pmemram_verdict_to_string(v->verdict),
				    v->text);
		else
			manager_event(m, e, fields, "%s: %s: %s", v->device, pmemram_verdict_to_string(v->verdict),
				      v->text);
	}
}

/* "a, b" of the claims that match no device. */
static const char *unmatched_list(const struct pmemram_plan *plan, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < plan->n_unmatched; i++) {
		int n = snprintf(buf + len, size - len, "%s%s", i ? ", " : "", plan->unmatched[i]);

		if (n < 0 || (size_t)n >= size - len)
			break;
		len += (size_t)n;
	}
	return buf;
}

/* The claims that match no device now and did not before: the journal says so once. */
static void log_unmatched(struct manager *m, const struct pmemram_plan *old, const struct pmemram_plan *plan)
{
	for (size_t i = 0; i < plan->n_unmatched; i++) {
		bool before = false;

		for (size_t k = 0; old && k < old->n_unmatched; k++)
			before = before || streq(old->unmatched[k], plan->unmatched[i]);
		if (!before) {
			const struct pmemram_claim *c = pmemram_config_find_claim(m->config, plan->unmatched[i]);
			char f_claim[96], text[2 * PMEMRAM_PLAN_TEXT_MAX + 64];
			const char *fields[] = { f_claim, NULL };

			(void)snprintf(f_claim, sizeof(f_claim), "PMEMRAM_CLAIM=%s", plan->unmatched[i]);
			manager_event(m, MANAGER_EVENT_CLAIM_UNMATCHED, fields, "%s",
				      pmemram_claim_unmatched_text(plan, i, c, text, sizeof(text)));
		}
	}
}

void manager_notify_status(struct manager *m)
{
	size_t converged = 0, refused = 0, failed = 0, pending = 0, blocks = 0;
	const struct pmemram_plan *plan = m->last ? m->last->plan : NULL;
	char list[256];

	for (size_t i = 0; plan && i < plan->n_verdicts; i++) {
		const struct pmemram_device_verdict *v = &plan->verdicts[i];

		converged += v->verdict == PMEMRAM_VERDICT_CONVERGED;
		refused += v->verdict == PMEMRAM_VERDICT_REFUSED;
		failed += v->verdict == PMEMRAM_VERDICT_FAILED;
		pending += v->verdict == PMEMRAM_VERDICT_PENDING;
		if (v->verdict == PMEMRAM_VERDICT_CONVERGED)
			blocks += v->n_blocks_done;
	}
	if (!m->last)
		(void)sd_notifyf(false, "STATUS=cannot read the system: %s", m->last_error);
	else if (!m->ready)
		(void)sd_notifyf(false, "STATUS=waiting for %zu claims to match a device; %zu devices online (%zu blocks)",
				 plan ? plan->n_unmatched : 0, converged, blocks);
	else
		(void)sd_notifyf(false,
				 "STATUS=%zu devices online (%zu blocks), %zu pending, %zu refused, %zu failed%s%s%s",
				 converged, blocks, pending, refused, failed,
				 plan && plan->n_unmatched ? "; claims matching nothing: " : "",
				 plan && plan->n_unmatched ? unmatched_list(plan, list, sizeof(list)) : "",
				 m->config_error[0] ? "; last configuration reload failed" : "");
}

void manager_progress(struct pmemram_ctx *ctx, const struct pmemram_action *a, size_t index, size_t total,
		     void *userdata)
{
	struct manager *m = userdata;
	uint64_t now = now_usec(CLOCK_MONOTONIC);
	char line[PMEMRAM_PLAN_TEXT_MAX];

	/* A long run (a release migrating gigabytes) must not look like a hang to the watchdog; a
	 * ping per action would wake systemd once per memory block. */
	if (m->watchdog_usec > 0 && now - m->last_ping_usec >= m->watchdog_usec / 4) {
		(void)sd_notify(false, "WATCHDOG=1");
		m->last_ping_usec = now;
	}
	if (pmemram_ctx_get_log_priority(ctx) >= LOG_DEBUG && pmemram_action_describe(a, line, sizeof(line)))
		mlog(m, LOG_DEBUG, "[%zu/%zu] %s", index + 1, total, line);
}

/*
 * Each action in the journal as soon as it is done, so that a daemon killed half way leaves a
 * record of every kernel state it changed.  The blocks the kernel onlined during a kmem bind are
 * the bind's doing, logged before them; reading them back is one line per run of them, with a
 * PMEMRAM_BLOCK field for each block ("memory33-memory39 (7 blocks of dax0.0): online in
 * Movable ..."), not a line per block: 125 for a 16 GiB device.  A run is cut at
 * ONLINED_RUN_MAX blocks: journald drops an entry of more than 1024 fields whole.  With
 * PMEMRAM_LOG=debug the steps of a run's later blocks are logged before its line.
 */
#define ONLINED_RUN_MAX 256

void manager_action_flush(struct manager *m)
{
	const struct pmemram_apply_result *res = &m->onlined.first;
	unsigned long first = res->action.block;
	size_t n = m->onlined.n, k = RESULT_FIELDS_BASE;
	struct result_fields f;
	const char **fields;
	char **blocks;

	if (n == 0)
		return;
	m->onlined.n = 0;
	if (n == 1) {
		log_result(m, res);
		return;
	}
	fields = calloc(RESULT_FIELDS_BASE + n + 1, sizeof(*fields));
	blocks = calloc(n, sizeof(*blocks));
	if (fields && blocks) {
		memcpy(fields, result_fields(res, &f), RESULT_FIELDS_BASE * sizeof(*fields));
		for (size_t i = 0; i < n; i++) {
			if (asprintf(&blocks[i], "PMEMRAM_BLOCK=memory%lu", first + i) < 0) {
				blocks[i] = NULL;
				break;
			}
			fields[k++] = blocks[i];
		}
	}
	/* Out of memory: the line without its fields, which name each block. */
	manager_log(m, LOG_INFO, k == RESULT_FIELDS_BASE + n ? fields : NULL,
		    "memory%lu-memory%lu (%zu blocks of %s): online in %s (by the kernel, during the kmem bind)", first,
		    first + n - 1, n, res->action.device, pmemram_zone_describe(res->action.zone));
	for (size_t i = 0; blocks && i < n; i++)
		free(blocks[i]);
	free(blocks);
	free(fields);
}

void manager_action_done(_unused_ struct pmemram_ctx *ctx, const struct pmemram_apply_result *res, void *userdata)
{
	struct manager *m = userdata;
	const struct pmemram_action *a = &res->action, *run = &m->onlined.first.action;

	if (!res->by_kernel || res->status != PMEMRAM_APPLY_DONE) {
		manager_action_flush(m);
		log_result(m, res);
		return;
	}
	if (m->onlined.n > 0 && (a->block != run->block + m->onlined.n || a->zone != run->zone ||
				 !streq(a->device, run->device) || m->onlined.n == ONLINED_RUN_MAX))
		manager_action_flush(m);
	if (m->onlined.n == 0)
		m->onlined.first = *res;
	m->onlined.n++;
}

static int on_followup(sd_event_source *s, void *userdata);
static void reconcile_followup(struct manager *m);

int manager_reconcile(struct manager *m, const char *why)
{
	char record[PATH_MAX];
	const struct pmemram_apply_options apply = {
		.progress = manager_progress,
		.progress_userdata = m,
		.done = manager_action_done,
		.done_userdata = m,
		.auto_online_record = auto_online_record(m, record, sizeof(record)),
		.onlined_dir = m->runtime_dir,
		.cxl_record_dir = m->runtime_dir,
	};
	struct pmemram_reconcile_options o = {
		.apply = &apply,
		.held = (const char *const *)m->held,
		.n_held = m->n_held,
	};
	struct pmemram_reconcile_result *res = NULL;
	uint64_t start = now_usec(CLOCK_MONOTONIC), seq_from;
	char summary[256];
	int r;

	/* The last reconcile's followup reads its result, which this one replaces. */
	manager_followup_flush(m);
	/* A release in its child process owns the device's blocks until it ended; it asks for a
	 * reconcile then. */
	if (m->release) {
		mlog(m, LOG_DEBUG, "reconcile (%s) waits for the release of %s", why, manager_release_device(m));
		return -EBUSY;
	}
	mlog(m, LOG_DEBUG, "reconcile (%s)", why);
	manager_drop_stale_holds(m, false);
	if (pmemram_uevent_seqnum_read(m->ctx, &seq_from) < 0)
		seq_from = 0;
	r = pmemram_reconcile(m->ctx, m->config, &o, &res);
	/* It read the machine as the uevents received before it left it (none is read while it
	 * runs): the reconcile they scheduled for the end of the coalescing window would only read
	 * it again, unless this one failed (then that one tries again).  Until ready, on_coalesce()
	 * also judges readiness, so it runs still. */
	if (m->ready && m->coalesce_source && res && r == 0)
		(void)sd_event_source_set_enabled(m->coalesce_source, SD_EVENT_OFF);
	manager_action_flush(m);
	/* The uevents sent meanwhile that are about what it changed are its own echo (on_uevent). */
	if (seq_from == 0 || pmemram_uevent_seqnum_read(m->ctx, &m->echo_to) < 0)
		m->echo_to = 0;
	m->echo_from = seq_from;
	m->last_end_usec = now_usec(CLOCK_MONOTONIC);
	m->n_reconciles++;
	m->last_r = r;
	m->last_usec = now_usec(CLOCK_REALTIME);
	m->last_duration_usec = now_usec(CLOCK_MONOTONIC) - start;
	if (!res) {
		const char *path = pmemram_ctx_get_error_path(m->ctx);

		(void)snprintf(m->last_error, sizeof(m->last_error), "%s%s%s", path ? path : "", path ? ": " : "",
			       strerror(-r));
		mevent(m, MANAGER_EVENT_RECONCILE_FAILED, "reconcile (%s): cannot read the system: %s", why,
		       m->last_error);
		m->last = pmemram_reconcile_result_free(m->last);
		json_object_put(m->dax_devices);
		m->dax_devices = NULL;
		manager_export_note_reconcile(m, r, m->last_duration_usec);
		manager_export_write(m, NULL);
		manager_notify_status(m);
		return r;
	}
	m->last_error[0] = '\0';

	(void)snprintf(summary, sizeof(summary),
		       "%zu actions done in %u rounds, %zu devices failed, %s (%" PRIu64 " ms: %u observations %" PRIu64
		       " ms, users %" PRIu64 " ms, apply %" PRIu64 " ms)",
		       res->n_done, res->rounds, res->n_failed,
		       r == 0 ? "converged" : r == -EAGAIN ? "work remains" : "not converged",
		       m->last_duration_usec / 1000, res->n_observations, res->observe_usec / 1000,
		       res->users_usec / 1000, res->apply_usec / 1000);
	log_verdicts(m, m->last ? m->last->plan : NULL, res->plan);
	log_unmatched(m, m->last ? m->last->plan : NULL, res->plan);
	if (r < 0)
		mevent(m, MANAGER_EVENT_RECONCILE_UNFINISHED, "reconcile (%s): %s", why, summary);
	else if (res->n_results > 0)
		mlog(m, LOG_INFO, "reconcile (%s): %s", why, summary);
	if (res->n_unreadable_processes > 0)
		mevent(m, MANAGER_EVENT_MAPS_UNREADABLE,
		       "could not read the memory maps of %zu processes: a dax device they map looks free",
		       res->n_unreadable_processes);

	pmemram_reconcile_result_free(m->last);
	m->last = res;
	/* The reconcile updated the record of pmemram's own kmem binds (for status). */
	if (res->onlined_error < 0)
		mevent(m, MANAGER_EVENT_ONLINED_UNSAVED, "cannot update %s/" PMEMRAM_ONLINED_FILE ": %s",
		       m->runtime_dir, strerror(-res->onlined_error));
	if (!m->event || sd_event_add_defer(m->event, &m->followup_source, on_followup, m) < 0)
		reconcile_followup(m);
	return r;
}

/* What follows a reconcile and changes no device: the classes, the shuffle policy, the export
 * and the devices' provenance for status.  It runs from the event loop once the reconcile's
 * caller is done, so that a client that asked for the reconcile has its reply (the devices
 * verified online) first; anything that reads what it writes flushes it first. */
static void reconcile_followup(struct manager *m)
{
	struct pmemram_topology *topology = NULL;

	/* Classes follow the devices the reconcile onlined (or gave back); the export takes the
	 * nodes they read. */
	(void)manager_apply_classes(m, &topology);
	/* The shuffle policy (on a kernel that switches nodes at runtime) and the export each read the
	 * nodes unless given them: read here when both need them, and not at all when neither does (no
	 * class, no runtime switch, no export). */
	if (!topology && m->shuffle.live && (m->metrics_path || m->nfd_path) &&
	    pmemram_topology_read(m->ctx, &topology) < 0)
		topology = NULL;
	manager_apply_shuffle(m, topology);
	manager_export_note_reconcile(m, m->last_r, m->last_duration_usec);
	manager_export_write(m, TAKE_PTR(topology));
	/* Status serves where each device comes from and who onlined it as this observation shows it:
	 * a status request reads nothing. */
	json_object_put(m->dax_devices);
	m->dax_devices = NULL;
	if (pmemram_provenance_observed_json(m->last->observation, m->runtime_dir, &m->dax_devices) < 0)
		m->dax_devices = NULL;
	/* Nothing else needs the observation: the daemon idles small.  What the reconcile allocated
	 * is free now, much of it in the arenas of the user scan's threads: give those pages back. */
	m->last->observation = pmemram_observation_free(m->last->observation);
	(void)malloc_trim(0);
	manager_notify_status(m);
}

static int on_followup(_unused_ sd_event_source *s, void *userdata)
{
	manager_followup_flush(userdata);
	return 0;
}

void manager_followup_flush(struct manager *m)
{
	if (!m->followup_source)
		return;
	m->followup_source = sd_event_source_disable_unref(m->followup_source);
	reconcile_followup(m);
}

/* ---- status --------------------------------------------------------------------------------- */

int manager_status_json(struct manager *m, struct json_object **ret)
{
	struct json_object *o = json_object_new_object(), *d = json_object_new_object();
	struct json_object *held = json_object_new_array(), *claims = json_object_new_array(), *rec = NULL;
	bool ok;

	/* Status shows the classes and provenance of the last reconcile. */
	manager_followup_flush(m);
	ok = json_add(o, "daemon", d);
	ok = json_add(d, "held", held) && ok;
	ok = json_add(d, "claims", claims) && ok;
	ok = ok && json_add(o, "protocol_version", json_object_new_int(PMEMRAM_PROTOCOL_VERSION)) &&
	     json_add(d, "pid", json_object_new_int((int)getpid())) &&
	     json_add(d, "version", json_object_new_string(PACKAGE_VERSION)) &&
	     json_add(d, "ready", json_object_new_boolean(m->ready)) &&
	     json_add(d, "config_dir", json_object_new_string(m->config_dir)) &&
	     json_add(d, "configured", json_object_new_boolean(m->configured)) &&
	     json_add(d, "daxctl_dir", json_object_new_string(m->daxctl_dir)) &&
	     json_add(d, "daxctl", pmemram_daxctl_to_json(m->config)) &&
	     json_add(d, "config_loaded_usec", json_object_new_uint64(m->config_loaded_usec)) &&
	     json_add(d, "reconciles", json_object_new_uint64(m->n_reconciles)) &&
	     json_add(d, "uevents", json_object_new_uint64(m->n_uevents)) &&
	     json_add(d, "uevents_echo", json_object_new_uint64(m->n_uevents_echo)) &&
	     json_add(d, "uevents_lost", json_object_new_uint64(m->n_uevents_lost)) &&
	     json_add(d, "last_reconcile_usec", json_object_new_uint64(m->last_usec)) &&
	     json_add(d, "last_reconcile_ms", json_object_new_uint64(m->last_duration_usec / 1000)) &&
	     json_add(d, "last_reconcile_result",
		      json_object_new_string(m->last_r == 0	    ? "converged"
					     : m->last_r == -EAGAIN ? "work-remains"
					     : m->last_r == -EIO    ? "failed"
								    : "error"));
	if (ok && m->config_error[0])
		ok = json_add(d, "config_error", json_object_new_string(m->config_error));
	/* The device a release is giving back now (its blocks are the client's to count), or null. */
	if (ok)
		ok = manager_release_device(m)
			     ? json_add(d, "releasing", json_object_new_string(manager_release_device(m)))
			     : json_add_null_value(d, "releasing");
	if (ok)
		ok = json_add(d, "classes", manager_classes_json(m)) &&
		     json_add(d, "tiering_counters", manager_tiering_counters_json(m)) &&
		     (m->demotion >= 0 ? json_add(d, "demotion_enabled", json_object_new_boolean(m->demotion))
				       : json_add_null_value(d, "demotion_enabled"));
	/* null until read after a reconcile, and on a kernel without NUMA balancing */
	if (ok) {
		struct json_object *p = pmemram_promotion_to_json(m->promotion_r, &m->promotion);

		ok = p ? json_add(d, "promotion", p) : json_add_null_value(d, "promotion");
	}
	if (ok && m->shuffle_known) {
		struct json_object *sp = json_object_new_object();

		ok = json_add(d, "shuffle_policy", sp) &&
		     json_add(sp, "policy", json_object_new_string(pmemram_config_shuffle_to_string(m->shuffle.policy))) &&
		     json_add(sp, "state",
			      json_object_new_string(pmemram_shuffle_policy_state_to_string(m->shuffle.state))) &&
		     json_add(sp, "text", json_object_new_string(m->shuffle.text));
	}
	if (ok && m->hotplug_known) {
		struct json_object *hp = json_object_new_object();

		ok = json_add(d, "hotplug_policy", hp) &&
		     json_add(hp, "policy",
			      json_object_new_string(pmemram_config_hotplug_to_string(m->hotplug.policy))) &&
		     json_add(hp, "state",
			      json_object_new_string(pmemram_hotplug_policy_state_to_string(m->hotplug.state))) &&
		     json_add(hp, "text", json_object_new_string(m->hotplug.text));
	}
	if (ok && m->last_error[0])
		ok = json_add(d, "error", json_object_new_string(m->last_error));
	for (size_t i = 0; ok && i < m->n_held; i++)
		ok = json_object_array_add(held, json_object_new_string(m->held[i])) == 0;
	for (size_t i = 0; ok && m->config && i < m->config->n_claims; i++)
		ok = json_object_array_add(claims, json_object_new_string(m->config->claims[i].name)) == 0;
	if (ok && m->last) {
		ok = pmemram_reconcile_to_json(m->last, &rec) == 0 && json_add(o, "reconcile", rec);
	}
	/* Where each device comes from and who onlined it, as the last reconcile observed it. */
	if (ok)
		ok = m->dax_devices ? json_add(o, "dax_devices", json_object_get(m->dax_devices))
				    : json_add_null_value(o, "dax_devices");
	if (!ok) {
		json_object_put(o);
		return -ENOMEM;
	}
	*ret = o;
	return 0;
}
