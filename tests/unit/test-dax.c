/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for dax device discovery: driver -> mode, target node, size, align, resource. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>

#include "fake-sysfs.h"
#include "pmemram-observe.h"
#include "pmemram-private.h"

#define ENV(state) ((struct fake_env *)*(state))

static void test_hmat_devices(void **state)
{
	_cleanup_(pmemram_dax_list_freep) struct pmemram_dax_list *l = NULL;
	const struct pmemram_dax *d;

	assert_int_equal(pmemram_dax_list_read(ENV(state)->ctx, &l), 0);
	assert_int_equal(l->n_devices, 2);

	d = &l->devices[0];
	assert_string_equal(d->name, "dax0.0");
	assert_string_equal(d->driver, "kmem");
	assert_int_equal(d->mode, PMEMRAM_DAX_SYSTEM_RAM);
	assert_int_equal(d->target_node, 2);
	assert_int_equal(d->size, 1006ULL * 1024 * 1024);
	assert_int_equal(d->align, 2 * 1024 * 1024);
	assert_true(d->has_resource);
	assert_int_equal(d->resource, 0x140000000ULL);

	d = &l->devices[1];
	assert_string_equal(d->name, "dax1.0");
	assert_int_equal(d->mode, PMEMRAM_DAX_DEVDAX);
	assert_int_equal(d->size, 256 * 1024 * 1024);
	assert_false(d->has_resource);
	assert_null(pmemram_ctx_get_error_path(ENV(state)->ctx));
}

static void test_unbound_and_sorted(void **state)
{
	_cleanup_(pmemram_dax_list_freep) struct pmemram_dax_list *l = NULL;
	struct fake_env *env = ENV(state);

	assert_int_equal(fake_env_break(env, "bus/dax/devices/dax1.0/driver", NULL), 0);
	assert_int_equal(fake_sysfs_write(env->root, "bus/dax/devices/dax10.0/target_node", "-1\n"), 0);
	assert_int_equal(fake_sysfs_write(env->root, "bus/dax/devices/dax10.0/size", "0\n"), 0);
	assert_int_equal(pmemram_dax_list_read(env->ctx, &l), 0);
	assert_int_equal(l->n_devices, 3);
	assert_string_equal(l->devices[1].name, "dax1.0");
	assert_int_equal(l->devices[1].mode, PMEMRAM_DAX_UNBOUND);
	assert_string_equal(l->devices[1].driver, "");
	assert_string_equal(l->devices[2].name, "dax10.0");
	assert_int_equal(l->devices[2].target_node, -1);
	assert_int_equal(l->devices[2].align, 0);
	l = pmemram_dax_list_free(l);

	/* As the kernel shows no node: target_node hidden, not -1 (6.1 and 6.12 alike). */
	assert_int_equal(fake_env_break(env, "bus/dax/devices/dax10.0/target_node", NULL), 0);
	assert_int_equal(pmemram_dax_list_read(env->ctx, &l), 0);
	assert_int_equal(l->n_devices, 3);
	assert_int_equal(l->devices[2].target_node, -1);
}

static void test_no_dax_bus(void **state)
{
	_cleanup_(pmemram_dax_list_freep) struct pmemram_dax_list *l = NULL;

	assert_int_equal(pmemram_dax_list_read(ENV(state)->ctx, &l), 0);
	assert_int_equal(l->n_devices, 0);
	assert_null(pmemram_ctx_get_error_path(ENV(state)->ctx));
}

