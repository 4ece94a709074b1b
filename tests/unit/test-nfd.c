/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the node-feature-discovery feature file: the exact output, Kubernetes' label rules, the size limit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>

#include "export-fixture.h"
#include "macro.h"

#define T_2024_05_01 (UINT64_C(1714564800) * 1000000)

static void test_fixture(void **state)
{
	_cleanup_(freep) char *text = NULL;
	struct pmemram_nfd_dropped dropped = { .n = 99 };
	struct pmemram_nfd n;
	size_t len;

	(void)state;
	export_fixture_nfd(&n, T_2024_05_01 + 999999);
	assert_int_equal(pmemram_nfd_format(&n, &text, &len, &dropped), 0);
	assert_string_equal(text, "# Written by pmemramd; see pmemramd(8).\n"
				  "# +expiry-time=2024-05-01T12:00:00Z\n"
				  "pmemram.io/kmem-online-bytes=939524096\n"
				  "pmemram.io/slow-nodes=2\n"
				  "pmemram.io/slow-nodes-count=1\n"
				  "pmemram.io/direct-mapped-cache-nodes=1\n"
				  "pmemram.io/direct-mapped-cache-nodes-count=1\n"
				  "pmemram.io/page-shuffle=enabled\n"
				  "pmemram.io/class.fast=0-1\n"
				  "pmemram.io/class.slow=2\n");
	assert_int_equal(len, strlen(text));
	assert_int_equal(dropped.n, 0);
	assert_string_equal(dropped.first, "");
}

/* No nodes: counts of 0 and no lists; an unknown shuffle state and unresolved classes have no label. */
static void test_empty(void **state)
{
	struct pmemram_metrics_class class = { .name = "pmem" };
	struct pmemram_nfd n = { .expiry_usec = T_2024_05_01, .n_classes = 1, .classes = &class };
	_cleanup_(freep) char *text = NULL;
	size_t len;

	(void)state;
	assert_int_equal(pmemram_nfd_format(&n, &text, &len, NULL), 0);
	assert_string_equal(text, "# Written by pmemramd; see pmemramd(8).\n"
				  "# +expiry-time=2024-05-01T12:00:00Z\n"
				  "pmemram.io/kmem-online-bytes=0\n"
				  "pmemram.io/slow-nodes-count=0\n"
				  "pmemram.io/direct-mapped-cache-nodes-count=0\n");
}

static void test_value_is_valid(void **state)
{
	(void)state;
	assert_true(pmemram_nfd_value_is_valid(""));
	assert_true(pmemram_nfd_value_is_valid("0"));
	assert_true(pmemram_nfd_value_is_valid("0-1_4"));
	assert_true(pmemram_nfd_value_is_valid("a.b-c_D9"));
	assert_true(pmemram_nfd_value_is_valid("123456789012345678901234567890123456789012345678901234567890123"));
	assert_false(pmemram_nfd_value_is_valid("1234567890123456789012345678901234567890123456789012345678901234"));
	assert_false(pmemram_nfd_value_is_valid("0,1"));
	assert_false(pmemram_nfd_value_is_valid("-1"));
	assert_false(pmemram_nfd_value_is_valid("1_"));
	assert_false(pmemram_nfd_value_is_valid(".a"));
	assert_false(pmemram_nfd_value_is_valid("a b"));
	assert_false(pmemram_nfd_value_is_valid("a/b"));
	assert_false(pmemram_nfd_value_is_valid("\xc3\xa9"));
	assert_false(pmemram_nfd_value_is_valid(NULL));
	/* Names are the same, but never empty. */
	assert_true(pmemram_nfd_name_is_valid("class.fast"));
	assert_false(pmemram_nfd_name_is_valid(""));
	assert_false(pmemram_nfd_name_is_valid("class.x_"));
}

