/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmemramctl's view of pmemramd's holds: the devices a release gave back, stale ones left out. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "ctl.h"
#include "macro.h"
#include "pmemram-observe.h"
#include "pmemram-protocol.h"

int ctl_runtime_path(const char *name, char *buf, size_t size)
{
	const char *sock = ctl_socket_path(), *slash = strrchr(sock, '/');
	int n;

	if (!slash)
		return -EINVAL;
	n = name ? snprintf(buf, size, "%.*s/%s", (int)(slash - sock), sock, name)
		 : snprintf(buf, size, "%.*s", (int)(slash - sock), sock);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int ctl_lock_runtime(void)
{
	char dir[PATH_MAX], path[PATH_MAX] = "", pid[32];
	int r;

	if (ctl_runtime_path(NULL, dir, sizeof(dir)) < 0) {
		fprintf(stderr, "%s: the runtime directory's path is too long\n", program_invocation_short_name);
		return -CTL_EXIT_SYSTEM;
	}
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		fprintf(stderr, "%s: cannot create %s: %m\n", program_invocation_short_name, dir);
		return -CTL_EXIT_SYSTEM;
	}
	r = pmemram_daemon_lock(dir, path, sizeof(path), pid, sizeof(pid));
	if (r >= 0)
		return r;
	if (r == -EWOULDBLOCK)
		fprintf(stderr, "%s: pmemramd (pid %s) is running (%s is locked): ask it, without --local\n",
			program_invocation_short_name, pid[0] ? pid : "unknown", path);
	else
		fprintf(stderr, "%s: cannot lock %s: %s\n", program_invocation_short_name, path[0] ? path : dir,
			strerror(-r));
	return -CTL_EXIT_SYSTEM;
}

/* The holds that still stand for the device now behind their name: a hold whose identity (the
 * namespace, or the physical range) is not the device's any more held a device that is gone. */
void ctl_held_read(struct pmemram_ctx *ctx, struct ctl_held *h)
{
	char *ids[PMEMRAM_HELD_MAX] = {}, dir[PATH_MAX], now[PMEMRAM_DEVICE_IDENTITY_MAX];
	_cleanup_(pmemram_dax_list_freep) struct pmemram_dax_list *l = NULL;
	size_t n = 0;

	h->n = 0;
	if (ctl_runtime_path(NULL, dir, sizeof(dir)) < 0)
		return;
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
