/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the CXL side of nvdimm regions on a fake sysfs laid out as the cxl-pmem VM shows it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>

#include "fake-sysfs.h"
#include "pmemram-config.h"
#include "pmemram-observe.h"
#include "pmemram-private.h"

#define ENV(state) ((struct fake_env *)*(state))
#define ROOT0 "devices/platform/ACPI0017:00/root0"
#define NDBUS1 ROOT0 "/nvdimm-bridge0/ndbus1"
#define MEMDEV(n) "devices/pci0000:0c/0000:0c:00.0/0000:0d:0" #n ".0/mem" #n

#define W(root, path, ...) assert_int_equal(fake_sysfs_write((root), (path), __VA_ARGS__), 0)
#define L(root, path, target) assert_int_equal(fake_sysfs_symlink((root), (path), (target)), 0)

/* Memdev memN with serial, below its endpoint endpointE, whose decoderE.0 is linked from bus/cxl. */
static void add_memdev(const char *root, int n, int e, const char *serial)
{
	char path[160], target[160];

	snprintf(path, sizeof(path), "devices/pci0000:0c/0000:0c:00.0/0000:0d:0%d.0/mem%d/serial", n, n);
	W(root, path, "%s\n", serial);
	snprintf(path, sizeof(path), ROOT0 "/port1/endpoint%d/uport", e);
	snprintf(target, sizeof(target), "../../../../../pci0000:0c/0000:0c:00.0/0000:0d:0%d.0/mem%d", n, n);
	L(root, path, target);
	snprintf(path, sizeof(path), ROOT0 "/port1/endpoint%d/decoder%d.0/mode", e, e);
	W(root, path, "pmem\n");
	snprintf(path, sizeof(path), "bus/cxl/devices/decoder%d.0", e);
	snprintf(target, sizeof(target), "../../../" ROOT0 "/port1/endpoint%d/decoder%d.0", e, e);
	L(root, path, target);
}

/* The HMAT tree (NFIT regions 0..3, region0 at 0x140000000) and, as the cxl-pmem guest shows after
 * cxl create-region and ndctl create-namespace: CXL region0 at 0x110000000 (512 MiB) on mem0
 * (serial 0x5eed0001), its nvdimm region region4 below the CXL root's nvdimm bridge, and
 * dax4.0 in it.  mem1 (serial 0x5eed0002) is in no region. */
static int setup(void **state)
{
	const char *root;

	if (fake_env_setup_hmat(state) < 0)
		return -1;
	root = ENV(state)->root;
	W(root, "devices/platform/ACPI0012:00/ndbus0/region0/resource", "0x140000000\n");

	W(root, ROOT0 "/decoder0.0/region0/resource", "0x110000000\n");
	W(root, ROOT0 "/decoder0.0/region0/size", "0x20000000\n");
	W(root, ROOT0 "/decoder0.0/region0/interleave_ways", "1\n");
	W(root, ROOT0 "/decoder0.0/region0/target0", "decoder2.0\n");
	L(root, "bus/cxl/devices/region0", "../../../" ROOT0 "/decoder0.0/region0");
	add_memdev(root, 0, 2, "0x5eed0001");
	add_memdev(root, 1, 3, "0x5eed0002");

	W(root, NDBUS1 "/region4/resource", "0x110000000\n");
	W(root, NDBUS1 "/region4/size", "536870912\n");
	L(root, "bus/nd/devices/region4", "../../../" NDBUS1 "/region4");
	W(root, NDBUS1 "/region4/namespace4.0/uuid", "857db865-97c7-4bb9-969d-bbb9aedc9b8c\n");
	L(root, "bus/nd/devices/namespace4.0", "../../../" NDBUS1 "/region4/namespace4.0");
	W(root, NDBUS1 "/region4/dax4.0/namespace", "namespace4.0\n");
	W(root, NDBUS1 "/region4/dax4.0/dax4.0/size", "526385152\n");
	L(root, "bus/dax/devices/dax4.0", "../../../" NDBUS1 "/region4/dax4.0/dax4.0");
	return 0;
}