/* Each provider's place in the device tree, as 6.1 and later kernels lay them out. */
static void test_parse_source(void **state)
{
	static const struct {
		const char *target;
		enum pmemram_dax_source source;
		const char *provider;
	} cases[] = {
		{ "../../../devices/platform/hmem.0/dax0.0", PMEMRAM_DAX_SOURCE_HMEM, "hmem.0" },
		{ "../../../devices/platform/hmem.12/dax3.0/", PMEMRAM_DAX_SOURCE_HMEM, "hmem.12" },
		{ "../../../devices/platform/ACPI0012:00/ndbus0/region1/dax1.0/dax1.0", PMEMRAM_DAX_SOURCE_NVDIMM,
		  "region1" },
		/* a CXL ram region: cxl_dax_region below the CXL region below the root decoder */
		{ "../../../devices/platform/ACPI0017:00/root0/decoder0.0/region0/dax_region0/dax0.0",
		  PMEMRAM_DAX_SOURCE_CXL, "region0" },
		/* a CXL pmem region: an NVDIMM region on the CXL nvdimm-bridge's ndbus */
		{ "../../../devices/platform/ACPI0017:00/root0/nvdimm-bridge0/ndbus1/region3/dax3.0/dax3.0",
		  PMEMRAM_DAX_SOURCE_CXL, "region3" },
		{ "/sys/devices/pci0000:00/decoder2.1/region5/dax_region5/dax5.0", PMEMRAM_DAX_SOURCE_CXL, "region5" },
		/* near misses: no digits, a region outside an ndbus or decoder, a CXL root without region */
		{ "../../../devices/platform/hmem./dax0.0", PMEMRAM_DAX_SOURCE_UNKNOWN, "" },
		{ "../../../devices/platform/hmem.0x/dax0.0", PMEMRAM_DAX_SOURCE_UNKNOWN, "" },
		{ "../../../devices/virtual/region0/dax0.0", PMEMRAM_DAX_SOURCE_UNKNOWN, "" },
		{ "../../../devices/platform/ACPI0017:00/root0/dax0.0", PMEMRAM_DAX_SOURCE_UNKNOWN, "" },
		{ "../../../devices/platform/ndbus/region0/dax0.0", PMEMRAM_DAX_SOURCE_UNKNOWN, "" },
		{ "", PMEMRAM_DAX_SOURCE_UNKNOWN, "" },
		{ "///", PMEMRAM_DAX_SOURCE_UNKNOWN, "" },
	};
	enum pmemram_dax_source source;
	char provider[32];

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		source = _PMEMRAM_DAX_SOURCE_MAX;
		assert_int_equal(pmemram_parse_dax_source(cases[i].target, &source, provider, sizeof(provider)), 0);
		assert_int_equal(source, cases[i].source);
		assert_string_equal(provider, cases[i].provider);
	}
	assert_int_equal(pmemram_parse_dax_source(NULL, &source, provider, sizeof(provider)), -EINVAL);
	assert_string_equal(pmemram_dax_source_to_string(PMEMRAM_DAX_SOURCE_HMEM), "hmem");
	assert_null(pmemram_dax_source_to_string(_PMEMRAM_DAX_SOURCE_MAX));
}

/* The fake tree's NVDIMM devices and a soft-reserved one beside them. */
static void test_sources(void **state)
{
	_cleanup_(pmemram_dax_list_freep) struct pmemram_dax_list *l = NULL;
	struct fake_env *env = ENV(state);

	assert_int_equal(fake_sysfs_add_hmem(env->root, 0, "dax2.0", "device_dax", 1, 256ULL << 20, 0x60000000), 0);
	assert_int_equal(pmemram_dax_list_read(env->ctx, &l), 0);
	assert_int_equal(l->n_devices, 3);
	assert_int_equal(l->devices[0].source, PMEMRAM_DAX_SOURCE_NVDIMM);
	assert_string_equal(l->devices[0].provider, "region0");
	assert_int_equal(l->devices[1].source, PMEMRAM_DAX_SOURCE_NVDIMM);
	assert_string_equal(l->devices[1].provider, "region1");
	assert_string_equal(l->devices[2].name, "dax2.0");
	assert_int_equal(l->devices[2].source, PMEMRAM_DAX_SOURCE_HMEM);
	assert_string_equal(l->devices[2].provider, "hmem.0");
	assert_int_equal(l->devices[2].mode, PMEMRAM_DAX_DEVDAX);
	assert_int_equal(l->devices[2].target_node, 1);
	assert_int_equal(l->devices[2].resource, 0x60000000);
	assert_null(pmemram_ctx_get_error_path(env->ctx));
}

