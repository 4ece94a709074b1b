/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libdaxctl, loaded when the first device operation needs it. */
#pragma once

#include <daxctl/libdaxctl.h>

#define DAXCTL_SONAME "libdaxctl.so.1"

struct pmemram_ctx;

/* The functions of libdaxctl that the applier calls, typed by the library's header. */
struct daxctl_api {
	typeof(daxctl_new) *new_ctx;
	typeof(daxctl_unref) *unref;
	typeof(daxctl_set_userdata) *set_userdata;
	typeof(daxctl_get_userdata) *get_userdata;
	typeof(daxctl_set_log_fn) *set_log_fn;
	typeof(daxctl_set_log_priority) *set_log_priority;
	typeof(daxctl_region_get_first) *region_get_first;
	typeof(daxctl_region_get_next) *region_get_next;
	typeof(daxctl_dev_get_first) *dev_get_first;
	typeof(daxctl_dev_get_next) *dev_get_next;
	typeof(daxctl_dev_get_devname) *dev_get_devname;
	typeof(daxctl_dev_enable_ram) *dev_enable_ram;
	typeof(daxctl_dev_enable_devdax) *dev_enable_devdax;
};

/*
 * libdaxctl's functions, the library opened on the first call and kept for the process's life.
 * Linked at build time, libdaxctl would be loaded by every pmemramctl, with libkmod and the
 * compression and crypto libraries libkmod needs: about a third of the start of a process that
 * only asks pmemramd something or onlines one block.  -ELIBACC, with dlerror()'s words in the
 * log, when the library or one of its functions is missing.
 */
int daxctl_api_get(struct pmemram_ctx *ctx, const struct daxctl_api **ret);
