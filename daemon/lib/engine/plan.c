/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The planner: turns (configuration, observed state) into ordered actions and per-device verdicts, without I/O. */
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <strings.h>

#include "pmemram-plan.h"
#include "pmemram-private.h"

static const char *const action_names[_PMEMRAM_ACTION_TYPE_MAX] = {
	[PMEMRAM_ACTION_CONVERT_NAMESPACE] = "convert-namespace",
	[PMEMRAM_ACTION_DISABLE_DEVDAX] = "disable-devdax",
	[PMEMRAM_ACTION_BIND_KMEM] = "bind-kmem",
	[PMEMRAM_ACTION_OFFLINE_BLOCK] = "offline-block",
	[PMEMRAM_ACTION_ONLINE_BLOCK] = "online-block",
	[PMEMRAM_ACTION_UNBIND_KMEM] = "unbind-kmem",
	[PMEMRAM_ACTION_BIND_DEVDAX] = "bind-devdax",
	[PMEMRAM_ACTION_CREATE_NAMESPACE] = "create-namespace",
	[PMEMRAM_ACTION_CREATE_CXL_REGION] = "create-cxl-region",
};

static const char *const verdict_names[_PMEMRAM_VERDICT_MAX] = {
	[PMEMRAM_VERDICT_IGNORED] = "ignored",
	[PMEMRAM_VERDICT_CONVERGED] = "converged",
	[PMEMRAM_VERDICT_PENDING] = "pending",
	[PMEMRAM_VERDICT_REFUSED] = "refused",
	[PMEMRAM_VERDICT_FAILED] = "failed",
};

static const char *const reason_names[_PMEMRAM_REASON_MAX] = {
	[PMEMRAM_REASON_NONE] = "none",
	[PMEMRAM_REASON_UNCLAIMED] = "unclaimed",
	[PMEMRAM_REASON_NAMESPACE_MODE] = "namespace-mode",
	[PMEMRAM_REASON_MOUNTED] = "mounted",
	[PMEMRAM_REASON_MAPPED] = "mapped",
	[PMEMRAM_REASON_OPEN] = "open",
	[PMEMRAM_REASON_BLOCKDEV_BUSY] = "blockdev-busy",
	[PMEMRAM_REASON_OTHER_DRIVER] = "other-driver",
	[PMEMRAM_REASON_NO_TARGET_NODE] = "no-target-node",
	[PMEMRAM_REASON_NO_RESOURCE] = "no-resource",
	[PMEMRAM_REASON_TOO_SMALL] = "too-small",
	[PMEMRAM_REASON_AUTO_ONLINE] = "auto-online",
	[PMEMRAM_REASON_UDEV_ONLINE] = "udev-online",
	[PMEMRAM_REASON_BLOCKS_MISSING] = "blocks-missing",
	[PMEMRAM_REASON_BLOCK_GOING_OFFLINE] = "block-going-offline",
	[PMEMRAM_REASON_BLOCK_BEING_ADDED] = "block-being-added",
	[PMEMRAM_REASON_ZONE_NOT_VALID] = "zone-not-valid",
	[PMEMRAM_REASON_HELD] = "held",
	[PMEMRAM_REASON_APPLY_FAILED] = "apply-failed",
	[PMEMRAM_REASON_USERS_UNKNOWN] = "users-unknown",
	[PMEMRAM_REASON_NAME_TAKEN] = "name-taken",
	[PMEMRAM_REASON_EXTENT_UNKNOWN] = "extent-unknown",
	[PMEMRAM_REASON_RANGES_SPLIT] = "ranges-split",
	[PMEMRAM_REASON_NO_ROOT_DECODER] = "no-root-decoder",
	[PMEMRAM_REASON_DPA_IN_USE] = "dpa-in-use",
	[PMEMRAM_REASON_REGION_NOT_OURS] = "region-not-ours",
	[PMEMRAM_REASON_CXL_UNREADABLE] = "cxl-unreadable",
	[PMEMRAM_REASON_NO_HPA_SPACE] = "no-hpa-space",
	[PMEMRAM_REASON_SERIAL_AMBIGUOUS] = "serial-ambiguous",
	[PMEMRAM_REASON_MEMDEV_UNCLAIMED] = "memdev-unclaimed",
};

static const char *const ns_mode_names[_PMEMRAM_NS_MODE_MAX] = {
	[PMEMRAM_NS_RAW] = "raw",
	[PMEMRAM_NS_SECTOR] = "sector",
	[PMEMRAM_NS_FSDAX] = "fsdax",
	[PMEMRAM_NS_DEVDAX] = "devdax",
};

#define NAME_OF(table, i) ((unsigned)(i) < ELEMENTSOF(table) ? (table)[i] : NULL)

const char *pmemram_action_type_to_string(enum pmemram_action_type t)
{
	return NAME_OF(action_names, t);
}

const char *pmemram_verdict_to_string(enum pmemram_verdict v)
{
	return NAME_OF(verdict_names, v);
}

const char *pmemram_reason_to_string(enum pmemram_reason r)
{
	return NAME_OF(reason_names, r);
}

const char *pmemram_ns_mode_to_string(enum pmemram_ns_mode m)
{
	return NAME_OF(ns_mode_names, m);
}

int pmemram_block_range(uint64_t start, uint64_t size, uint64_t block_size, unsigned long *ret_first,
			unsigned long *ret_end)
{
	uint64_t first, end;

	if (block_size == 0 || (block_size & (block_size - 1)) != 0 || size > UINT64_MAX - start)
		return -EINVAL;

	/* kmem adds ALIGN(start) .. ALIGN_DOWN(start + size): partial blocks at either end are lost. */
	first = start / block_size + (start % block_size != 0);
	end = (start + size) / block_size;
	if (end <= first)
		return -ERANGE;
	if (end > ULONG_MAX)
		return -ERANGE;

	*ret_first = (unsigned long)first;
	*ret_end = (unsigned long)end;
	return 0;
}

static uint64_t fnv1a64(uint64_t h, const char *s)
{
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= UINT64_C(0x100000001b3);
	}
	return h;
}

void pmemram_create_uuid(const char *claim, uint8_t ret[16])
{
	const uint64_t basis[2] = { UINT64_C(0xcbf29ce484222325), UINT64_C(0x84222325cbf29ce4) };

	for (size_t i = 0; i < 2; i++) {
		uint64_t h = fnv1a64(fnv1a64(basis[i], "pmemram-create:"), claim);

		for (size_t j = 0; j < 8; j++)
			ret[8 * i + j] = (uint8_t)(h >> (56 - 8 * j));
	}
	ret[6] = (uint8_t)((ret[6] & 0x0f) | 0x80); /* version 8 */
	ret[8] = (uint8_t)((ret[8] & 0x3f) | 0x80); /* variant 10 */
}

