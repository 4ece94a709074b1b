/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Page allocator shuffling: effective state from kernel/mm/shuffle/ or the raw page_alloc.shuffle. */
#include "pmemram-private.h"

#define SHUFFLE_DIR "kernel/mm/shuffle"
#define SHUFFLE_PARAMETER "module/page_alloc/parameters/shuffle"
#define MAX_SHUFFLE_ORDER 63

/* A reason is one lower-case word ("hmat", "forced-off"): refuse anything else. */
static bool reason_is_valid(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-' || *s == '_'))
			return false;
	return true;
}

/* Patched kernel: enabled, reason and order, all three required. */
static int read_patched(struct pmemram_ctx *ctx, struct pmemram_shuffle *ret)
{
	struct pmemram_shuffle s = { .source = PMEMRAM_SHUFFLE_SYSFS };
	int r;

	r = sysfs_read_bool(ctx, SHUFFLE_DIR "/enabled", &s.enabled);
	if (r < 0)
		return r;

	r = sysfs_read_string(ctx, SHUFFLE_DIR "/reason", s.reason, sizeof(s.reason));
	if (r < 0)
		return r;
	if (!reason_is_valid(s.reason)) {
		pmemram_ctx_set_error_path(ctx, SHUFFLE_DIR "/reason");
		return log_debug_errno(ctx, -EINVAL, "shuffle reason \"%s\" is not a word", s.reason);
	}

	r = sysfs_read_int(ctx, SHUFFLE_DIR "/order", &s.order);
	if (r < 0)
		return r;
	if (s.order < 0 || s.order > MAX_SHUFFLE_ORDER) {
		pmemram_ctx_set_error_path(ctx, SHUFFLE_DIR "/order");
		return log_debug_errno(ctx, -EINVAL, "shuffle order %d out of range", s.order);
	}

	*ret = s;
	return 0;
}

int pmemram_shuffle_read(struct pmemram_ctx *ctx, struct pmemram_shuffle *ret)
{
	struct pmemram_shuffle s = { .source = PMEMRAM_SHUFFLE_UNAVAILABLE, .order = -1 };
	int r;

	if (!ctx || !ret)
		return -EINVAL;
	pmemram_ctx_clear_error(ctx);

	r = sysfs_exists(ctx, SHUFFLE_DIR);
	if (r < 0)
		return r;
	if (r > 0) {
		r = read_patched(ctx, &s);
		if (r < 0)
			return r;
		goto done;
	}

	/* Stock kernel: only the raw parameter, which says nothing about the effective state. */
	r = sysfs_read_bool(ctx, SHUFFLE_PARAMETER, &s.enabled);
	if (sysfs_absent(ctx, r))
		goto done; /* CONFIG_SHUFFLE_PAGE_ALLOCATOR=n */
	if (r < 0)
		return r;
	s.source = PMEMRAM_SHUFFLE_PARAMETER;
	strcpy(s.reason, "parameter");

done:
	log_debug(ctx, "shuffle: source %s, enabled %d, reason %s, order %d",
		  pmemram_shuffle_source_to_string(s.source), s.enabled, s.reason, s.order);
	*ret = s;
	return 0;
}
