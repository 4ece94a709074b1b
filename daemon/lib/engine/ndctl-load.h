/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libndctl, loaded when the first namespace conversion or creation needs it. */
#pragma once

#include <ndctl/libndctl.h>

#define NDCTL_SONAME "libndctl.so.6"

struct pmemram_ctx;

/* The functions of libndctl that namespace conversion and creation call, typed by its header. */
struct ndctl_api {
	typeof(ndctl_new) *new_ctx;
	typeof(ndctl_unref) *unref;
	typeof(ndctl_set_log_fn) *set_log_fn;
	typeof(ndctl_set_log_priority) *set_log_priority;
	typeof(ndctl_bus_get_first) *bus_get_first;
	typeof(ndctl_bus_get_next) *bus_get_next;
	typeof(ndctl_region_get_first) *region_get_first;
	typeof(ndctl_region_get_next) *region_get_next;
	typeof(ndctl_region_get_devname) *region_get_devname;
	typeof(ndctl_region_get_namespace_seed) *region_get_namespace_seed;
	typeof(ndctl_region_get_max_available_extent) *region_get_max_available_extent;
	typeof(ndctl_region_get_interleave_ways) *region_get_interleave_ways;
	typeof(ndctl_region_get_align) *region_get_align;
	typeof(ndctl_namespace_get_first) *namespace_get_first;
	typeof(ndctl_namespace_get_next) *namespace_get_next;
	typeof(ndctl_namespace_get_devname) *namespace_get_devname;
	typeof(ndctl_namespace_get_uuid) *namespace_get_uuid;
	typeof(ndctl_namespace_get_alt_name) *namespace_get_alt_name;
	typeof(ndctl_namespace_get_size) *namespace_get_size;
	typeof(ndctl_namespace_set_uuid) *namespace_set_uuid;
	typeof(ndctl_namespace_set_alt_name) *namespace_set_alt_name;
	typeof(ndctl_namespace_set_size) *namespace_set_size;
	typeof(ndctl_namespace_is_active) *namespace_is_active;
	typeof(ndctl_namespace_disable_safe) *namespace_disable_safe;
	typeof(ndctl_namespace_set_enforce_mode) *namespace_set_enforce_mode;
	typeof(ndctl_namespace_get_pfn) *namespace_get_pfn;
	typeof(ndctl_namespace_get_btt) *namespace_get_btt;
	typeof(ndctl_namespace_get_dax) *namespace_get_dax;
	typeof(ndctl_pfn_get_uuid) *pfn_get_uuid;
	typeof(ndctl_pfn_delete) *pfn_delete;
	typeof(ndctl_region_get_dax_seed) *region_get_dax_seed;
	typeof(ndctl_dax_get_uuid) *dax_get_uuid;
	typeof(ndctl_dax_set_uuid) *dax_set_uuid;
	typeof(ndctl_dax_set_location) *dax_set_location;
	typeof(ndctl_dax_set_align) *dax_set_align;
	typeof(ndctl_dax_set_namespace) *dax_set_namespace;
	typeof(ndctl_dax_enable) *dax_enable;
	typeof(ndctl_dax_is_enabled) *dax_is_enabled;
};

/*
 * libndctl's functions, the library opened on the first call and kept for the process's life:
 * only a conversion or creation needs it, and linked at build time it would be loaded by every pmemramctl
 * (see daxctl-load.h).  -ELIBACC, with dlerror()'s words in the log, when the library or one of
 * its functions is missing.
 */
int ndctl_api_get(struct pmemram_ctx *ctx, const struct ndctl_api **ret);
