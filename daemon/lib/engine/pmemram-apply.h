/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The applier: performs a plan's actions in order, re-reads after each, stops at the first failure. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "pmemram-plan.h"
#include "pmemram.h"

/*
 * What changes the system.  Every operation returns 0 or -errno; none of them decides whether the
 * action took effect: the applier re-reads sysfs through the context after each one.
 *
 * The default operations (options->ops == NULL) bind drivers with writes to the dax bus's driver
 * files below the context's sysfs root; libdaxctl, which reads and writes /sys itself, only loads
 * a driver's module that is not loaded yet.  Tests install fakes here that change the fake tree as
 * the kernel would (or, to test the verification, do not).  A NULL member makes its actions fail
 * with -EOPNOTSUPP.
 */
struct pmemram_apply_ops {
	/* Unbind device_dax from a dax device (remove_id, unbind). */
	int (*disable_devdax)(struct pmemram_ctx *ctx, void *userdata, const char *device);
	/* Load kmem if needed and bind it (new_id; bind when new_id did not).  This only binds: the kernel adds
	 * the memory blocks offline unless auto_online_blocks says otherwise (the planner refuses
	 * devices whose blocks the kernel would auto-online into another zone, and the applier may
	 * set it to the claimed zone for the bind: see auto_online_record). */
	int (*enable_kmem)(struct pmemram_ctx *ctx, void *userdata, const char *device);
	/* Turn a raw/fsdax namespace into devdax, destroying its contents, or finish such a conversion
	 * cut short: pmemram_ndctl_convert_namespace().  It must refuse (-ESTALE) a namespace whose
	 * UUID is not uuid, as the applier did on reading it.  On failure why may say which step failed
	 * and what the library said, in one line that the applier puts after the namespace's name
	 * (why_size is the room a failure's reason leaves for it); "" leaves strerror(). */
	int (*convert_namespace)(struct pmemram_ctx *ctx, void *userdata, const char *namespace_name, const char *uuid,
				 char *why, size_t why_size);
	/* Create a devdax namespace with the label name name over the region's largest free extent:
	 * pmemram_ndctl_create_namespace().  why as for convert_namespace. */
	int (*create_namespace)(struct pmemram_ctx *ctx, void *userdata, const char *region, const char *name,
				char *why, size_t why_size);
	/* Make or finish the pmem CXL region of action a (CREATE_CXL_REGION): pmemram_cxl_create_region(),
	 * recording the region it makes in record_dir (options->cxl_record_dir, may be NULL).  why as
	 * for convert_namespace. */
	int (*create_cxl_region)(struct pmemram_ctx *ctx, void *userdata, const struct pmemram_action *a,
				 const char *record_dir, char *why, size_t why_size);
	/* Write value ("online_movable", "online_kernel", "offline") to memoryN/state. */
	int (*set_block_state)(struct pmemram_ctx *ctx, void *userdata, unsigned long block, const char *value);
	/* Unbind kmem from a dax device (remove_id, unbind), for release.  The kernel then removes the
	 * device's memory blocks, which must all be offline first: a block it cannot remove stays, with
	 * its range claimed, until reboot. */
	int (*disable_kmem)(struct pmemram_ctx *ctx, void *userdata, const char *device);
	/* Load device_dax if needed and bind it to an unbound dax device (bind; new_id when it does
	 * not match). */
	int (*enable_devdax)(struct pmemram_ctx *ctx, void *userdata, const char *device);
};

/* The default operations, for the library's other runners (release).  They take no userdata: the
 * libdaxctl context a module load needs lives in the pmemram context. */
extern const struct pmemram_apply_ops pmemram_apply_default_ops;

/*
 * The default convert_namespace, through libndctl; it keeps the namespace (its label and UUID,
 * which the claim matches) and gives it to a dax device instead of destroying and recreating it as
 * ndctl create-namespace -e does, which would give it a new UUID.  Each step is skipped when found
 * done, so that a conversion cut short at any point is finished by the next call:
 *   1. disable the namespace (ndctl_namespace_disable_safe: refused while its block device is open
 *      or mounted), 2. detach its fsdax (pfn) device, 3. record devdax as its claim class,
 *   4. attach the region's dax seed (new info-block UUID, memmap in the device, 2 MiB alignment)
 *      and 5. enable it; the dax device writes its info block over the old one.
 * -ESTALE when the namespace's UUID is not uuid, -EOPNOTSUPP for a sector namespace, -ENODEV when
 * libndctl does not list it.  A failure is described in why: the step that failed, its error, and
 * the last two error lines libndctl logged during the call ("; libndctl: ..."; its debug lines on a
 * failed sysfs write count), each shortened in its middle to 79 characters, the last alone when
 * both do not fit why_size.  userdata is the libndctl to call: NULL for the library itself,
 * loaded on first use, or a const struct ndctl_api * (ndctl-load.h) standing in for it, so that an
 * ops table naming this function with that userdata runs it against a fake library.
 */
