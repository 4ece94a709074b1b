/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Namespaces made devdax through libndctl: a claimed one converted keeping its UUID, or one created: see pmemram-apply.h. */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <sys/random.h>

#include "lib-load.h"
#include "ndctl-load.h"
#include "pmemram-apply.h"
#include "pmemram-private.h"

#define DEVDAX_ALIGN PMEMRAM_DEVDAX_ALIGN

/* libndctl's error lines a failure's message carries: the last ones, each shortened in its middle.  Its
 * sysfs helpers report a failed write ("failed to write VALUE to PATH: ERROR") at debug level only,
 * so debug lines whose format starts with FAILED_DEBUG count as error lines too. */
#define JOB_LINES 2
#define JOB_LINE_MAX 80
#define FAILED_DEBUG "failed to "

/* One conversion or creation: the library it calls, and what its caller is told of a failure. */
struct job {
	struct pmemram_ctx *ctx;
	const struct ndctl_api *api;
	const char *subject; /* the namespace or region the caller named */
	char *why;	     /* the failed step, "" until one fails */
	size_t why_size;
	char lines[JOB_LINES][JOB_LINE_MAX];
	size_t n_lines; /* error lines seen, the last JOB_LINES kept */
};

/* One line of the library's into buf (JOB_LINE_MAX): a longer one keeps its start and its end,
 * where a failed write names the attribute and the error. */
_printf_(2, 0) static void line_keep(char *buf, const char *format, va_list args)
{
	char l[SYSFS_ATTR_MAX];
	size_t len, head = JOB_LINE_MAX / 4;

	(void)vsnprintf(l, sizeof(l), format, args);
	len = strcspn(l, "\n");
	l[len] = '\0';
	if (len < JOB_LINE_MAX)
		memcpy(buf, l, len + 1);
	else
		(void)snprintf(buf, JOB_LINE_MAX, "%.*s...%s", (int)head, l,
			       l + len - (JOB_LINE_MAX - 1 - head - strlen("...")));
}

/* The job whose libndctl context is live on this thread.  libndctl's log function is handed only
 * that context, and reading the context's userdata back would take the function table, which is
 * the job's own: libndctl as loaded, or the one its caller passed. */
static _Thread_local struct job *log_job;

_printf_(6, 0) static void ndctl_log(_unused_ struct ndctl_ctx *nctx, int priority, const char *file, int line,
				     const char *fn, const char *format, va_list args)
{
	struct job *j = log_job;
	va_list copy;

	if (!j)
		return;
	if (priority <= LOG_ERR || strncmp(format, FAILED_DEBUG, strlen(FAILED_DEBUG)) == 0) {
		va_copy(copy, args);
		line_keep(j->lines[j->n_lines++ % JOB_LINES], format, copy);
		va_end(copy);
	}
	lib_log_forward(j->ctx, "libndctl", file, line, fn, format, args);
}

/* A step failed: the debug line, and the caller's message (without the subject it names). */
_printf_(3, 4) static int job_fail(struct job *j, int r, const char *format, ...)
{
	char msg[PMEMRAM_PLAN_TEXT_MAX];
	const char *m = msg;
	size_t n = strlen(j->subject);
	va_list args;

	va_start(args, format);
	(void)vsnprintf(msg, sizeof(msg), format, args);
	va_end(args);
	log_debug(j->ctx, "%s", msg);
	if (strncmp(m, j->subject, n) == 0 && strncmp(m + n, ": ", 2) == 0)
		m += n + 2;
	(void)snprintf(j->why, j->why_size, "%s", m);
	return r < 0 ? r : -r;
}

/* The library's last error lines after the failed step, "; libndctl: a; b": the last alone when
 * both do not fit in why. */
static void job_add_lines(struct job *j)
{
	size_t first = j->n_lines > JOB_LINES ? j->n_lines - JOB_LINES : 0, len = strlen(j->why), need = 0;

	for (size_t i = first; i < j->n_lines; i++)
		need += strlen(i == first ? "; libndctl: " : "; ") + strlen(j->lines[i % JOB_LINES]);
	if (j->n_lines > 0 && len + need >= j->why_size)
		first = j->n_lines - 1;
	for (size_t i = first; i < j->n_lines; i++) {
		len = strlen(j->why);
		(void)snprintf(j->why + len, j->why_size - len, "%s%s", i == first ? "; libndctl: " : "; ",
			       j->lines[i % JOB_LINES]);
	}
}