char *pmemram_create_uuid_string(const char *claim, char buf[PMEMRAM_UUID_STRING_MAX])
{
	uint8_t u[16];

	pmemram_create_uuid(claim, u);
	snprintf(buf, PMEMRAM_UUID_STRING_MAX, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
	return buf;
}

/* "cxl-region:0x5eed0001": what pmemram_create_uuid() hashes for the CXL region of the memdev
 * with that serial (lower-case hexadecimal, as sysfs shows it, whatever the claim wrote). */
#define CXL_REGION_KEY_MAX 32
static void cxl_region_key(uint64_t serial, char buf[CXL_REGION_KEY_MAX])
{
	snprintf(buf, CXL_REGION_KEY_MAX, "cxl-region:%#" PRIx64, serial);
}

void pmemram_cxl_region_uuid(uint64_t serial, uint8_t ret[16])
{
	char key[CXL_REGION_KEY_MAX];

	cxl_region_key(serial, key);
	pmemram_create_uuid(key, ret);
}

char *pmemram_cxl_region_uuid_string(uint64_t serial, char buf[PMEMRAM_UUID_STRING_MAX])
{
	char key[CXL_REGION_KEY_MAX];

	cxl_region_key(serial, key);
	return pmemram_create_uuid_string(key, buf);
}

/* What a devdax namespace keeps ahead of its data with its memory map in the namespace (the
 * location pmemram gives it): 8 KiB for the label space and the info block, then a struct page of at
 * most 64 bytes (MAX_STRUCT_PAGE_SIZE) for each 4 KiB page (x86-64). */
#define DEVDAX_INFO_RESERVE (8ULL << 10)
#define DEVDAX_STRUCT_PAGE 64ULL
#define DEVDAX_PAGE 4096ULL

static uint64_t gcd64(uint64_t a, uint64_t b)
{
	while (b > 0) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

uint64_t pmemram_create_blocks(uint64_t size, uint64_t block_size)
{
	const uint64_t g = PMEMRAM_DEVDAX_ALIGN;
	uint64_t offset, data, worst;

	if (size <= DEVDAX_INFO_RESERVE || block_size == 0)
		return 0;
	/* nd_pfn_init(): 8 KiB, then a struct page per page of the rest, up to the next 2 MiB. */
	offset = DEVDAX_INFO_RESERVE + DEVDAX_STRUCT_PAGE * ((size - DEVDAX_INFO_RESERVE) / DEVDAX_PAGE);
	offset = (offset + g - 1) / g * g;
	if (offset >= size)
		return 0;
	data = size - offset;
	/* kmem rounds the start up to a block boundary and the end down: the namespace starts on a
	 * 2 MiB boundary only, and at worst the data starts 2 MiB past a block boundary. */
	if (g >= block_size)
		return data / block_size;
	worst = (data + g) / block_size;
	worst = worst > 0 ? worst - 1 : 0;
	return worst < data / block_size ? worst : data / block_size;
}

int pmemram_create_size(const struct pmemram_observed_region *r, uint64_t block_size, uint64_t *ret_size)
{
	uint64_t align = PMEMRAM_DEVDAX_ALIGN * (r->ways > 0 ? r->ways : 1), m;

	if (!r->has_extent)
		return -EOPNOTSUPP;
	/* A multiple of both: the larger alone is not one when the ways are not a power of two. */
	if (r->align > 0) {
		m = r->align / gcd64(r->align, align);
		align = m > r->available / align ? 0 : m * align; /* more than the extent: none fits */
	}
	*ret_size = align > 0 ? r->available / align * align : 0;
	return pmemram_create_blocks(*ret_size, block_size) < 1 || *ret_size < PMEMRAM_CREATE_MIN ? -ENOSPC : 0;
}

/* ---- building the plan ------------------------------------------------------------ */

struct builder {
	const struct pmemram_config *config;
	const struct pmemram_observed *observed;
	struct pmemram_plan *plan;
	size_t actions_allocated;
	bool *claim_used;
};

static int add_action(struct builder *b, enum pmemram_action_type type, const struct pmemram_device_verdict *v,
		      int node, unsigned long block, enum pmemram_zone zone)
{
	struct pmemram_plan *plan = b->plan;
	struct pmemram_action *a;

	if (plan->n_actions == b->actions_allocated) {
		size_t n = b->actions_allocated ? 2 * b->actions_allocated : 16;

		a = reallocarray(plan->actions, n, sizeof(*a));
		if (!a)
			return -ENOMEM;
		plan->actions = a;
		b->actions_allocated = n;
	}

	a = &plan->actions[plan->n_actions++];
	*a = (struct pmemram_action){ .type = type, .node = node, .block = block, .zone = zone };
	strcpy(a->device, v->device);
	strcpy(a->claim, v->claim);
	return 0;
}

/* The next verdict slot (allocated up front, one per device and namespace). */
static struct pmemram_device_verdict *add_verdict(struct builder *b, const char *device,
						  const struct pmemram_claim *claim)
{
	struct pmemram_device_verdict *v = &b->plan->verdicts[b->plan->n_verdicts++];

	snprintf(v->device, sizeof(v->device), "%s", device);
	if (claim) {
		strcpy(v->claim, claim->name);
		b->claim_used[claim - b->config->claims] = true;
	} else
		v->verdict = PMEMRAM_VERDICT_IGNORED;
	return v;
}

static const char *match_kind(const struct pmemram_claim *c, const struct pmemram_observed_dax *d)
{
	switch (c->match) {
	case PMEMRAM_MATCH_UUID:
		return d && d->uuid[0] && strcasecmp(c->match_value, d->uuid) == 0 ? "uuid" : "info-uuid";
	case PMEMRAM_MATCH_DEVICE:
		return "device";
	case PMEMRAM_MATCH_HMEM_RANGE:
		return "hmem-range";
	case PMEMRAM_MATCH_HMEM_NODE:
		return "hmem-node";
	case PMEMRAM_MATCH_REGION:
		return "region";
	case PMEMRAM_MATCH_CXL_REGION:
		return "cxl-region";
	case PMEMRAM_MATCH_CXL_MEMDEV:
		return "cxl-memdev";
	default:
		return "all-devdax";
	}
}

_printf_(3, 4) static void set_verdict(struct pmemram_device_verdict *v, enum pmemram_reason reason,
				       const char *format, ...)
{
	va_list args;

	if (reason == PMEMRAM_REASON_NONE)
		v->verdict = PMEMRAM_VERDICT_PENDING;
	else if (reason != PMEMRAM_REASON_UNCLAIMED)
		v->verdict = PMEMRAM_VERDICT_REFUSED;
	v->reason = reason;
	va_start(args, format);
	vsnprintf(v->text, sizeof(v->text), format, args);
	va_end(args);
}

/* The serial a cxl-memdev claim names: false for any other claim.  The configuration keeps it as
 * "0x5eed0001", never 0. */
static bool claim_serial(const struct pmemram_claim *c, uint64_t *ret)
{
	return c->match == PMEMRAM_MATCH_CXL_MEMDEV && pmemram_parse_u64(c->match_value, 16, ret) >= 0;
}

/* Whether one of the CXL region's memdevs has the serial. */
static bool cxl_has_memdev(const struct pmemram_cxl_origin *o, uint64_t serial)
{
	for (size_t i = 0; i < o->n_serials; i++)
		if (o->serials[i] == serial)
			return true;
	return false;
}

static bool info_uuid_matches(const char *uuid, const struct pmemram_observed_dax *d)
{
	return d->info_uuid[0] && strcasecmp(uuid, d->info_uuid) == 0;
}

static bool uuid_matches(const char *uuid, const struct pmemram_observed_dax *d)
{
	/* The label's UUID, or the info block's: ndctl list -N shows the latter. */
	return (d->uuid[0] && strcasecmp(uuid, d->uuid) == 0) || info_uuid_matches(uuid, d);
}

static bool is_cxl_claim(const struct pmemram_claim *c)
{
	return c->match == PMEMRAM_MATCH_CXL_REGION || c->match == PMEMRAM_MATCH_CXL_MEMDEV;
}

/* "CXL origin of dax4.0 unreadable: PATH: ERROR": why a CXL claim may not match the device.  The
 * nvdimm region's range is root's to read: pmemramctl as a user cannot tie it to its CXL region. */
static void cxl_unreadable_describe(const struct pmemram_observed_dax *d, char *buf, size_t size)
{
	if (d->cxl.error == -EACCES)
		snprintf(buf, size, "CXL origin of %s needs root to read: %s", d->dax.name, d->cxl.error_path);
	else
		snprintf(buf, size, "CXL origin of %s unreadable: %s: %s", d->dax.name, d->cxl.error_path,
			 strerror(-d->cxl.error));
}

static bool claim_matches(const struct pmemram_claim *c, const struct pmemram_observed_dax *d)
{
	uint64_t serial;

	switch (c->match) {
	case PMEMRAM_MATCH_UUID:
		/* daxctl looks sections up by the nd_dax's (info block's) UUID alone (daxctl/device.c). */
		return c->from_daxctl ? info_uuid_matches(c->match_value, d) : uuid_matches(c->match_value, d);
	case PMEMRAM_MATCH_DEVICE:
		return streq(c->match_value, d->dax.name);
	case PMEMRAM_MATCH_REGION:
		return d->region[0] && streq(c->match_value, d->region);
	case PMEMRAM_MATCH_HMEM_RANGE:
		/* The whole device, each of its ranges, inside the range: the name may belong to another
		 * device next boot. */
		return d->dax.source == PMEMRAM_DAX_SOURCE_HMEM &&
		       pmemram_dax_inside(&d->dax, c->range_start, c->range_end);
	case PMEMRAM_MATCH_HMEM_NODE:
		/* Not the region's empty seed device: nothing to online, and never whole blocks. */
		return d->dax.source == PMEMRAM_DAX_SOURCE_HMEM && d->dax.target_node == c->node && d->dax.size > 0;
	case PMEMRAM_MATCH_CXL_REGION:
		return d->cxl.region[0] && streq(c->match_value, d->cxl.region);
	case PMEMRAM_MATCH_CXL_MEMDEV:
		return claim_serial(c, &serial) && cxl_has_memdev(&d->cxl, serial);
	case PMEMRAM_MATCH_ALL_DEVDAX:
		return true;
	default:
		return false;
	}
}

/* Whether some cxl-memdev claim of pmemram's names the serial (daxctl.conf.d has no CXL matches). */
static bool serial_claimed(const struct pmemram_config *c, uint64_t serial)
{
	uint64_t v;

	for (size_t i = 0; i < c->n_claims; i++)
		if (claim_serial(&c->claims[i], &v) && v == serial)
			return true;
	return false;
}

/* A cxl-memdev claim takes a device of an interleaved region only when every memdev of the region
 * is claimed: the region's memory is spread over all of them, and a claim names one memdev, not
 * the others it happens to share a region with.  1 and the unclaimed serials in buf ("0x5eed0002,
 * 0x0") when one is not. */
static int interleave_unclaimed(const struct pmemram_config *c, const struct pmemram_claim *claim,
				const struct pmemram_cxl_origin *o, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	if (claim->match != PMEMRAM_MATCH_CXL_MEMDEV)
		return 0;
	for (size_t i = 0; i < o->n_serials; i++)
		if (!serial_claimed(c, o->serials[i]) && len < size)
			len += snprintf(buf + len, size - len, "%s0x%" PRIx64, len ? ", " : "", o->serials[i]);
	return buf[0] != '\0';
}

/* Whether claim a comes before b for a device both match: pmemram's own before daxctl.conf.d's,
 * then the more specific (uuid, then device, hmem range, region, cxl-region, cxl-memdev, hmem node,
 * all-devdax). */
static bool claim_before(const struct pmemram_claim *a, const struct pmemram_claim *b)
{
	if (a->from_daxctl != b->from_daxctl)
		return !a->from_daxctl;
	return a->match < b->match;
}

/* A claim from daxctl.conf.d that matches a device a claim of pmemram's decides for: it matched
 * something, so it is not reported unmatched (nor does readiness wait for it). */
static bool outranked_daxctl_claim(const struct pmemram_observed *o, const struct pmemram_claim *claim)
{
	if (!claim->from_daxctl)
		return false;
	for (size_t i = 0; i < o->n_devices; i++)
		if (claim_matches(claim, &o->devices[i]))
			return true;
	return false;
}

/* The claim that decides for a dax device (claim_before()), or NULL. */
static const struct pmemram_claim *claim_for_device(const struct pmemram_config *c, const struct pmemram_observed_dax *d)
{
	const struct pmemram_claim *best = NULL;

	for (size_t i = 0; i < c->n_claims; i++)
		if (claim_matches(&c->claims[i], d) && (!best || claim_before(&c->claims[i], best)))
			best = &c->claims[i];
	return best;
}

/* A daxctl.conf.d section that would do something else with a device than claim, the pmemram
 * claim deciding for it: record it on the verdict; the claim is still used.  Sections compared
 * with a pmemram claim for their UUID when loading (conflict, redundant) are reported there. */
static void daxctl_conflict(const struct pmemram_config *c, struct pmemram_device_verdict *v,
			    const struct pmemram_claim *claim, const struct pmemram_observed_dax *d)
{
	char where[PMEMRAM_CONFIG_ERROR_MAX];

	if (claim->from_daxctl)
		return;
	for (size_t i = 0; i < c->n_daxctl; i++) {
		const struct pmemram_daxctl_section *s = &c->daxctl[i];
		/* Of a UUID's sections only the one whose mode counts (the others joined it). */
		bool devdax =
			s->state == PMEMRAM_DAXCTL_SKIPPED && !s->invalid && !s->system_ram && s->mode_set.file >= 0;

		if ((s->state != PMEMRAM_DAXCTL_CLAIMED && !devdax) || !info_uuid_matches(s->uuid, d))
			continue;
		if (!devdax && s->movable == (claim->zone == PMEMRAM_ZONE_MOVABLE))
			continue;
		pmemram_config_origin_to_string(c, s->defined, where, sizeof(where));
		if (devdax)
			snprintf(v->conflict, sizeof(v->conflict),
				 "daxctl section '%.63s' (%.100s) says mode = devdax, claim '%.63s' onlines it as %s: the claim is used",
				 s->name, where, claim->name, pmemram_config_online_to_string(claim->zone));
		else
			snprintf(v->conflict, sizeof(v->conflict),
				 "daxctl section '%.63s' (%.100s) says movable = %s, claim '%.63s' online = %s: the claim is used",
				 s->name, where, s->movable ? "true" : "false", claim->name,
				 pmemram_config_online_to_string(claim->zone));
		return;
	}
}

/* An unclaimed device whose namespace's label UUID a daxctl.conf.d section names: say that daxctl
 * (and pmemram for it) matches the info block's UUID, the one ndctl list shows as uuid. */
static void daxctl_label_uuid(const struct pmemram_config *c, struct pmemram_device_verdict *v,
			      const struct pmemram_observed_dax *d)
{
	char where[PMEMRAM_CONFIG_ERROR_MAX];

	for (size_t i = 0; i < c->n_daxctl && d->uuid[0]; i++) {
		const struct pmemram_daxctl_section *s = &c->daxctl[i];

		if (strcasecmp(s->uuid, d->uuid) != 0)
			continue;
		pmemram_config_origin_to_string(c, s->defined, where, sizeof(where));
		set_verdict(v, PMEMRAM_REASON_UNCLAIMED,
			    "not claimed: daxctl section '%.40s' (%.100s) names the namespace's label UUID, and daxctl "
			    "matches the info block's, %s (ndctl list's uuid)",
			    s->name, where, d->info_uuid[0] ? d->info_uuid : "unknown");
		return;
	}
}

static const struct pmemram_memblock *find_block(const struct pmemram_observed *o, unsigned long id)
{
	size_t lo = 0, hi = o->n_blocks;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (o->blocks[mid].id == id)
			return &o->blocks[mid];
		if (o->blocks[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/*
 * Whether the kernel's onlining of a bind's new blocks lands them in the claimed zone.  "online"
 * (the kernel's default zone: Debian 13's default, CONFIG_MHP_DEFAULT_ONLINE_TYPE_ONLINE_AUTO) fits
 * when pmemram sets auto_online_blocks to the claim's zone for the time of the bind (online-at-bind,
 * as it does for "offline"); the explicit zones are the administrator's and must match.
 */
static bool knob_fits(enum pmemram_auto_online policy, enum pmemram_zone zone, bool online_at_bind)
{
	return policy == PMEMRAM_AUTO_ONLINE_ONLINE ? online_at_bind : pmemram_auto_online_fits(policy, zone);
}

/* "Normal Movable": every zone in a valid_zones mask. */
static const char *zones_string(unsigned mask, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int z = 0; z < _PMEMRAM_ZONE_MAX && len < size; z++)
		if (mask & (1u << z))
			len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? " " : "",
						pmemram_zone_to_string((enum pmemram_zone)z));
	return buf;
}

static bool block_done(const struct pmemram_memblock *blk, enum pmemram_zone zone)
{
	return blk->state == PMEMRAM_BLOCK_ONLINE && blk->zones.first == zone;
}

/* kmem is bound: online what is offline, then move what is online in another zone. */
static int plan_blocks(struct builder *b, struct pmemram_device_verdict *v, const struct pmemram_observed_dax *d,
		       const struct pmemram_claim *claim, unsigned long first, unsigned long end)
{
	const struct pmemram_observed *o = b->observed;
	size_t missing = 0, offline = 0, wrong = 0;
	char zones[64];
	int r;

	if (o->scoped) {
		first = first > o->scope_first ? first : o->scope_first;
		end = end < o->scope_end ? end : o->scope_end;
	}

	for (unsigned long id = first; id < end; id++) {
		const struct pmemram_memblock *blk = find_block(o, id);

		if (!blk) {
			missing++;
			continue;
		}
		/* Onlining a block before the kernel gave it a node dereferences node -1 on 6.1, as
		 * reading its valid_zones does: wait for the link (kmem's bind uevent follows it). */
		if (blk->node < 0) {
			set_verdict(v, PMEMRAM_REASON_BLOCK_BEING_ADDED,
				    "memory%lu is still being added (no node link yet); retry when it settles", id);
			return 0;
		}
		if (blk->state == PMEMRAM_BLOCK_GOING_OFFLINE) {
			set_verdict(v, PMEMRAM_REASON_BLOCK_GOING_OFFLINE,
				    "memory%lu is going offline (a release in progress?); retry when it settles", id);
			return 0;
		}
		if (blk->state == PMEMRAM_BLOCK_OFFLINE && blk->zones.mask && !(blk->zones.mask & (1u << claim->zone))) {
			set_verdict(v, PMEMRAM_REASON_ZONE_NOT_VALID, "memory%lu cannot be onlined as %s (valid zones: %s)",
				    id, pmemram_config_online_to_string(claim->zone), zones_string(blk->zones.mask, zones, sizeof(zones)));
			return 0;
		}
		if (blk->state == PMEMRAM_BLOCK_OFFLINE)
			offline++;
		else if (!block_done(blk, claim->zone))
			wrong++;
		else
			v->n_blocks_done++;
	}
	if (missing > 0) {
		set_verdict(v, PMEMRAM_REASON_BLOCKS_MISSING,
			    "bound to kmem, but %zu of the %zu blocks memory%lu..memory%lu are absent", missing,
			    (size_t)(end - first), first, end - 1);
		return 0;
	}

	if (offline + wrong == 0) {
		v->verdict = PMEMRAM_VERDICT_CONVERGED;
		snprintf(v->text, sizeof(v->text), "%zu blocks online as %s", v->n_blocks, pmemram_config_online_to_string(claim->zone));
		return 0;
	}

	set_verdict(v, PMEMRAM_REASON_NONE, "%zu of %zu blocks online as %s; %zu to online, %zu to move from another zone",
		    v->n_blocks_done, v->n_blocks, pmemram_config_online_to_string(claim->zone), offline, wrong);

	for (unsigned long id = first; id < end; id++)
		if (find_block(o, id)->state == PMEMRAM_BLOCK_OFFLINE) {
			r = add_action(b, PMEMRAM_ACTION_ONLINE_BLOCK, v, d->dax.target_node, id, claim->zone);
			if (r < 0)
				return r;
		}

	/* Offline and re-online one block at a time, so at most one block's memory is away at once. */
	for (unsigned long id = first; id < end; id++) {
		const struct pmemram_memblock *blk = find_block(o, id);

		if (blk->state != PMEMRAM_BLOCK_ONLINE || block_done(blk, claim->zone))
			continue;
		r = add_action(b, PMEMRAM_ACTION_OFFLINE_BLOCK, v, d->dax.target_node, id, claim->zone);
		if (r >= 0)
			r = add_action(b, PMEMRAM_ACTION_ONLINE_BLOCK, v, d->dax.target_node, id, claim->zone);
		if (r < 0)
			return r;
	}
	return 0;
}

static void too_small(struct pmemram_device_verdict *v, const struct pmemram_observed_dax *d, uint64_t block_size)
{
	uint64_t start = d->dax.resource, mask = block_size - 1;
	char size[32], bs[32];

	/* pmemram_block_range() already rejected start + size overflowing */
	set_verdict(v, PMEMRAM_REASON_TOO_SMALL,
		    "%s at %#" PRIx64 " holds no whole %s memory block (start aligned up %#" PRIx64
		    ", end aligned down %#" PRIx64 ")",
		    pmemram_format_size(d->dax.size, size, sizeof(size)), start,
		    pmemram_format_size(block_size, bs, sizeof(bs)), (start + mask) & ~mask,
		    (start + d->dax.size) & ~mask);
}

static bool has_cxl_claim(const struct pmemram_config *c)
{
	for (size_t i = 0; i < c->n_claims; i++)
		if (is_cxl_claim(&c->claims[i]))
			return true;
	return false;
}

static int plan_device(struct builder *b, const struct pmemram_observed_dax *d)
{
	const struct pmemram_observed *o = b->observed;
	const struct pmemram_claim *claim = claim_for_device(b->config, d);
	struct pmemram_device_verdict *v = add_verdict(b, d->dax.name, claim);
	char serials[PMEMRAM_PLAN_TEXT_MAX / 2];
	unsigned long first, end;
	int r;

	v->cxl = d->cxl;
	if (claim) {
		v->matched_by = match_kind(claim, d);
		daxctl_conflict(b->config, v, claim, d);
	}
	if (!claim) {
		set_verdict(v, PMEMRAM_REASON_UNCLAIMED, "not claimed by any configuration");
		daxctl_label_uuid(b->config, v, d);
		if (d->cxl.error && has_cxl_claim(b->config)) {
			char note[PMEMRAM_PLAN_TEXT_MAX];

			cxl_unreadable_describe(d, note, sizeof(note));
			set_verdict(v, PMEMRAM_REASON_UNCLAIMED, "not claimed by any configuration (%s)", note);
		}
		return 0;
	}
	if (interleave_unclaimed(b->config, claim, &d->cxl, serials, sizeof(serials))) {
		set_verdict(v, PMEMRAM_REASON_MEMDEV_UNCLAIMED,
			    "CXL %s interleaves %zu memdevs and no claim names %s: "
			    "claim each memdev, or the region (cxl-region:%s)",
			    d->cxl.region, d->cxl.n_serials, serials, d->cxl.region);
		return 0;
	}
	if (d->dax.mode == PMEMRAM_DAX_OTHER) {
		set_verdict(v, PMEMRAM_REASON_OTHER_DRIVER, "bound to driver %s, not device_dax or kmem", d->dax.driver);
		return 0;
	}
	if (!d->dax.has_resource) {
		set_verdict(v, PMEMRAM_REASON_NO_RESOURCE, "physical address unknown (resource is readable by root only)");
		return 0;
	}
	if (!pmemram_dax_contiguous(&d->dax, o->block_size)) {
		char ranges[PMEMRAM_PLAN_TEXT_MAX / 2];

		/* Its blocks are not those of resource and size: kmem adds each range's whole blocks on
		 * its own. */
		set_verdict(v, PMEMRAM_REASON_RANGES_SPLIT,
			    "%s has %zu physical ranges that are not one range of whole memory blocks (%s): "
			    "pmemram onlines a device whose ranges meet on block boundaries only",
			    d->dax.name, d->dax.n_ranges, pmemram_dax_ranges_format(&d->dax, ranges, sizeof(ranges)));
		return 0;
	}
	r = pmemram_block_range(d->dax.resource, d->dax.size, o->block_size, &first, &end);
	if (r == -ERANGE) {
		too_small(v, d, o->block_size);
		return 0;
	}
	if (r < 0)
		return r;
	v->n_blocks = end - first;

	if (d->dax.mode == PMEMRAM_DAX_SYSTEM_RAM)
		return plan_blocks(b, v, d, claim, first, end);

	/* devdax or unbound (a previous run stopped between unbind and bind): kmem still to bind. */
	if (d->dax.target_node < 0) {
		set_verdict(v, PMEMRAM_REASON_NO_TARGET_NODE, "no target node: the firmware did not assign one, kmem would reject it");
		return 0;
	}
	if (d->mapped && d->open_only) {
		set_verdict(v, PMEMRAM_REASON_OPEN,
			    "held open by %s (not mapped yet): stop it before pmemram can take the memory",
			    d->mapped_by[0] ? d->mapped_by : "a process");
		return 0;
	}
	if (d->mapped) {
		set_verdict(v, PMEMRAM_REASON_MAPPED, "in use by %s: stop it before pmemram can take the memory",
			    d->mapped_by[0] ? d->mapped_by : "a process");
		return 0;
	}
	if (!knob_fits(o->auto_online, claim->zone, b->config->online_at_bind)) {
		set_verdict(v, PMEMRAM_REASON_AUTO_ONLINE,
			    "auto_online_blocks is '%s': the kernel would online the new blocks itself, not as %s; set it to 'offline'",
			    pmemram_auto_online_to_string(o->auto_online), pmemram_config_online_to_string(claim->zone));
		return 0;
	}
	if (o->udev.onlines_memory && !pmemram_auto_online_fits(o->udev.policy, claim->zone)) {
		set_verdict(v, PMEMRAM_REASON_UDEV_ONLINE, "udev rule %s onlines new memory as '%s', not as %s",
			    o->udev.rule[0] ? o->udev.rule : "(unknown)", pmemram_auto_online_to_string(o->udev.policy),
			    pmemram_config_online_to_string(claim->zone));
		return 0;
	}

	set_verdict(v, PMEMRAM_REASON_NONE, "%s kmem, then online %zu blocks as %s on node %d",
		    d->dax.mode == PMEMRAM_DAX_DEVDAX ? "disable device_dax, bind" : "bind", v->n_blocks,
		    pmemram_config_online_to_string(claim->zone), d->dax.target_node);

	if (d->dax.mode == PMEMRAM_DAX_DEVDAX) {
		r = add_action(b, PMEMRAM_ACTION_DISABLE_DEVDAX, v, d->dax.target_node, 0, claim->zone);
		if (r < 0)
			return r;
	}
	r = add_action(b, PMEMRAM_ACTION_BIND_KMEM, v, d->dax.target_node, 0, claim->zone);
	for (unsigned long id = first; r >= 0 && id < end; id++)
		r = add_action(b, PMEMRAM_ACTION_ONLINE_BLOCK, v, d->dax.target_node, id, claim->zone);
	return r;
}

/* Why a claimed namespace is not converted, or PMEMRAM_REASON_NONE and what the conversion does. */
static enum pmemram_reason ns_refusal(const struct pmemram_claim *claim, const struct pmemram_observed_namespace *ns,
				      const char *mode, size_t unreadable, char *text, size_t size)
{
	/* A namespace a create = devdax claim made (named after it) and left unfinished is its own. */
	bool convert = claim->convert || claim->create;

	if (ns->mode == PMEMRAM_NS_SECTOR) {
		snprintf(text, size, "namespace is in sector mode; pmemram converts only raw and fsdax namespaces");
		return PMEMRAM_REASON_NAMESPACE_MODE;
	}
	if (!convert && ns->mode == PMEMRAM_NS_DEVDAX) {
		snprintf(text, size,
			 "devdax namespace whose dax device is not enabled; 'convert = yes' lets pmemram enable it");
		return PMEMRAM_REASON_NAMESPACE_MODE;
	}
	if (!convert) {
		snprintf(text, size,
			 "namespace is in %s mode, not devdax; 'convert = yes' lets pmemram convert it (destroys its contents)",
			 mode);
		return PMEMRAM_REASON_NAMESPACE_MODE;
	}
	if (ns->mounted) {
		snprintf(text, size, "%s namespace in use (/dev/%s mounted); not converting", mode,
			 ns->blockdev[0] ? ns->blockdev : "?");
		return PMEMRAM_REASON_MOUNTED;
	}
	if (ns->in_use[0]) {
		snprintf(text, size, "%s namespace in use (%s); not converting", mode, ns->in_use);
		return PMEMRAM_REASON_BLOCKDEV_BUSY;
	}
	if (unreadable > 0) {
		snprintf(text, size,
			 "the descriptors of %zu processes could not be read: one may hold /dev/%s open; not converting",
			 unreadable, ns->blockdev[0] ? ns->blockdev : "?");
		return PMEMRAM_REASON_USERS_UNKNOWN;
	}
	if (ns->mode == PMEMRAM_NS_DEVDAX)
		snprintf(text, size, "finish the conversion to devdax: enable its dax device (destroys its contents)");
	else
		snprintf(text, size, "convert the %s namespace to devdax (destroys its contents)", mode);
	return PMEMRAM_REASON_NONE;
}

static const struct pmemram_observed_region *region_find(const struct pmemram_observed *o, const char *name)
{
	for (size_t i = 0; i < o->n_regions; i++)
		if (streq(o->regions[i].name, name))
			return &o->regions[i];
	return NULL;
}

static const struct pmemram_observed_cxl_region *cxl_region_find(const struct pmemram_observed *o, const char *name,
								 const char *uuid)
{
	for (size_t i = 0; i < o->n_cxl_regions; i++)
		if (name ? streq(o->cxl_regions[i].name, name) : streq(o->cxl_regions[i].uuid, uuid))
			return &o->cxl_regions[i];
	return NULL;
}

/* Whether the claim has create = devdax for this region: named by it, or (create-region = pmem)
 * the nvdimm region of the CXL region pmemram made for the claim's memdev: with the UUID of its
 * serial and that memdev alone as target.  A namespace in any other CXL region would write labels
 * on memdevs the claim does not name. */
static bool creates_in(const struct pmemram_observed *o, const struct pmemram_claim *c, const char *region)
{
	const struct pmemram_observed_cxl_region *cr;
	const struct pmemram_observed_region *r;
	char uuid[PMEMRAM_UUID_STRING_MAX];
	uint64_t serial;

	if (!c->create)
		return false;
	if (c->match == PMEMRAM_MATCH_REGION)
		return streq(c->match_value, region);
	if (!claim_serial(c, &serial))
		return false;
	r = region_find(o, region);
	if (!r || r->cxl.error || !r->cxl.region[0] || r->cxl.n_serials != 1 || r->cxl.serials[0] != serial)
		return false;
	cr = cxl_region_find(o, r->cxl.region, NULL);
	return cr && streq(cr->uuid, pmemram_cxl_region_uuid_string(serial, uuid));
}

/* A namespace (name, in region ns_region, with label name alt_name, uuid and mode) judged for a
 * create = devdax claim of region: 1 when it is the one the claim created (named after it, with
 * the UUID it gives, raw or devdax as a creation cut short leaves it), 0 when it has neither the
 * claim's name nor its UUID, -EEXIST with why in text when it has one without being that: then it
 * may hold someone's data, and nothing is done. */
static int created_judge(const struct pmemram_claim *c, const char *region, const char *name, const char *ns_region,
			 const char *alt_name, const char *uuid, enum pmemram_ns_mode mode, char *text, size_t size)
{
	char want[PMEMRAM_UUID_STRING_MAX];
	bool named = streq(ns_region, region) && streq(alt_name, c->name);
	bool same = streq(uuid, pmemram_create_uuid_string(c->name, want));

	if (!named && !same)
		return 0;
	if (!same)
		snprintf(text, size, "%s holds %s named '%s' that pmemram did not create; not creating another", region,
			 name, c->name);
	else if (!named)
		snprintf(text, size,
			 "%s in %s has UUID %s, which pmemram gives the namespace of claim '%s'; not creating another",
			 name, ns_region, want, c->name);
	else if (mode != PMEMRAM_NS_RAW && mode != PMEMRAM_NS_DEVDAX)
		snprintf(text, size,
			 "%s holds %s named '%s' in %s mode, which no creation cut short leaves; not touching it",
			 region, name, c->name, pmemram_ns_mode_to_string(mode));
	else
		return 1;
	return -EEXIST;
}

/* Whether a create = devdax claim made the namespace and left it unfinished. */
static bool created_by(const struct pmemram_observed *o, const struct pmemram_claim *c,
		       const struct pmemram_observed_namespace *ns)
{
	char text[PMEMRAM_PLAN_TEXT_MAX];

	return creates_in(o, c, ns->region) && created_judge(c, ns->region, ns->name, ns->region, ns->alt_name,
							     ns->uuid, ns->mode, text, sizeof(text)) > 0;
}

/* Namespaces are claimed by UUID, or by the create = devdax claim that made them (a creation cut
 * short); unclaimed ones are not listed, nor converted. */
static int plan_namespace(struct builder *b, const struct pmemram_observed_namespace *ns)
{
	const struct pmemram_config *c = b->config;
	const struct pmemram_claim *claim = NULL;
	const char *mode = pmemram_ns_mode_to_string(ns->mode);
	struct pmemram_device_verdict *v;
	char text[PMEMRAM_PLAN_TEXT_MAX];
	enum pmemram_reason reason;
	int r;

	/* Not daxctl's: it matches the info block of an enabled dax device, and converts nothing.  Ours
	 * matches the namespace's own UUID or its fsdax or sector info block's, the one ndctl list -N
	 * shows (conversion keeps both). */
	for (size_t i = 0; i < c->n_claims && !claim; i++)
		if (c->claims[i].match == PMEMRAM_MATCH_UUID && !c->claims[i].from_daxctl &&
		    ((ns->uuid[0] && strcasecmp(c->claims[i].match_value, ns->uuid) == 0) ||
		     (ns->info_uuid[0] && strcasecmp(c->claims[i].match_value, ns->info_uuid) == 0)))
			claim = &c->claims[i];
	for (size_t i = 0; i < c->n_claims && !claim; i++)
		if (created_by(b->observed, &c->claims[i], ns))
			claim = &c->claims[i];
	if (!claim)
		return 0;

	v = add_verdict(b, ns->name, claim);
	reason = ns_refusal(claim, ns, mode ? mode : "?", b->observed->n_unreadable_processes, text, sizeof(text));
	set_verdict(v, reason, "%s", text);
	if (reason != PMEMRAM_REASON_NONE)
		return 0;
	r = add_action(b, PMEMRAM_ACTION_CONVERT_NAMESPACE, v, -1, 0, claim->zone);
	if (r >= 0)
		strcpy(b->plan->actions[b->plan->n_actions - 1].uuid, ns->uuid);
	return r;
}

/* Whether the region holds the namespace the claim created, as a dax device or a namespace not
 * devdax yet (1), or none (0); -EEXIST with why in text when a namespace has the claim's name or
 * UUID but is not that one (created_judge()). */
static int region_created(const struct pmemram_observed *o, const struct pmemram_claim *claim, const char *region,
			  char *text, size_t size)
{
	bool found = false;
	int r;

	for (size_t i = 0; i < o->n_devices; i++) {
		const struct pmemram_observed_dax *d = &o->devices[i];

		r = created_judge(claim, region, d->namespace, d->region, d->ns_name, d->uuid, PMEMRAM_NS_DEVDAX, text,
				  size);
		if (r < 0)
			return r;
		found = found || r > 0;
	}
	for (size_t i = 0; i < o->n_namespaces; i++) {
		const struct pmemram_observed_namespace *ns = &o->namespaces[i];

		r = created_judge(claim, region, ns->name, ns->region, ns->alt_name, ns->uuid, ns->mode, text, size);
		if (r < 0)
			return r;
		found = found || r > 0;
	}
	return found;
}

/* create = devdax: one namespace named after the claim, with the UUID it gives, over the region's
 * largest free extent, unless the region holds it already (whatever its state: plan_namespace()
 * finishes it); refused while a namespace has the claim's name or UUID without being that one. */
static int plan_region(struct builder *b, const struct pmemram_observed_region *r)
{
	const struct pmemram_config *c = b->config;
	const struct pmemram_claim *claim = NULL;
	struct pmemram_device_verdict *v;
	char size[32], al[32], bs[32], text[PMEMRAM_PLAN_TEXT_MAX];
	uint64_t aligned = 0;
	int k;

	for (size_t i = 0; i < c->n_claims && !claim; i++)
		if (creates_in(b->observed, &c->claims[i], r->name))
			claim = &c->claims[i];
	if (!claim)
		return 0;
	k = region_created(b->observed, claim, r->name, text, sizeof(text));
	if (k > 0)
		return 0;

	v = add_verdict(b, r->name, claim);
	v->matched_by = claim->match == PMEMRAM_MATCH_REGION ? "region" : "cxl-memdev";
	v->cxl = r->cxl;
	if (k < 0) {
		set_verdict(v, PMEMRAM_REASON_NAME_TAKEN, "%s", text);
		return 0;
	}
	k = pmemram_create_size(r, b->observed->block_size, &aligned);
	if (k == -EOPNOTSUPP) {
		set_verdict(v, PMEMRAM_REASON_EXTENT_UNKNOWN,
			    "create = devdax: the kernel does not tell %s's largest free extent (max_available_extent, "
			    "Linux 4.19 and later); no namespace created",
			    r->name);
		return 0;
	}
	pmemram_format_size(r->available, size, sizeof(size));
	if (k < 0) {
		set_verdict(v, PMEMRAM_REASON_TOO_SMALL,
			    "create = devdax: %s free (%s aligned), too little to be sure of one whole %s memory block "
			    "after the devdax memory map; no namespace created",
			    size, pmemram_format_size(aligned, al, sizeof(al)),
			    pmemram_format_size(b->observed->block_size, bs, sizeof(bs)));
		return 0;
	}
	set_verdict(v, PMEMRAM_REASON_NONE, "create a devdax namespace '%s' of %s over the region's %s of free space",
		    claim->name, pmemram_format_size(aligned, al, sizeof(al)), size);
	k = add_action(b, PMEMRAM_ACTION_CREATE_NAMESPACE, v, -1, 0, claim->zone);
	if (k >= 0)
		pmemram_create_uuid_string(claim->name, b->plan->actions[b->plan->n_actions - 1].uuid);
	return k;
}

/* How many memdevs have serial (as read; one whose serial could not be read has none). */
static size_t memdevs_with_serial(const struct pmemram_observed *o, uint64_t serial)
{
	size_t n = 0;

	for (size_t i = 0; i < o->n_memdevs; i++)
		if (!o->memdevs[i].serial_unreadable && o->memdevs[i].serial == serial)
			n++;
	return n;
}

/* The create-region claim of memdev m, NULL when none.  A memdev whose serial could not be
 * read may be any claim's: it gets the first whose serial no other memdev has, so that the claim
 * says why nothing is made rather than that nothing matched. */
static const struct pmemram_claim *region_claim(const struct pmemram_config *c, const struct pmemram_observed *o,
						const struct pmemram_observed_memdev *m)
{
	uint64_t serial;

	for (size_t i = 0; i < c->n_claims; i++)
		if (c->claims[i].create_region && claim_serial(&c->claims[i], &serial) &&
		    (m->serial_unreadable ? memdevs_with_serial(o, serial) == 0 : serial == m->serial))
			return &c->claims[i];
	return NULL;
}

/* Whether another memdev has m's serial too: their regions would be told apart by nothing. */
static bool serial_ambiguous(const struct pmemram_observed *o, const struct pmemram_observed_memdev *m, char *text,
			     size_t size)
{
	size_t n = memdevs_with_serial(o, m->serial);

	if (n > 1)
		snprintf(text, size,
			 "%zu memdevs have serial 0x%" PRIx64 " (cxl list -M); which is the claim's cannot be told: "
			 "not touching %s",
			 n, m->serial, m->name);
	return n > 1;
}

/* Not all of m read: neither made nor finished (the region it is in may be unknown). */
static bool memdev_unreadable(const struct pmemram_observed_memdev *m, bool finishing, char *text, size_t size)
{
	if (m->error)
		snprintf(text, size, "%s: cannot read its CXL topology: %s: %s; not %s a region", m->name,
			 m->error_path, strerror(-m->error), finishing ? "finishing" : "creating");
	return m->error != 0;
}

/* Why no region of m's pmem (or RAM) capacity can be made for m, which is in none, or
 * PMEMRAM_REASON_NONE. */
static enum pmemram_reason make_refusal(const struct pmemram_observed_memdev *m, bool ram, char *text, size_t size)
{
	uint64_t capacity = ram ? m->ram_size : m->pmem_size, root_free = ram ? m->ram_root_free : m->root_free;
	uint64_t want = capacity / PMEMRAM_CXL_REGION_ALIGN * PMEMRAM_CXL_REGION_ALIGN;
	const char *root = ram ? m->ram_root_decoder : m->root_decoder;
	char s[32], s2[32];

	if (m->dpa_size > 0) {
		snprintf(text, size, "%s: %s of its capacity is allocated to %s outside any region; not creating one",
			 m->name, pmemram_format_size(m->dpa_size, s, sizeof(s)), m->decoder);
		return PMEMRAM_REASON_DPA_IN_USE;
	}
	if (want == 0) {
		snprintf(text, size, "%s: %s of %s capacity, less than the 256 MiB a CXL region takes at least",
			 m->name, pmemram_format_size(capacity, s, sizeof(s)), ram ? "RAM" : "pmem");
		return PMEMRAM_REASON_TOO_SMALL;
	}
	if (!m->endpoint[0]) {
		snprintf(text, size, "%s has no endpoint port (cxl_mem not bound to it); not creating a region",
			 m->name);
		return PMEMRAM_REASON_NO_ROOT_DECODER;
	}
	if (!root[0]) {
		snprintf(text, size,
			 "no root decoder of one way takes %s for %s's host bridge (cxl list -D: %s, nr_targets 1); "
			 "not creating a region",
			 ram ? "RAM" : "pmem", m->name, ram ? "volatile_capable" : "pmem_capable");
		return PMEMRAM_REASON_NO_ROOT_DECODER;
	}
	if (root_free < want) {
		snprintf(text, size,
			 "%s has %s of address space free in one piece, %s's region needs %s (cxl list -D -d %s: "
			 "max_available_extent); not creating one",
			 root, pmemram_format_size(root_free, s, sizeof(s)), m->name,
			 pmemram_format_size(want, s2, sizeof(s2)), root);
		return PMEMRAM_REASON_NO_HPA_SPACE;
	}
	return PMEMRAM_REASON_NONE;
}

/* Why the claim's region is not made or finished for memdev m (text), or PMEMRAM_REASON_NONE with
 * the region to finish in *ret_ours (NULL: make one). */
static enum pmemram_reason memdev_refusal(const struct pmemram_observed *o, const struct pmemram_observed_memdev *m,
					  const char *uuid, const struct pmemram_observed_cxl_region **ret_ours,
					  char *text, size_t size)
{
	const struct pmemram_observed_cxl_region *in = m->region[0] ? cxl_region_find(o, m->region, NULL) : NULL;

	*ret_ours = cxl_region_find(o, NULL, uuid);
	/* Their regions would have one UUID: which is the claim's cannot be told. */
	if (serial_ambiguous(o, m, text, size))
		return PMEMRAM_REASON_SERIAL_AMBIGUOUS;
	if (m->region[0] && (!in || !streq(in->uuid, uuid))) {
		snprintf(text, size, "%s is in CXL region %s (%s), which pmemram did not make; not touching it",
			 m->name, m->region, m->decoder);
		return PMEMRAM_REASON_REGION_NOT_OURS;
	}
	if (*ret_ours && (*ret_ours)->n_targets > 0 &&
	    ((*ret_ours)->n_targets != 1 || (*ret_ours)->target_serial != m->serial)) {
		snprintf(text, size,
			 "CXL region %s has the UUID of %s's region but the memdev with serial 0x%" PRIx64
			 "%s as target; not touching it",
			 (*ret_ours)->name, m->name, (*ret_ours)->target_serial,
			 (*ret_ours)->n_targets > 1 ? " and others" : "");
		return PMEMRAM_REASON_REGION_NOT_OURS;
	}
	if (memdev_unreadable(m, m->region[0] || *ret_ours, text, size))
		return PMEMRAM_REASON_CXL_UNREADABLE;
	if (m->region[0] || *ret_ours)
		return PMEMRAM_REASON_NONE;
	return make_refusal(m, false, text, size);
}

/* Why the claim's RAM region is not made or finished for memdev m (text), or PMEMRAM_REASON_NONE
 * with the region to finish in *ret_ours (NULL: make one).  A RAM region has no UUID: the memdev's
 * own region of one way in RAM mode is the claim's, whoever made it (it is what the claim asks for,
 * and its memory is the kernel's already); any other region it is in is not. */
static enum pmemram_reason memdev_ram_refusal(const struct pmemram_observed *o, const struct pmemram_observed_memdev *m,
					      const struct pmemram_observed_cxl_region **ret_ours, char *text,
					      size_t size)
{
	const struct pmemram_observed_cxl_region *in = m->region[0] ? cxl_region_find(o, m->region, NULL) : NULL;

	*ret_ours = NULL;
	if (serial_ambiguous(o, m, text, size))
		return PMEMRAM_REASON_SERIAL_AMBIGUOUS;
	if (m->region[0] &&
	    (!in || !in->ram || in->n_targets > 1 || (in->n_targets == 1 && in->target_serial != m->serial))) {
		snprintf(text, size, "%s is in CXL region %s (%s), %s; not touching it", m->name, m->region, m->decoder,
			 !in	    ? "which cannot be read"
			 : !in->ram ? "not a RAM region"
				    : "interleaved with other memdevs");
		return PMEMRAM_REASON_REGION_NOT_OURS;
	}
	if (memdev_unreadable(m, m->region[0], text, size))
		return PMEMRAM_REASON_CXL_UNREADABLE;
	if (m->region[0]) {
		*ret_ours = in;
		return PMEMRAM_REASON_NONE;
	}
	return make_refusal(m, true, text, size);
}

/* create-region = pmem: a pmem CXL region of the claimed memdev alone, made once and recognised by
 * its UUID (pmemram_cxl_region_uuid_string()); one left uncommitted or disabled is finished.  A
 * memdev in a region that is not pmemram's, or whose capacity is allocated otherwise, is refused.
 * create-region = ram: a RAM region of the memdev alone, the same but for the UUID (see
 * memdev_ram_refusal()); once enabled, the kernel makes its dax device, which the claim then
 * matches as it matches any region's of its memdev. */
static int plan_memdev(struct builder *b, const struct pmemram_observed_memdev *m)
{
	const struct pmemram_claim *claim = region_claim(b->config, b->observed, m);
	const struct pmemram_observed_cxl_region *ours;
	struct pmemram_device_verdict *v;
	char uuid[PMEMRAM_UUID_STRING_MAX] = "", text[PMEMRAM_PLAN_TEXT_MAX], s[32];
	struct pmemram_action *a;
	enum pmemram_reason reason;
	uint64_t size;
	bool ram;
	int r;

	if (!claim)
		return 0;
	if (m->serial_unreadable) {
		v = add_verdict(b, m->name, claim);
		v->matched_by = "cxl-memdev";
		set_verdict(v, PMEMRAM_REASON_CXL_UNREADABLE,
			    "%s: cannot read its serial: %s: %s; it may be the claim's memdev, whose serial no other "
			    "memdev has: not creating a region",
			    m->name, m->error_path, strerror(-m->error));
		return 0;
	}
	ram = claim->create_region == PMEMRAM_REGION_RAM;
	if (ram)
		reason = memdev_ram_refusal(b->observed, m, &ours, text, sizeof(text));
	else
		reason = memdev_refusal(b->observed, m, pmemram_cxl_region_uuid_string(m->serial, uuid), &ours, text,
					sizeof(text));
	/* made (even if not all of the memdev could be read): its nvdimm region is create = devdax's,
	 * a RAM region's dax device the claim's */
	if ((reason == PMEMRAM_REASON_NONE || reason == PMEMRAM_REASON_CXL_UNREADABLE) && m->region[0] && ours &&
	    streq(m->region, ours->name) && ours->committed && ours->enabled)
		return 0;

	v = add_verdict(b, m->name, claim);
	v->matched_by = "cxl-memdev";
	if (reason != PMEMRAM_REASON_NONE) {
		set_verdict(v, reason, "%s", text);
		return 0;
	}
	size = (ram ? m->ram_size : m->pmem_size) / PMEMRAM_CXL_REGION_ALIGN * PMEMRAM_CXL_REGION_ALIGN;
	if (ours)
		set_verdict(v, reason, "finish CXL %sregion %s (%s) of %s, left %s", ram ? "RAM " : "", ours->name,
			    pmemram_format_size(ours->size, s, sizeof(s)), m->name,
			    !m->region[0]      ? "without its memdev"
			    : !ours->committed ? "uncommitted"
					       : "disabled");
	else
		set_verdict(v, reason, "create a CXL %s region of %s on %s for %s (serial 0x%" PRIx64 ")",
			    ram ? "RAM" : "pmem", pmemram_format_size(size, s, sizeof(s)),
			    ram ? m->ram_root_decoder : m->root_decoder, m->name, m->serial);
	r = add_action(b, PMEMRAM_ACTION_CREATE_CXL_REGION, v, -1, 0, claim->zone);
	if (r < 0)
		return r;
	a = &b->plan->actions[b->plan->n_actions - 1];
	strcpy(a->uuid, uuid);
	a->ram = ram;
	a->serial = m->serial;
	strcpy(a->decoder, ours ? ours->root_decoder : ram ? m->ram_root_decoder : m->root_decoder);
	a->size = ours && ours->size ? ours->size : size;
	return 0;
}

struct pmemram_plan *pmemram_plan_free(struct pmemram_plan *plan)
{
	if (!plan)
		return NULL;
	free(plan->actions);
	free(plan->verdicts);
	free(plan->unmatched);
	free(plan->unmatched_notes);
	free(plan);
	return NULL;
}

static bool observed_is_valid(const struct pmemram_observed *o)
{
	if (o->block_size == 0 || (o->block_size & (o->block_size - 1)) != 0)
		return false;
	if ((o->n_blocks && !o->blocks) || (o->n_devices && !o->devices) || (o->n_namespaces && !o->namespaces) ||
	    (o->n_regions && !o->regions) || (o->n_memdevs && !o->memdevs) || (o->n_cxl_regions && !o->cxl_regions))
		return false;
	for (size_t i = 1; i < o->n_blocks; i++)
		if (o->blocks[i - 1].id >= o->blocks[i].id)
			return false;
	return o->n_devices <= PMEMRAM_MAX_DAX_DEVICES && o->n_namespaces <= PMEMRAM_MAX_DAX_DEVICES &&
	       o->n_regions <= PMEMRAM_MAX_DAX_DEVICES && o->n_memdevs <= PMEMRAM_MAX_DAX_DEVICES;
}

/* What may have kept a claim from matching: for a CXL claim, a device whose CXL side is unknown. */
/* What to check when claim c matches no device, for its kind of match. */
static const char *unmatched_hint(const struct pmemram_claim *c)
{
	switch (c->match) {
	case PMEMRAM_MATCH_UUID:
		return "compare it with ndctl list -N -v: a claim matches a namespace's uuid (its info block's) "
		       "or its raw_uuid (its own)";
	case PMEMRAM_MATCH_DEVICE:
		return "dax device names change across boots and hmem and nvdimm devices share them: prefer uuid:, "
		       "hmem: or cxl-memdev:";
	case PMEMRAM_MATCH_REGION:
		return c->create ? "check that ndctl list -R shows the region (create = devdax makes its namespace)"
				 : "check ndctl list -R -N: an empty region has no dax device (add create = devdax to "
				   "make one)";
	case PMEMRAM_MATCH_HMEM_RANGE:
		return "check the Soft Reserved lines of /proc/iomem and daxctl list: each of the device's ranges must "
		       "lie inside, and reading them needs root";
	case PMEMRAM_MATCH_HMEM_NODE:
		return "check the target_node of the hmem devices (daxctl list): the firmware's proximity domain";
	case PMEMRAM_MATCH_CXL_REGION:
		return "the kernel may not have reassembled the CXL region at boot (cxl list -R), and a region "
		       "made again may have another number: prefer cxl-memdev:SERIAL";
	case PMEMRAM_MATCH_CXL_MEMDEV:
		if (c->create_region == PMEMRAM_REGION_RAM)
			return "check the serial with cxl list -M (create-region = ram makes the memdev's RAM region, "
			       "whose dax device the kernel makes when it is enabled)";
		if (c->create_region)
			return "check the serial with cxl list -M (create-region = pmem makes the memdev's region, "
			       "create = devdax its namespace)";
		return "check the serial with cxl list -M, and that a region using that memdev is assembled and has "
		       "a dax device (cxl list -R, daxctl list)";
	default:
		return "there is no dax device at all (daxctl list)";
	}
}

char *pmemram_claim_unmatched_text(const struct pmemram_plan *plan, size_t i, const struct pmemram_claim *c, char *buf,
				   size_t size)
{
	const char *note = plan->unmatched_notes[i];

	snprintf(buf, size, "claim '%s' matches no device%s%s%s%s", plan->unmatched[i], c ? ": " : "",
		 c ? unmatched_hint(c) : "", note[0] ? "; " : "", note);
	return buf;
}

static void unmatched_note(const struct pmemram_observed *o, const struct pmemram_claim *c, char *buf, size_t size)
{
	buf[0] = '\0';
	for (size_t i = 0; is_cxl_claim(c) && i < o->n_devices; i++)
		if (o->devices[i].cxl.error) {
			cxl_unreadable_describe(&o->devices[i], buf, size);
			return;
		}
}

int pmemram_plan_compute(const struct pmemram_config *config, const struct pmemram_observed *observed,
			 struct pmemram_plan **ret)
{
	_cleanup_(pmemram_plan_freep) struct pmemram_plan *plan = NULL;
	_cleanup_(freep) bool *used = NULL;
	struct builder b;
	size_t n;
	int r;

	if (!config || !observed || !ret || !observed_is_valid(observed))
		return -EINVAL;

	plan = calloc(1, sizeof(*plan));
	used = calloc(config->n_claims + 1, sizeof(*used));
	if (!plan || !used)
		return -ENOMEM;
	n = observed->n_devices + observed->n_namespaces + observed->n_regions + observed->n_memdevs;
	if (n > 0) {
		plan->verdicts = calloc(n, sizeof(*plan->verdicts));
		if (!plan->verdicts)
			return -ENOMEM;
	}
	b = (struct builder){ .config = config, .observed = observed, .plan = plan, .claim_used = used };

	/* A region made comes before the namespace in it and the memory it gives. */
	for (size_t i = 0; i < observed->n_memdevs; i++) {
		r = plan_memdev(&b, &observed->memdevs[i]);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < observed->n_devices; i++) {
		r = plan_device(&b, &observed->devices[i]);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < observed->n_namespaces; i++) {
		r = plan_namespace(&b, &observed->namespaces[i]);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < observed->n_regions; i++) {
		r = plan_region(&b, &observed->regions[i]);
		if (r < 0)
			return r;
	}

	for (size_t i = 0; i < config->n_claims; i++) {
		if (used[i] || outranked_daxctl_claim(observed, &config->claims[i]))
			continue;
		if (!plan->unmatched) {
			plan->unmatched = calloc(config->n_claims, sizeof(*plan->unmatched));
			plan->unmatched_notes = calloc(config->n_claims, sizeof(*plan->unmatched_notes));
			if (!plan->unmatched || !plan->unmatched_notes)
				return -ENOMEM;
		}
		unmatched_note(observed, &config->claims[i], plan->unmatched_notes[plan->n_unmatched],
			       sizeof(plan->unmatched_notes[0]));
		strcpy(plan->unmatched[plan->n_unmatched++], config->claims[i].name);
	}

	*ret = TAKE_PTR(plan);
	return 0;
}

bool pmemram_plan_needs_users(const struct pmemram_plan *plan)
{
	for (size_t i = 0; plan && i < plan->n_actions; i++)
		if (plan->actions[i].type == PMEMRAM_ACTION_DISABLE_DEVDAX ||
		    plan->actions[i].type == PMEMRAM_ACTION_CONVERT_NAMESPACE)
			return true;
	return false;
}

bool pmemram_plan_has_refusals(const struct pmemram_plan *plan)
{
	for (size_t i = 0; plan && i < plan->n_verdicts; i++)
		if (plan->verdicts[i].verdict == PMEMRAM_VERDICT_REFUSED)
			return true;
	return false;
}