static void test_origin(void **state)
{
	struct pmemram_cxl_origin o = { .n_serials = 7 };

	assert_int_equal(pmemram_cxl_origin_read(ENV(state)->ctx, "region4", &o), 1);
	assert_string_equal(o.region, "region0");
	assert_int_equal(o.n_serials, 1);
	assert_int_equal(o.serials[0], 0x5eed0001);

	/* An NFIT region of the same name as the CXL region is not on it. */
	assert_int_equal(pmemram_cxl_origin_read(ENV(state)->ctx, "region0", &o), 0);
	assert_string_equal(o.region, "");
	assert_int_equal(o.n_serials, 0);
	assert_null(pmemram_ctx_get_error_path(ENV(state)->ctx));
}

/* An NFIT region is not looked up on the CXL bus, not even one with a CXL region's range: only
 * the link that tells it below no nvdimm bridge is read. */
static void test_nfit_skipped(void **state)
{
	const char *root = ENV(state)->root;
	struct pmemram_cxl_origin o;
	uint64_t before;

	W(root, "devices/platform/ACPI0012:00/ndbus0/region0/resource", "0x110000000\n");
	W(root, "devices/platform/ACPI0012:00/ndbus0/region0/size", "536870912\n");
	before = pmemram_ctx_get_accesses(ENV(state)->ctx, PMEMRAM_ROOT_SYSFS);
	assert_int_equal(pmemram_cxl_origin_read(ENV(state)->ctx, "region0", &o), 0);
	assert_string_equal(o.region, "");
	assert_int_equal(o.error, 0);
	assert_int_equal(pmemram_ctx_get_accesses(ENV(state)->ctx, PMEMRAM_ROOT_SYSFS) - before, 1);

	/* One whose link cannot be read: unknown, said so. */
	assert_int_equal(pmemram_cxl_origin_read(ENV(state)->ctx, "region9", &o), 0);
	assert_int_equal(o.error, -ENOENT);
	assert_true(strstr(o.error_path, "bus/nd/devices/region9") != NULL);
}

/* The whole chain from the dax device, as the planner gets it. */
static void test_dax_chain(void **state)
{
	struct pmemram_observed_dax d = {};

	strcpy(d.dax.name, "dax4.0");
	assert_int_equal(pmemram_dax_namespace_read(ENV(state)->ctx, &d), 0);
	assert_string_equal(d.region, "region4");
	assert_string_equal(d.uuid, "857db865-97c7-4bb9-969d-bbb9aedc9b8c");
	assert_string_equal(d.cxl.region, "region0");
	assert_int_equal(d.cxl.n_serials, 1);
	assert_int_equal(d.cxl.serials[0], 0x5eed0001);

	/* NVDIMM (NFIT) devices: nothing on CXL. */
	strcpy(d.dax.name, "dax0.0");
	assert_int_equal(pmemram_dax_namespace_read(ENV(state)->ctx, &d), 0);
	assert_string_equal(d.region, "region0");
	assert_string_equal(d.cxl.region, "");
	assert_int_equal(d.cxl.n_serials, 0);
}

/* A CXL RAM region (6.3+): its dax region hangs below the CXL region, with no namespace; the
 * listing names region1 as the provider, and the origin is that region's memdev. */