int pmemram_ndctl_convert_namespace(struct pmemram_ctx *ctx, void *userdata, const char *namespace_name,
				    const char *uuid, char *why, size_t why_size);

/*
 * The default create_namespace, through libndctl, for create = devdax: a namespace of region with
 * the label name name (a claim's name) and the UUID pmemram_create_uuid() derives from it, which
 * together are how pmemram recognises it afterwards, the size pmemram_create_size() gives (the
 * region's largest free extent aligned down to its alignment and 2 MiB per interleave way), then devdax as in a conversion.  A namespace of the
 * region with that name, that UUID and a size, raw or devdax, is finished instead of making
 * another.  -EEXIST when a namespace of the region has the name or the UUID without being that one
 * (it may hold data: it is not touched); pmemram_create_size()'s -ENOSPC and -EOPNOTSUPP; -ENODEV
 * when libndctl does not list the region.  why and userdata as for pmemram_ndctl_convert_namespace().
 */
int pmemram_ndctl_create_namespace(struct pmemram_ctx *ctx, void *userdata, const char *region, const char *name,
				   char *why, size_t why_size);

/*
 * The default create_cxl_region, through libcxl, as cxl create-region -t pmem does for one memdev:
 * on root decoder a->decoder, the region whose UUID is pmemram_cxl_region_uuid() of the memdev's
 * serial (a->serial), else a new pmem region given that UUID at once; then (each step skipped when found done,
 * so that a creation cut short is finished by the next call) one way, the root decoder's
 * granularity and a->size, the memdev's endpoint decoder (the one holding exactly that much pmem
 * outside a region, else the first free one, set to pmem mode and that size) as its target, the
 * decode committed and the region enabled, which makes its nvdimm region.  A region this call makes
 * is first recorded by the name the root decoder gives it next (create_pmem_region) in
 * record_dir/PMEMRAM_CXL_RECORD_PREFIX<serial as %#llx>; when its UUID cannot be set it is deleted,
 * and a call after a run killed in between adopts the recorded region (pmem mode, from libcxl's
 * cxl_region_get_mode() or else sysfs; no UUID, interleave ways, size or target) instead of
 * making another; an adopted region is never deleted, and the record is kept when libcxl returns
 * no region.  record_dir NULL: no record, no adoption.  -ENODEV when libcxl does not list the
 * memdev, its endpoint or the root decoder; -EBUSY without a free endpoint decoder; -ESTALE,
 * touching nothing, when memdev a->device does not have serial a->serial (any more), another
 * memdev has that serial too, or the region with its UUID has another memdev's decoder as target.
 * With a->ram, as cxl create-region -t ram does: a RAM region has no UUID, so the region is the one
 * the memdev's endpoint decoder is in (-ESTALE when that is not a RAM region of one way), else the
 * recorded one (create_ram_region; adopted in RAM mode without a target), else a new one, whose
 * record stands until its target is set; the endpoint decoder is set to RAM mode.  -EOPNOTSUPP
 * when libcxl has no cxl_decoder_create_ram_region() (Debian 12's libcxl 76).  Enabled, the
 * region's dax device is made by the kernel (and, from 6.3 on, given to kmem).
 * why names the failed step and its error.  userdata is the libcxl to call: NULL for the library
 * itself, or a const struct cxl_api * (cxl-load.h) standing in for it.
 */
int pmemram_cxl_create_region(struct pmemram_ctx *ctx, void *userdata, const struct pmemram_action *a,
			      const char *record_dir, char *why, size_t why_size);

#define PMEMRAM_CXL_RECORD_PREFIX "cxl-region-"

/* The default set_block_state: write memoryN/state below the context's sysfs root and read it
 * back ("online" or "offline"); -EIO when it reads back something else.  Ignores userdata. */
int pmemram_apply_write_block_state(struct pmemram_ctx *ctx, void *userdata, unsigned long block,
				    const char *value);

/* Called before each action that is attempted (or described, in a dry run); index counts from 0. */
typedef void (*pmemram_apply_progress_fn)(struct pmemram_ctx *ctx, const struct pmemram_action *action,
					  size_t index, size_t total, void *userdata);

/* Called when an attempted action has its result (its re-read done), before the next one starts. */
struct pmemram_apply_result;
typedef void (*pmemram_apply_done_fn)(struct pmemram_ctx *ctx, const struct pmemram_apply_result *result,
				      void *userdata);