/* A device's mappingN, in device order whatever their numbers; in pieces, or one range. */
static void test_ranges(void **state)
{
	_cleanup_(pmemram_dax_list_freep) struct pmemram_dax_list *l = NULL;
	struct fake_env *env = ENV(state);
	const struct pmemram_dax *d;
	char buf[128];

	assert_int_equal(fake_sysfs_add_hmem(env->root, 0, "dax2.0", "device_dax", 1, 256ULL << 20, 0x70000000), 0);
	/* mapping0 holds the device's second half (page_offset in pages): the first listed is mapping1 */
	assert_int_equal(fake_sysfs_add_dax_mapping(env->root, "dax2.0", 0, 0x60000000, 0x67ffffff, 0x8000), 0);
	assert_int_equal(fake_sysfs_add_dax_mapping(env->root, "dax2.0", 1, 0x70000000, 0x77ffffff, 0), 0);
	assert_int_equal(pmemram_dax_list_read(env->ctx, &l), 0);
	d = &l->devices[2];
	assert_int_equal(d->n_ranges, 2);
	assert_int_equal(d->ranges[0].start, 0x70000000);
	assert_int_equal(d->ranges[0].end, 0x77ffffff);
	assert_int_equal(d->ranges[1].start, 0x60000000);
	assert_int_equal(d->ranges[1].page_offset, 0x8000);
	assert_false(pmemram_dax_contiguous(d, 0));
	assert_string_equal(pmemram_dax_ranges_format(d, buf, sizeof(buf)),
			    "0x70000000-0x77ffffff, 0x60000000-0x67ffffff");
	/* cut to fit */
	assert_string_equal(pmemram_dax_ranges_format(d, buf, 12), "0x70000000-");
	/* inside: every range, not resource and size */
	assert_true(pmemram_dax_inside(d, 0x60000000, 0x77ffffff));
	assert_false(pmemram_dax_inside(d, 0x70000000, 0x7fffffff));
	assert_false(pmemram_dax_inside(d, 0x60000000, 0x6fffffff));

	/* NVDIMM devices without mappingN (before 5.10): one range, resource and size */
	assert_int_equal(l->devices[0].n_ranges, 0);
	assert_true(pmemram_dax_contiguous(&l->devices[0], 0));
	assert_true(pmemram_dax_inside(&l->devices[0], 0x140000000, 0x140000000 + 1054867456 - 1));
	assert_false(pmemram_dax_inside(&l->devices[0], 0x140000000, 0x140000000 + 1054867456 - 2));
	/* no address known: inside nothing */
	assert_false(pmemram_dax_inside(&l->devices[1], 0, UINT64_MAX));
	l = pmemram_dax_list_free(l);

	/* The two pieces next to each other: one range. */
	assert_int_equal(fake_sysfs_add_dax_mapping(env->root, "dax2.0", 0, 0x78000000, 0x7fffffff, 0x8000), 0);
	assert_int_equal(pmemram_dax_list_read(env->ctx, &l), 0);
	assert_true(pmemram_dax_contiguous(&l->devices[2], 0));
	/* joined at 0x78000000: on a block boundary for 128 MiB blocks, inside a 256 MiB block, which
	 * kmem would add for neither range */
	assert_true(pmemram_dax_contiguous(&l->devices[2], 128ULL << 20));
	assert_false(pmemram_dax_contiguous(&l->devices[2], 256ULL << 20));
	assert_true(pmemram_dax_inside(&l->devices[2], 0x70000000, 0x7fffffff));
	l = pmemram_dax_list_free(l);

	/* An end before its start is an error, blamed on the file. */
	assert_int_equal(fake_sysfs_write(env->root, "bus/dax/devices/dax2.0/mapping0/end", "0x1000\n"), 0);
	assert_int_equal(pmemram_dax_list_read(env->ctx, &l), -EINVAL);
	assert_true(fake_env_error_path_is(env, "bus/dax/devices/dax2.0/mapping0/end"));
	assert_int_equal(fake_sysfs_remove(env->root, "bus/dax/devices/dax2.0/mapping0/end"), 0);
	assert_int_equal(pmemram_dax_list_read(env->ctx, &l), -ENOENT);
	assert_true(fake_env_error_path_is(env, "bus/dax/devices/dax2.0/mapping0/end"));
}

static int read_dax(struct pmemram_ctx *ctx)
{
	struct pmemram_dax_list *l = (struct pmemram_dax_list *)0x1;
	int r;

	r = pmemram_dax_list_read(ctx, &l);
	if (r < 0)
		assert_ptr_equal(l, (struct pmemram_dax_list *)0x1);
	else
		pmemram_dax_list_free(l);
	return r;
}

static void test_failures(void **state)
{
	static const struct fake_failure cases[] = {
		{ "bus/dax/devices/dax0.0/size", NULL, -ENOENT, NULL },
		{ "bus/dax/devices/dax0.0/target_node", "two\n", -EINVAL, NULL },
		{ "bus/dax/devices/dax0.0/target_node", "-2\n", -EINVAL, NULL },
		{ "bus/dax/devices/dax0.0/resource", "0xnope\n", -EINVAL, NULL },
	};

	fake_expect_failures(FAKE_KERNEL_HMAT, cases, ELEMENTSOF(cases), read_dax);
}

#define FAKE_TEST(fn, setup) cmocka_unit_test_setup_teardown(fn, setup, fake_env_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		FAKE_TEST(test_hmat_devices, fake_env_setup_hmat),
		FAKE_TEST(test_unbound_and_sorted, fake_env_setup_hmat),
		FAKE_TEST(test_no_dax_bus, fake_env_setup_stock),
		FAKE_TEST(test_sources, fake_env_setup_hmat),
		FAKE_TEST(test_ranges, fake_env_setup_hmat),
		cmocka_unit_test(test_parse_source),
		cmocka_unit_test(test_failures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