static void uuid_format(const unsigned char *u, char *buf, size_t size)
{
	(void)snprintf(buf, size, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
		       u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
}

/* A random (version 4) UUID, for a dax device's info block. */
static int uuid_random(unsigned char *u)
{
	if (getrandom(u, 16, 0) != 16)
		return errno > 0 ? -errno : -EIO;
	u[6] = (unsigned char)((u[6] & 0x0f) | 0x40);
	u[8] = (unsigned char)((u[8] & 0x3f) | 0x80);
	return 0;
}

static struct ndctl_namespace *namespace_find(const struct ndctl_api *api, struct ndctl_ctx *nctx, const char *name,
					      struct ndctl_region **ret_region)
{
	for (struct ndctl_bus *bus = api->bus_get_first(nctx); bus; bus = api->bus_get_next(bus))
		for (struct ndctl_region *region = api->region_get_first(bus); region;
		     region = api->region_get_next(region))
			for (struct ndctl_namespace *ndns = api->namespace_get_first(region); ndns;
			     ndns = api->namespace_get_next(ndns))
				if (streq_ptr(api->namespace_get_devname(ndns), name)) {
					*ret_region = region;
					return ndns;
				}
	return NULL;
}

/* Steps 4 and 5: the region's dax seed (unless one holds the namespace already), enabled.  Its info
 * block's UUID is the one the seed has (the fsdax device's, given to it in step 0, also by an
 * attempt that failed after), else a random one. */
static int dax_attach(struct job *j, struct ndctl_region *region, struct ndctl_namespace *ndns, const char *name)
{
	const struct ndctl_api *api = j->api;
	struct ndctl_dax *dax = api->namespace_get_dax(ndns);
	unsigned char u[16];
	int r;

	if (!dax) {
		dax = api->region_get_dax_seed(region);
		if (!dax)
			return job_fail(j, -ENXIO, "%s: its region has no dax seed", name);
		api->dax_get_uuid(dax, u);
		r = 0;
		if (uuid_is_null(u)) {
			r = uuid_random(u);
			if (r >= 0)
				r = api->dax_set_uuid(dax, u);
		}
		if (r >= 0)
			r = api->dax_set_location(dax, NDCTL_PFN_LOC_PMEM);
		if (r >= 0)
			r = api->dax_set_align(dax, DEVDAX_ALIGN);
		if (r >= 0)
			r = api->dax_set_namespace(dax, ndns);
		if (r < 0)
			return job_fail(j, r, "%s: cannot set up the dax seed: %s", name, strerror(-r));
	}
	r = api->dax_enable(dax);
	if (r < 0) {
		/* Give the seed back: the next attempt starts again from the detached namespace. */
		(void)api->dax_set_namespace(dax, NULL);
		return job_fail(j, r, "%s: enabling its dax device failed: %s", name, strerror(-r));
	}
	return 0;
}

/* Step 0: the fsdax info block's UUID, the one ndctl list -N showed and a claim may name, to the
 * region's dax seed, before step 1 or 2 deletes the fsdax device: the dax device keeps it.  The
 * seed given it in *ret_seed (NULL when none was). */
static int seed_take_uuid(struct job *j, struct ndctl_region *region, struct ndctl_namespace *ndns, const char *name,
			  struct ndctl_dax **ret_seed)
{
	const struct ndctl_api *api = j->api;
	struct ndctl_pfn *pfn = api->namespace_get_pfn(ndns);
	struct ndctl_dax *seed;
	unsigned char info[16];
	int r;

	*ret_seed = NULL;
	if (!pfn || api->namespace_get_dax(ndns))
		return 0;
	seed = api->region_get_dax_seed(region);
	api->pfn_get_uuid(pfn, info);
	if (!seed || uuid_is_null(info))
		return 0;
	r = api->dax_set_uuid(seed, info);
	if (r < 0)
		return job_fail(j, r, "%s: cannot give its dax seed the fsdax UUID: %s", name, strerror(-r));
	*ret_seed = seed;
	return 0;
}

/* After a failed step 1 or 2: while the fsdax device stays, the seed must not hand its UUID to
 * another namespace. */
static void seed_forget_uuid(struct job *j, struct ndctl_namespace *ndns, struct ndctl_dax *seed)
{
	if (seed && j->api->namespace_get_pfn(ndns))
		(void)j->api->dax_set_uuid(seed, (unsigned char[16]){});
}

/* Steps 0 to 5 for a namespace known to be the one wanted. */
static int devdax_finish(struct job *j, struct ndctl_region *region, struct ndctl_namespace *ndns, const char *name)
{
	const struct ndctl_api *api = j->api;
	struct ndctl_dax *dax, *seed;
	struct ndctl_pfn *pfn;
	int r;

	if (api->namespace_get_btt(ndns))
		return job_fail(j, -EOPNOTSUPP, "%s: a sector namespace: not converting", name);

	dax = api->namespace_get_dax(ndns);
	if (dax && api->dax_is_enabled(dax))
		return 0;
	r = seed_take_uuid(j, region, ndns, name, &seed);
	if (r < 0)
		return r;
	/* 1: refused by libndctl while the block device is mounted or open (O_EXCL); it deletes the
	 * fsdax device too. */
	if (api->namespace_is_active(ndns)) {
		r = api->namespace_disable_safe(ndns);
		if (r < 0) {
			seed_forget_uuid(j, ndns, seed);
			return job_fail(j, r, "%s: cannot disable it: %s", name, strerror(-r));
		}
	}
	/* 2: a namespace disabled with its fsdax device still attached (a job cut short). */
	pfn = api->namespace_get_pfn(ndns);
	if (pfn) {
		r = api->pfn_delete(pfn);
		if (r < 0) {
			seed_forget_uuid(j, ndns, seed);
			return job_fail(j, r, "%s: cannot detach its fsdax device: %s", name, strerror(-r));
		}
	}
	/* 3: what ndctl does too, unchecked: kernels before 4.13 lack it. */
	(void)api->namespace_set_enforce_mode(ndns, NDCTL_NS_MODE_DEVDAX);
	return dax_attach(j, region, ndns, name);
}

static int convert(struct job *j, struct ndctl_ctx *nctx, const char *name, const char *uuid)
{
	const struct ndctl_api *api = j->api;
	struct ndctl_region *region = NULL;
	struct ndctl_namespace *ndns;
	unsigned char u[16];
	char have[40];

	ndns = namespace_find(api, nctx, name, &region);
	if (!ndns)
		return job_fail(j, -ENODEV, "%s: libndctl does not list it", name);
	api->namespace_get_uuid(ndns, u);
	uuid_format(u, have, sizeof(have));
	if (strcasecmp(have, uuid) != 0)
		return job_fail(j, -ESTALE, "%s: its UUID is %s, not %s: not converting", name, have, uuid);
	return devdax_finish(j, region, ndns, name);
}

/* The region's namespace with a size that create() made for name (1): named after it, with the
 * UUID want, and no fsdax or sector device (a creation cut short leaves it raw or devdax).  Else 0
 * and one with the name or the UUID that is not that one, which may hold someone's data; -ENOENT
 * when there is neither. */
static int namespace_created(const struct ndctl_api *api, struct ndctl_region *region, const char *name,
			     const uint8_t *want, struct ndctl_namespace **ret)
{
	unsigned char u[16];

	*ret = NULL;
	for (struct ndctl_namespace *ndns = api->namespace_get_first(region); ndns;
	     ndns = api->namespace_get_next(ndns)) {
		bool named = streq_ptr(api->namespace_get_alt_name(ndns), name), same;

		if (api->namespace_get_size(ndns) == 0)
			continue;
		api->namespace_get_uuid(ndns, u);
		same = memcmp(u, want, sizeof(u)) == 0;
		if (named && same && !api->namespace_get_pfn(ndns) && !api->namespace_get_btt(ndns)) {
			*ret = ndns;
			return 1;
		}
		if ((named || same) && !*ret)
			*ret = ndns;
	}
	return *ret ? 0 : -ENOENT;
}

/* The size of the namespace to make, by the planner's rule (pmemram_create_size()). */
static int create_size(struct job *j, struct ndctl_region *region, const char *region_name, uint64_t *ret)
{
	const struct ndctl_api *api = j->api;
	unsigned long long extent = api->region_get_max_available_extent(region);
	unsigned long align = api->region_get_align(region);
	struct pmemram_observed_region r = {
		.has_extent = extent != ULLONG_MAX,
		.available = extent != ULLONG_MAX ? extent : 0,
		.align = align != ULONG_MAX ? align : 0,
		.ways = api->region_get_interleave_ways(region),
	};
	uint64_t block_size;
	int k;

	k = sysfs_read_hex(j->ctx, "devices/system/memory/block_size_bytes", &block_size);
	if (k < 0)
		return job_fail(j, k, "cannot read the memory block size: %s", strerror(-k));
	k = pmemram_create_size(&r, block_size, ret);
	if (k == -EOPNOTSUPP)
		return job_fail(j, k, "%s: the kernel does not tell its largest free extent", region_name);
	if (k < 0)
		return job_fail(j, k,
				"%s: free extent of %llu bytes, %" PRIu64
				" aligned, too little to be sure of one whole memory block of %" PRIu64,
				region_name, extent, *ret, block_size);
	return 0;
}

static int create(struct job *j, struct ndctl_ctx *nctx, const char *region_name, const char *name)
{
	const struct ndctl_api *api = j->api;
	struct ndctl_region *region = NULL;
	struct ndctl_namespace *ndns;
	uint64_t size;
	unsigned char u[16];
	uint8_t want[16];
	int r;

	for (struct ndctl_bus *bus = api->bus_get_first(nctx); bus && !region; bus = api->bus_get_next(bus))
		for (region = api->region_get_first(bus); region; region = api->region_get_next(region))
			if (streq_ptr(api->region_get_devname(region), region_name))
				break;
	if (!region)
		return job_fail(j, -ENODEV, "%s: libndctl does not list it", region_name);
	pmemram_create_uuid(name, want);
	r = namespace_created(api, region, name, want, &ndns);
	if (r > 0)
		return devdax_finish(j, region, ndns, api->namespace_get_devname(ndns));
	if (r == 0)
		return job_fail(j, -EEXIST, "%s: %s has the name '%s' or its UUID, but pmemram did not create it",
				region_name, api->namespace_get_devname(ndns), name);

	r = create_size(j, region, region_name, &size);
	if (r < 0)
		return r;
	ndns = api->region_get_namespace_seed(region);
	if (!ndns)
		return job_fail(j, -ENXIO, "%s: no namespace seed", region_name);
	/* Cut short here, the seed keeps no size and is not this claim's yet: all is set again, but
	 * the kernel refuses a UUID any namespace has, the seed itself included. */
	api->namespace_get_uuid(ndns, u);
	r = memcmp(u, want, sizeof(u)) == 0 ? 0 : api->namespace_set_uuid(ndns, want);
	if (r >= 0)
		r = api->namespace_set_alt_name(ndns, name);
	if (r >= 0)
		r = api->namespace_set_size(ndns, size);
	if (r < 0)
		return job_fail(j, r, "%s: cannot set up namespace seed %s: %s", region_name,
				api->namespace_get_devname(ndns), strerror(-r));
	return devdax_finish(j, region, ndns, api->namespace_get_devname(ndns));
}

typedef int (*ndctl_job)(struct job *j, struct ndctl_ctx *nctx, const char *a, const char *b);

/* A libndctl context of its own for each job: they are rare, and change what a kept one listed.
 * api is the function table to call, NULL for libndctl itself.  The library logs at debug level
 * whatever the context's priority, for the error lines of a failure's message (lib_log_forward()
 * passes its lines on only at the context's). */
static int with_ndctl(struct pmemram_ctx *ctx, const struct ndctl_api *api, ndctl_job run, const char *a, const char *b,
		      char *why, size_t why_size)
{
	struct job j = { .ctx = ctx, .api = api, .subject = a, .why = why, .why_size = why_size };
	struct job *outer = log_job;
	struct ndctl_ctx *nctx;
	int r;

	if (!ctx || !a || !b || !why || why_size == 0)
		return -EINVAL;
	why[0] = '\0';
	if (!j.api) {
		r = ndctl_api_get(ctx, &j.api);
		if (r < 0)
			return job_fail(&j, r, "cannot load " NDCTL_SONAME ": %s", strerror(-r));
	}
	log_job = &j;
	r = j.api->new_ctx(&nctx);
	if (r < 0)
		r = job_fail(&j, r, "ndctl_new: %s", strerror(-r));
	else {
		j.api->set_log_fn(nctx, ndctl_log);
		j.api->set_log_priority(nctx, LOG_DEBUG);
		r = run(&j, nctx, a, b);
		j.api->unref(nctx);
	}
	log_job = outer;
	if (r < 0)
		job_add_lines(&j);
	return r;
}

int pmemram_ndctl_convert_namespace(struct pmemram_ctx *ctx, void *userdata, const char *namespace_name,
				    const char *uuid, char *why, size_t why_size)
{
	return with_ndctl(ctx, userdata, convert, namespace_name, uuid, why, why_size);
}

int pmemram_ndctl_create_namespace(struct pmemram_ctx *ctx, void *userdata, const char *region, const char *name,
				   char *why, size_t why_size)
{
	return with_ndctl(ctx, userdata, create, region, name, why, why_size);
}