struct pmemram_apply_options {
	const struct pmemram_apply_ops *ops; /* NULL: sysfs (libdaxctl only to load a driver's module) */
	void *ops_userdata;
	pmemram_apply_progress_fn progress; /* may be NULL */
	void *progress_userdata;
	pmemram_apply_done_fn done; /* may be NULL: pmemramd logs each action as it completes */
	void *done_userdata;
	bool dry_run; /* describe every action, read and write nothing, call no operation */
	/* Where a kmem bind records the auto_online_blocks value it replaced while the kernel onlines
	 * the device's blocks into the claimed zone (PMEMRAM_AUTO_ONLINE_NAME in pmemramd's runtime
	 * directory); NULL: the knob is left alone and every block is onlined by its own write. */
	const char *auto_online_record;
	/* The runtime directory where pmemram_reconcile() records the kmem binds that succeeded as
	 * pmemram's (pmemram_onlined_note(), once after its last round), for status; NULL: not
	 * recorded.  pmemram_apply() alone does not read it. */
	const char *onlined_dir;
	/* The runtime directory where a CXL region creation records the region it is about to make
	 * (pmemram_cxl_create_region()); NULL: not recorded. */
	const char *cxl_record_dir;
};

#define PMEMRAM_AUTO_ONLINE_NAME "auto-online"

/* Put back the auto_online_blocks value a run killed during a kmem bind left in record: 1 with the
 * value in buf, 0 when there was none to put back, -errno when it could not be. */
int pmemram_apply_undo_auto_online(struct pmemram_ctx *ctx, const char *record, char *buf, size_t size);

enum pmemram_apply_status {
	PMEMRAM_APPLY_DONE,    /* performed, and the re-read shows it took effect */
	PMEMRAM_APPLY_ALREADY, /* found in the target state (a udev rule may have raced us): success */
	PMEMRAM_APPLY_FAILED,  /* result and reason say why; the run stopped here */
	PMEMRAM_APPLY_SKIPPED, /* not attempted because an earlier action failed */
	PMEMRAM_APPLY_DRY_RUN, /* dry run: reason says what would be done */
	/* not attempted: the device is no longer as the plan read it, changed by another (the kernel
	 * binding a device it was still probing); the run stopped here, and the caller plans again */
	PMEMRAM_APPLY_CHANGED,
	_PMEMRAM_APPLY_STATUS_MAX,
};

struct pmemram_apply_result {
	struct pmemram_action action;
	enum pmemram_apply_status status;
	int result;			    /* 0; -errno when FAILED, -EAGAIN when CHANGED */
	char reason[PMEMRAM_PLAN_TEXT_MAX]; /* one line naming the device or block */
	/* Block actions: the block as first read (enum pmemram_block_state, and its zone when online),
	 * -1 when not read.  Device actions: its driver as last read ("" unbound), when driver_read. */
	int state_before, zone_before;
	bool driver_read;
	char driver[32];
	/* An online-block action found done: the kernel onlined the block during the kmem bind
	 * (auto_online_blocks), this run only read it back. */
	bool by_kernel;
};

struct pmemram_apply_report {
	size_t n_results; /* one per action, in order */
	struct pmemram_apply_result *results;
	size_t n_done;	  /* DONE + ALREADY */
	long failed;	  /* index of the FAILED result, -1 when none */
	bool changed;	  /* the run stopped at a CHANGED result */
};

/*
 * Perform actions[0..n_actions) in order.  Each action is followed by a re-read that checks it took
 * effect (driver link, block state and zone); the first action that fails, or finds its device
 * changed by another, stops the run and the rest are reported SKIPPED.  Returns 0 when every
 * action succeeded, else the failed action's -errno (-EAGAIN for a changed device); *ret_report is set in both cases and must be freed.  -EINVAL/-ENOMEM before anything ran
 * leave *ret_report untouched.  The failing sysfs file, if any, is the context's error path.
 */
int pmemram_apply(struct pmemram_ctx *ctx, const struct pmemram_action *actions, size_t n_actions,
		  const struct pmemram_apply_options *options, struct pmemram_apply_report **ret_report);
struct pmemram_apply_report *pmemram_apply_report_free(struct pmemram_apply_report *report);

const char *pmemram_apply_status_to_string(enum pmemram_apply_status s);

/* A zone's name ("Movable"), or "an unknown zone". */
const char *pmemram_zone_describe(int zone);
/* A dax device's driver ("" when unbound) from its driver link; -ENODEV when the device is gone. */
int dax_driver_read(struct pmemram_ctx *ctx, const char *device, char *buf, size_t size);
/* "unbound" or "bound to kmem", in buf. */
const char *dax_driver_state(const char *driver, char *buf, size_t size);

_PMEMRAM_DEFINE_POINTER_CLEANUP_FUNC(struct pmemram_apply_report, pmemram_apply_report_free)