static void test_ram_region(void **state)
{
	const char *root = ENV(state)->root;
	struct pmemram_observed_dax d = {};

	W(root, ROOT0 "/decoder0.0/region1/mode", "ram\n");
	W(root, ROOT0 "/decoder0.0/region1/interleave_ways", "1\n");
	W(root, ROOT0 "/decoder0.0/region1/target0", "decoder3.0\n");
	L(root, "bus/cxl/devices/region1", "../../../" ROOT0 "/decoder0.0/region1");
	W(root, ROOT0 "/decoder0.0/region1/dax_region5/dax5.0/size", "536870912\n");
	L(root, "bus/dax/devices/dax5.0", "../../../" ROOT0 "/decoder0.0/region1/dax_region5/dax5.0");

	strcpy(d.dax.name, "dax5.0");
	assert_int_equal(pmemram_dax_source_read(ENV(state)->ctx, &d.dax), 0);
	assert_int_equal(d.dax.source, PMEMRAM_DAX_SOURCE_CXL);
	assert_string_equal(d.dax.provider, "region1");
	assert_int_equal(pmemram_dax_namespace_read(ENV(state)->ctx, &d), 0);
	assert_string_equal(d.region, "");
	assert_string_equal(d.uuid, "");
	assert_string_equal(d.cxl.region, "region1");
	assert_int_equal(d.cxl.n_serials, 1);
	assert_int_equal(d.cxl.serials[0], 0x5eed0002);

	/* Its memdev gone from under the region: unknown, said so, not an error. */
	W(root, ROOT0 "/decoder0.0/region1/target0", "decoder9.0\n");
	assert_int_equal(pmemram_dax_namespace_read(ENV(state)->ctx, &d), 0);
	assert_string_equal(d.cxl.region, "");
	assert_int_equal(d.cxl.error, -ENOENT);
}

/* A two-way interleave with its second position not filled yet, and a CXL region without space
 * (resource all ones, size 0: no wrap-around may make it hold anything). */
static void test_interleave(void **state)
{
	const char *root = ENV(state)->root;
	struct pmemram_cxl_origin o;

	W(root, ROOT0 "/decoder0.0/region0/interleave_ways", "2\n");
	W(root, ROOT0 "/decoder0.0/region0/target1", "\n");
	assert_int_equal(pmemram_cxl_origin_read(ENV(state)->ctx, "region4", &o), 1);
	assert_int_equal(o.n_serials, 1);

	W(root, ROOT0 "/decoder0.0/region0/target1", "decoder3.0\n");
	assert_int_equal(pmemram_cxl_origin_read(ENV(state)->ctx, "region4", &o), 1);
	assert_int_equal(o.n_serials, 2);
	assert_int_equal(o.serials[0], 0x5eed0001);
	assert_int_equal(o.serials[1], 0x5eed0002);

	W(root, ROOT0 "/decoder0.0/region1/resource", "0xffffffffffffffff\n");
	W(root, ROOT0 "/decoder0.0/region1/size", "0x0\n");
	L(root, "bus/cxl/devices/region1", "../../../" ROOT0 "/decoder0.0/region1");
	W(root, ROOT0 "/decoder0.0/region0/resource", "0x200000000\n");
	assert_int_equal(pmemram_cxl_origin_read(ENV(state)->ctx, "region4", &o), 0);
	assert_string_equal(o.region, "");
}

/* A CXL region partly overlapping the nvdimm region does not hold it. */
static void test_partial_overlap(void **state)
{
	struct pmemram_cxl_origin o;

	W(ENV(state)->root, ROOT0 "/decoder0.0/region0/size", "0x10000000\n");
	assert_int_equal(pmemram_cxl_origin_read(ENV(state)->ctx, "region4", &o), 0);
	W(ENV(state)->root, ROOT0 "/decoder0.0/region0/resource", "0x110000001\n");
	W(ENV(state)->root, ROOT0 "/decoder0.0/region0/size", "0x40000000\n");
	assert_int_equal(pmemram_cxl_origin_read(ENV(state)->ctx, "region4", &o), 0);
}

/* Only a CXL region of exactly the nvdimm region's range is its pmem region: not a larger one
 * holding it, nor a ram region (mode, 6.3+) of the same range. */