static void test_nodes_value(void **state)
{
	struct pmemram_nodemask m = {};
	char buf[PMEMRAM_NFD_LABEL_MAX + 1];

	(void)state;
	assert_int_equal(pmemram_nfd_nodes_value(&m, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	pmemram_nodemask_set(&m, 0);
	pmemram_nodemask_set(&m, 1);
	pmemram_nodemask_set(&m, 2);
	pmemram_nodemask_set(&m, 5);
	pmemram_nodemask_set(&m, 7);
	assert_int_equal(pmemram_nfd_nodes_value(&m, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "0-2_5_7");
	assert_true(pmemram_nfd_value_is_valid(buf));
	assert_int_equal(pmemram_nfd_nodes_value(&m, buf, 4), -ENAMETOOLONG);
	/* Every other node of 0..200: far more than 63 characters. */
	for (unsigned i = 0; i < 200; i += 2)
		pmemram_nodemask_set(&m, i);
	assert_int_equal(pmemram_nfd_nodes_value(&m, buf, sizeof(buf)), -E2BIG);
	assert_string_equal(buf, "");
}

/* A class whose node list does not fit a label value, and one whose name makes no label name,
 * are left out and reported; the rest of the file is written. */
static void test_dropped(void **state)
{
	struct pmemram_metrics_class classes[3] = { { .name = "scattered", .resolved = true },
						    { .name = "bad_", .resolved = true },
						    { .name = "ok", .resolved = true } };
	struct pmemram_nfd n = { .expiry_usec = T_2024_05_01, .n_classes = 3, .classes = classes };
	struct pmemram_nfd_dropped dropped;
	_cleanup_(freep) char *text = NULL;
	size_t len;

	(void)state;
	for (unsigned i = 0; i < 200; i += 2)
		pmemram_nodemask_set(&classes[0].nodes, i);
	pmemram_nodemask_set(&classes[1].nodes, 1);
	pmemram_nodemask_set(&classes[2].nodes, 3);
	assert_int_equal(pmemram_nfd_format(&n, &text, &len, &dropped), 0);
	assert_int_equal(dropped.n, 2);
	assert_string_equal(dropped.first, "class.scattered");
	assert_null(strstr(text, "scattered"));
	assert_null(strstr(text, "bad_"));
	assert_non_null(strstr(text, "\npmemram.io/class.ok=3\n"));
}

/* More labels than 64 KiB holds: whole lines up to the limit, the rest dropped and counted. */
static void test_size_limit(void **state)
{
	enum { N = 3000 };
	struct pmemram_metrics_class *classes = calloc(N, sizeof(*classes));
	char (*names)[32] = calloc(N, sizeof(*names));
	struct pmemram_nfd n = { .expiry_usec = T_2024_05_01, .n_classes = N, .classes = classes };
	struct pmemram_nfd_dropped dropped;
	_cleanup_(freep) char *text = NULL;
	size_t len, lines = 0;
	char first[64];

	(void)state;
	assert_non_null(classes);
	assert_non_null(names);
	for (size_t i = 0; i < N; i++) {
		snprintf(names[i], sizeof(names[i]), "class%05zu", i);
		classes[i] = (struct pmemram_metrics_class){ .name = names[i], .resolved = true };
		pmemram_nodemask_set(&classes[i].nodes, 1000);
	}
	/* Each class line: "pmemram.io/class.classNNNNN=1000\n", 33 bytes. */
	assert_int_equal(pmemram_nfd_format(&n, &text, &len, &dropped), 0);
	assert_true(len <= PMEMRAM_NFD_FILE_MAX);
	assert_true(len > PMEMRAM_NFD_FILE_MAX - 33);
	assert_int_equal(text[len - 1], '\n');
	for (size_t i = 0; i < len; i++)
		lines += text[i] == '\n';
	/* 2 comments and 3 labels before the classes. */
	assert_int_equal(lines - 5 + dropped.n, N);
	assert_true(dropped.n > 0);
	snprintf(first, sizeof(first), "class.%s", names[N - dropped.n]);
	assert_string_equal(dropped.first, first);
	free(classes);
	free(names);
}

static void test_time(void **state)
{
	char buf[32];

	(void)state;
	assert_int_equal(pmemram_nfd_time(0, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "1970-01-01T00:00:00Z");
	assert_int_equal(pmemram_nfd_time(T_2024_05_01 + 61 * USEC_PER_SEC, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "2024-05-01T12:01:01Z");
	assert_int_equal(pmemram_nfd_time(0, buf, 20), -ENAMETOOLONG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture),	       cmocka_unit_test(test_empty),
		cmocka_unit_test(test_value_is_valid), cmocka_unit_test(test_nodes_value),
		cmocka_unit_test(test_dropped),	       cmocka_unit_test(test_size_limit),
		cmocka_unit_test(test_time),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
