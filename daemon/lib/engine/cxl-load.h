/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libcxl, loaded when the first CXL region creation needs it. */
#pragma once

#include <cxl/libcxl.h>

#define CXL_SONAME "libcxl.so.1"

struct pmemram_ctx;

/* The functions of libcxl that CXL region creation calls, typed by its header. */
struct cxl_api {
	typeof(cxl_new) *new_ctx;
	typeof(cxl_unref) *unref;
	typeof(cxl_set_log_fn) *set_log_fn;
	typeof(cxl_set_log_priority) *set_log_priority;
	typeof(cxl_memdev_get_first) *memdev_get_first;
	typeof(cxl_memdev_get_next) *memdev_get_next;
	typeof(cxl_memdev_get_devname) *memdev_get_devname;
	typeof(cxl_memdev_get_endpoint) *memdev_get_endpoint;
	typeof(cxl_memdev_get_serial) *memdev_get_serial;
	typeof(cxl_endpoint_get_port) *endpoint_get_port;
	typeof(cxl_decoder_get_by_name) *decoder_get_by_name;
	typeof(cxl_decoder_get_first) *decoder_get_first;
	typeof(cxl_decoder_get_next) *decoder_get_next;
	typeof(cxl_decoder_get_devname) *decoder_get_devname;
	typeof(cxl_decoder_get_region) *decoder_get_region;
	typeof(cxl_decoder_get_memdev) *decoder_get_memdev;
	typeof(cxl_decoder_get_dpa_size) *decoder_get_dpa_size;
	typeof(cxl_decoder_get_mode) *decoder_get_mode;
	typeof(cxl_decoder_set_mode) *decoder_set_mode;
	typeof(cxl_decoder_set_dpa_size) *decoder_set_dpa_size;
	typeof(cxl_decoder_get_interleave_granularity) *decoder_get_interleave_granularity;
	typeof(cxl_decoder_create_pmem_region) *decoder_create_pmem_region;
	/* cxl_decoder_create_ram_region(), not in Debian 12's libcxl 76: NULL when absent. */
	struct cxl_region *(*decoder_create_ram_region)(struct cxl_decoder *decoder);
	typeof(cxl_region_get_first) *region_get_first;
	typeof(cxl_region_get_next) *region_get_next;
	typeof(cxl_region_get_devname) *region_get_devname;
	typeof(cxl_region_get_uuid) *region_get_uuid;
	typeof(cxl_region_get_size) *region_get_size;
	typeof(cxl_region_get_target_decoder) *region_get_target_decoder;
	typeof(cxl_region_get_interleave_ways) *region_get_interleave_ways;
	/* cxl_region_get_mode(), LIBCXL_5 (not in Debian 12's libcxl 76): NULL when absent. */
	enum cxl_decoder_mode (*region_get_mode)(struct cxl_region *region);
	typeof(cxl_region_set_uuid) *region_set_uuid;
	typeof(cxl_region_set_interleave_granularity) *region_set_interleave_granularity;
	typeof(cxl_region_set_interleave_ways) *region_set_interleave_ways;
	typeof(cxl_region_set_size) *region_set_size;
	typeof(cxl_region_set_target) *region_set_target;
	typeof(cxl_region_decode_is_committed) *region_decode_is_committed;
	typeof(cxl_region_decode_commit) *region_decode_commit;
	typeof(cxl_region_is_enabled) *region_is_enabled;
	typeof(cxl_region_enable) *region_enable;
	typeof(cxl_region_delete) *region_delete;
};

/*
 * libcxl's functions, the library opened on the first call and kept for the process's life, as
 * libndctl's are (ndctl-load.h).  -ELIBACC, with dlerror()'s words in the log, when the library or
 * one of its functions is missing.
 */
int cxl_api_get(struct pmemram_ctx *ctx, const struct cxl_api **ret);