static void test_exact_range(void **state)
{
	const char *root = ENV(state)->root;
	struct pmemram_cxl_origin o;

	W(root, ROOT0 "/decoder0.0/region0/size", "0x40000000\n");
	assert_int_equal(pmemram_cxl_origin_read(ENV(state)->ctx, "region4", &o), 0);
	assert_string_equal(o.region, "");
	W(root, ROOT0 "/decoder0.0/region0/resource", "0x100000000\n");
	assert_int_equal(pmemram_cxl_origin_read(ENV(state)->ctx, "region4", &o), 0);

	W(root, ROOT0 "/decoder0.0/region0/resource", "0x110000000\n");
	W(root, ROOT0 "/decoder0.0/region0/size", "0x20000000\n");
	W(root, ROOT0 "/decoder0.0/region0/mode", "ram\n");
	assert_int_equal(pmemram_cxl_origin_read(ENV(state)->ctx, "region4", &o), 0);
	W(root, ROOT0 "/decoder0.0/region0/mode", "pmem\n");
	assert_int_equal(pmemram_cxl_origin_read(ENV(state)->ctx, "region4", &o), 1);
	assert_string_equal(o.region, "region0");
	assert_null(pmemram_ctx_get_error_path(ENV(state)->ctx));
}

/* Without a CXL bus nothing is read beyond the missing directory. */
static void test_no_cxl(void **state)
{
	struct pmemram_cxl_origin o;

	assert_int_equal(fake_sysfs_remove(ENV(state)->root, "bus/cxl"), 0);
	assert_int_equal(fake_sysfs_remove(ENV(state)->root, NDBUS1 "/region4/resource"), 0);
	assert_int_equal(pmemram_cxl_origin_read(ENV(state)->ctx, "region4", &o), 0);
	assert_null(pmemram_ctx_get_error_path(ENV(state)->ctx));
}

/* A damaged tree (a memdev or region going away) leaves the CXL side empty and says what could not
 * be read, instead of failing: only -ENOMEM fails. */
static void test_failures(void **state)
{
	static const struct fake_failure cases[] = {
		{ ROOT0 "/decoder0.0/region0/resource", "none\n", -EINVAL, "bus/cxl/devices/region0/resource" },
		{ ROOT0 "/decoder0.0/region0/size", NULL, -ENOENT, "bus/cxl/devices/region0/size" },
		{ ROOT0 "/decoder0.0/region0/target0", "../../mem0\n", -EINVAL, "bus/cxl/devices/region0/target0" },
		{ ROOT0 "/decoder0.0/region0/target0", "decoder9.0\n", -ENOENT,
		  "bus/cxl/devices/decoder9.0/../uport/serial" },
		{ MEMDEV(0) "/serial", "0x5eed000z\n", -EINVAL, "bus/cxl/devices/decoder2.0/../uport/serial" },
		{ NDBUS1 "/region4/resource", NULL, -ENOENT, "bus/nd/devices/region4/resource" },
		{ NDBUS1 "/region4/size", "0\n", -EINVAL, "bus/nd/devices/region4/size" },
	};

	(void)state;
	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		const struct fake_failure *c = &cases[i];
		struct pmemram_cxl_origin o = { .region = "x" };
		struct fake_env *env = NULL;
		char blamed[256];
		int r;

		assert_int_equal(setup((void **)&env), 0);
		assert_int_equal(fake_env_break(env, c->file, c->content), 0);
		snprintf(blamed, sizeof(blamed), "%s/%s", env->root, c->blamed);
		r = pmemram_cxl_origin_read(env->ctx, "region4", &o);
		if (r != 0 || o.error != c->error || strcmp(o.error_path, blamed) != 0)
			fail_msg("damaging %s: got %d, error %d on %s; expected 0, error %d on %s", c->file, r, o.error,
				 o.error_path, c->error, blamed);
		assert_string_equal(o.region, "");
		assert_int_equal(o.n_serials, 0);
		assert_null(pmemram_ctx_get_error_path(env->ctx));
		fake_env_teardown((void **)&env);
	}
}

/* A CXL region torn down while listed: every nd-backed device is compared with it, yet the
 * observation goes on, the NVDIMM device beside it is planned, and the CXL claim that matched
 * nothing says why. */
static void test_torn_down(void **state)
{
	static const char text[] = "[claim \"nv\"]\nmatch = uuid:" FAKE_UUID_KMEM "\n\n"
				   "[claim \"cxl\"]\nmatch = cxl-region:region0\n";
	_cleanup_(pmemram_observation_freep) struct pmemram_observation *o = NULL;
	_cleanup_(pmemram_config_freep) struct pmemram_config *c = NULL;
	_cleanup_(pmemram_plan_freep) struct pmemram_plan *plan = NULL;
	struct pmemram_config_errors e = {};
	const struct pmemram_observed_dax *cxl = NULL;
	const char *root = ENV(state)->root;
	char note[256];

	W(root, NDBUS1 "/region4/namespace4.0/mode", "dax\n");
	W(root, NDBUS1 "/region4/dax4.0/dax4.0/target_node", "1\n");
	W(root, NDBUS1 "/region4/dax4.0/dax4.0/align", "2097152\n");
	W(root, NDBUS1 "/region4/dax4.0/dax4.0/resource", "0x110200000\n");
	L(root, NDBUS1 "/region4/dax4.0/dax4.0/driver", "../../../../../../../../../bus/dax/drivers/device_dax");
	assert_int_equal(fake_sysfs_remove(root, ROOT0 "/decoder0.0/region0/size"), 0);
	assert_int_equal(pmemram_observe(ENV(state)->ctx, &o), 0);
	for (size_t i = 0; i < o->observed.n_devices; i++)
		if (streq(o->observed.devices[i].dax.name, "dax4.0"))
			cxl = &o->observed.devices[i];
	assert_non_null(cxl);
	assert_string_equal(cxl->region, "region4");
	assert_string_equal(cxl->cxl.region, "");
	assert_int_equal(cxl->cxl.error, -ENOENT);

	assert_int_equal(pmemram_config_new(&c), 0);
	assert_int_equal(pmemram_config_parse(c, "test.conf", text, strlen(text), &e), 0);
	assert_int_equal(pmemram_config_verify(c, &e), 0);
	assert_int_equal(pmemram_plan_compute(c, &o->observed, &plan), 0);
	assert_string_equal(plan->verdicts[0].device, "dax0.0");
	assert_string_equal(plan->verdicts[0].claim, "nv");
	assert_int_equal(plan->n_unmatched, 1);
	assert_string_equal(plan->unmatched[0], "cxl");
	/* dax4.0's, the one below the CXL nvdimm bridge: the NFIT dax0.0 is not looked up on CXL. */
	snprintf(note, sizeof(note), "CXL origin of dax4.0 unreadable: %s/bus/cxl/devices/region0/size: %s",
		 ENV(state)->root, strerror(ENOENT));
	assert_string_equal(plan->unmatched_notes[0], note);
}

/* pmemramctl plan as a user: the nvdimm region's resource is root's to read, so a CXL claim
 * matches nothing there while pmemramd matches it; the plan says so. */
static void test_needs_root(void **state)
{
	static const char text[] = "[claim \"cxl\"]\nmatch = cxl-memdev:0x5eed0001\n";
	_cleanup_(pmemram_config_freep) struct pmemram_config *c = NULL;
	_cleanup_(pmemram_plan_freep) struct pmemram_plan *plan = NULL;
	struct pmemram_observed_dax d = { .dax.name = "dax4.0", .region = "region4" };
	struct pmemram_observed o = { .block_size = 128 << 20, .n_devices = 1, .devices = &d };
	struct pmemram_config_errors e = {};
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	d.cxl = (struct pmemram_cxl_origin){ .error = -EACCES, .error_path = "/sys/bus/nd/devices/region4/resource" };
	assert_int_equal(pmemram_config_new(&c), 0);
	assert_int_equal(pmemram_config_parse(c, "test.conf", text, strlen(text), &e), 0);
	assert_int_equal(pmemram_config_verify(c, &e), 0);
	assert_int_equal(pmemram_plan_compute(c, &o, &plan), 0);
	assert_string_equal(plan->verdicts[0].text, "not claimed by any configuration (CXL origin of dax4.0 needs "
						    "root to read: /sys/bus/nd/devices/region4/resource)");
	assert_non_null(f = open_memstream(&out, &len));
	assert_int_equal(pmemram_plan_print(plan, f), 0);
	assert_int_equal(fclose(f), 0);
	assert_non_null(strstr(out, "Claim 'cxl' matches no device: CXL origin of dax4.0 needs root to read: "
				    "/sys/bus/nd/devices/region4/resource.\n"));
	free(out);
}

/* What create-region = pmem needs: bus/cxl/devices as the cxl-pmem guest shows it, mem0 in region0
 * (pmemram's, by its UUID), mem1 in none, both below host bridge port port1, whose uport is the
 * host bridge's ACPI device, as is dport 12 of root0, which root decoder decoder0.0 (one way,
 * pmem) targets. */
static void add_topology(const char *root)
{
	L(root, "bus/cxl/devices/root0", "../../../" ROOT0);
	L(root, "bus/cxl/devices/port1", "../../../" ROOT0 "/port1");
	W(root, "devices/LNXSYSTM:00/LNXSYBUS:00/ACPI0016:00/uevent", "\n");
	L(root, ROOT0 "/dport12", "../../../LNXSYSTM:00/LNXSYBUS:00/ACPI0016:00");
	L(root, ROOT0 "/port1/uport", "../../../../LNXSYSTM:00/LNXSYBUS:00/ACPI0016:00");
	L(root, ROOT0 "/port1/dport0", "../../../../pci0000:0c/0000:0c:00.0");
	L(root, "bus/cxl/devices/decoder0.0", "../../../" ROOT0 "/decoder0.0");
	W(root, ROOT0 "/decoder0.0/cap_pmem", "1\n");
	W(root, ROOT0 "/decoder0.0/interleave_ways", "1\n");
	W(root, ROOT0 "/decoder0.0/target_list", "12\n");
	W(root, ROOT0 "/decoder0.0/start", "0x100000000\n");
	W(root, ROOT0 "/decoder0.0/size", "0x80000000\n");
	for (int n = 0; n < 2; n++) {
		char path[160], target[160];

		snprintf(path, sizeof(path), "bus/cxl/devices/mem%d", n);
		snprintf(target, sizeof(target), "../../../devices/pci0000:0c/0000:0c:00.0/0000:0d:0%d.0/mem%d", n, n);
		L(root, path, target);
		snprintf(path, sizeof(path), "devices/pci0000:0c/0000:0c:00.0/0000:0d:0%d.0/mem%d/pmem/size", n, n);
		W(root, path, "0x20000000\n");
		snprintf(path, sizeof(path), "bus/cxl/devices/endpoint%d", n + 2);
		snprintf(target, sizeof(target), "../../../" ROOT0 "/port1/endpoint%d", n + 2);
		L(root, path, target);
		snprintf(path, sizeof(path), ROOT0 "/port1/endpoint%d/decoder%d.0/dpa_size", n + 2, n + 2);
		W(root, path, n == 0 ? "0x20000000\n" : "0x0\n");
		snprintf(path, sizeof(path), ROOT0 "/port1/endpoint%d/decoder%d.0/region", n + 2, n + 2);
		W(root, path, n == 0 ? "region0\n" : "\n");
	}
	W(root, ROOT0 "/decoder0.0/region0/uuid", "c0ffee00-0000-8000-8000-000000000000\n");
	W(root, ROOT0 "/decoder0.0/region0/commit", "1\n");
	W(root, "bus/cxl/drivers/cxl_region/uevent", "\n");
	L(root, ROOT0 "/decoder0.0/region0/driver", "../../../../../../bus/cxl/drivers/cxl_region");
}

/* The memdevs or the CXL regions read again, the previous list freed. */
static void reread(void **state, struct pmemram_observed_memdev **m, struct pmemram_observed_cxl_region **r, size_t *n)
{
	if (m) {
		free(*m);
		assert_int_equal(pmemram_cxl_memdevs_read(ENV(state)->ctx, m, n), 0);
	} else {
		free(*r);
		assert_int_equal(pmemram_cxl_regions_read(ENV(state)->ctx, r, n), 0);
	}
}

static void test_memdevs(void **state)
{
	_cleanup_(freep) struct pmemram_observed_memdev *m = NULL;
	_cleanup_(freep) struct pmemram_observed_cxl_region *r = NULL;
	const char *root = ENV(state)->root;
	size_t n = 9;

	add_topology(root);
	reread(state, &m, NULL, &n);
	assert_int_equal(n, 2);
	assert_string_equal(m[0].name, "mem0");
	assert_int_equal(m[0].serial, 0x5eed0001);
	assert_int_equal(m[0].pmem_size, 512 << 20);
	assert_string_equal(m[0].endpoint, "endpoint2");
	assert_string_equal(m[0].decoder, "decoder2.0");
	assert_string_equal(m[0].region, "region0");
	assert_int_equal(m[0].dpa_size, 512 << 20);
	assert_string_equal(m[0].root_decoder, "decoder0.0");
	assert_int_equal(m[0].error, 0);
	assert_string_equal(m[1].name, "mem1");
	assert_string_equal(m[1].endpoint, "endpoint3");
	assert_string_equal(m[1].decoder, "");
	assert_string_equal(m[1].region, "");
	assert_int_equal(m[1].dpa_size, 0);
	assert_string_equal(m[1].root_decoder, "decoder0.0");
	/* decoder0.0, 2 GiB at 0x100000000, holds region0's 512 MiB at 0x110000000: 1.25 GiB free
	 * after it (the 256 MiB before it is less). */
	assert_int_equal(m[1].root_free, 0x50000000);

	/* Regions cut the free space; one without space (being made) does not. */
	W(root, ROOT0 "/decoder0.0/region1/resource", "0x150000000\n");
	W(root, ROOT0 "/decoder0.0/region1/size", "0x20000000\n");
	W(root, ROOT0 "/decoder0.0/region2/resource", "0xffffffffffffffff\n");
	W(root, ROOT0 "/decoder0.0/region2/size", "0x0\n");
	L(root, "bus/cxl/devices/region1", "../../../" ROOT0 "/decoder0.0/region1");
	L(root, "bus/cxl/devices/region2", "../../../" ROOT0 "/decoder0.0/region2");
	reread(state, &m, NULL, &n);
	assert_int_equal(m[1].root_free, 0x20000000); /* 0x130000000..0x150000000; after region1 256 MiB */
	assert_int_equal(fake_sysfs_remove(root, ROOT0 "/decoder0.0/region1"), 0);
	assert_int_equal(fake_sysfs_remove(root, ROOT0 "/decoder0.0/region2"), 0);
	assert_int_equal(fake_sysfs_remove(root, "bus/cxl/devices/region1"), 0);
	assert_int_equal(fake_sysfs_remove(root, "bus/cxl/devices/region2"), 0);

	reread(state, NULL, &r, &n);
	assert_int_equal(n, 1);
	assert_string_equal(r[0].name, "region0");
	assert_string_equal(r[0].root_decoder, "decoder0.0");
	assert_string_equal(r[0].uuid, "c0ffee00-0000-8000-8000-000000000000");
	assert_int_equal(r[0].size, 512 << 20);
	assert_int_equal(r[0].n_targets, 1);
	assert_int_equal(r[0].target_serial, 0x5eed0001);
	assert_true(r[0].committed);
	assert_true(r[0].enabled);

	/* Half made: no commit, no driver, a null UUID. */
	assert_int_equal(fake_sysfs_remove(root, ROOT0 "/decoder0.0/region0/driver"), 0);
	W(root, ROOT0 "/decoder0.0/region0/commit", "0\n");
	W(root, ROOT0 "/decoder0.0/region0/uuid", "00000000-0000-0000-0000-000000000000\n");
	reread(state, NULL, &r, &n);
	assert_false(r[0].committed);
	assert_false(r[0].enabled);
	assert_string_equal(r[0].uuid, "");

	/* DPA held outside a region; a root decoder of two ways, or for another dport, does not fit;
	 * nor does one without pmem. */
	W(root, ROOT0 "/port1/endpoint3/decoder3.0/dpa_size", "0x10000000\n");
	W(root, ROOT0 "/decoder0.0/target_list", "12,13\n");
	reread(state, &m, NULL, &n);
	assert_string_equal(m[1].decoder, "decoder3.0");
	assert_int_equal(m[1].dpa_size, 256 << 20);
	assert_string_equal(m[1].root_decoder, "");
	W(root, ROOT0 "/decoder0.0/target_list", "13\n");
	reread(state, &m, NULL, &n);
	assert_string_equal(m[1].root_decoder, "");
	W(root, ROOT0 "/decoder0.0/target_list", "12\n");
	W(root, ROOT0 "/decoder0.0/interleave_ways", "2\n");
	reread(state, &m, NULL, &n);
	assert_string_equal(m[1].root_decoder, "");
	W(root, ROOT0 "/decoder0.0/interleave_ways", "1\n");
	reread(state, &m, NULL, &n);
	assert_string_equal(m[1].root_decoder, "decoder0.0");
	W(root, ROOT0 "/decoder0.0/cap_pmem", "0\n");
	reread(state, &m, NULL, &n);
	assert_string_equal(m[1].root_decoder, "");

	/* An unreadable memdev is listed with what could not be read. */
	assert_int_equal(fake_sysfs_remove(root, MEMDEV(1) "/pmem/size"), 0);
	reread(state, &m, NULL, &n);
	assert_int_equal(n, 2);
	assert_int_equal(m[1].error, -ENOENT);
	assert_true(strstr(m[1].error_path, "mem1/pmem/size") != NULL);
	assert_false(m[1].serial_unreadable);
	assert_null(pmemram_ctx_get_error_path(ENV(state)->ctx));
	/* Its serial too: said so. */
	assert_int_equal(fake_sysfs_remove(root, MEMDEV(1) "/serial"), 0);
	reread(state, &m, NULL, &n);
	assert_int_equal(n, 2);
	assert_true(m[1].serial_unreadable);
	assert_int_equal(m[1].serial, 0);
	assert_true(strstr(m[1].error_path, "mem1/serial") != NULL);
	assert_false(m[0].serial_unreadable);

	/* No CXL bus: none. */
	assert_int_equal(fake_sysfs_remove(root, "bus/cxl"), 0);
	reread(state, &m, NULL, &n);
	assert_int_equal(n, 0);
	reread(state, NULL, &r, &n);
	assert_int_equal(n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_origin, setup, fake_env_teardown),
		cmocka_unit_test_setup_teardown(test_dax_chain, setup, fake_env_teardown),
		cmocka_unit_test_setup_teardown(test_ram_region, setup, fake_env_teardown),
		cmocka_unit_test_setup_teardown(test_interleave, setup, fake_env_teardown),
		cmocka_unit_test_setup_teardown(test_partial_overlap, setup, fake_env_teardown),
		cmocka_unit_test_setup_teardown(test_exact_range, setup, fake_env_teardown),
		cmocka_unit_test_setup_teardown(test_no_cxl, setup, fake_env_teardown),
		cmocka_unit_test(test_failures),
		cmocka_unit_test_setup_teardown(test_torn_down, setup, fake_env_teardown),
		cmocka_unit_test(test_needs_root),
		cmocka_unit_test_setup_teardown(test_memdevs, setup, fake_env_teardown),
		cmocka_unit_test_setup_teardown(test_nfit_skipped, setup, fake_env_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
