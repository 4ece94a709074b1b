/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the pure parsers and name tables: numbers, range lists, valid_zones, meminfo. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "macro.h"
#include "pmemram.h"

/* The names requests and commands accept: nothing looser than the kernel's own. */
static void test_names_strict(void **state)
{
	static const char *const good[] = { "dax0.0", "dax12.345", "dax999999999.0" };
	static const char *const bad[] = { "dax..",	    "dax.",	"dax0.",   "dax.0",   "dax0",	  "dax0.0.0",
					   "dax-1.0",  "dax+1.0",	"dax 1.0", "dax0.0 ", "dax0.0\n", "Dax0.0",
					   "dax1234567890.0", "", "dax0.00000000001" };
	static const char *const bad_blocks[] = { "memory-1", "memory+1", "memory", "memory 1", "memory1 ",
						  "memory1\n", "memory1x", "memory0x10", "memory12345678901", "Memory1" };
	unsigned long b;

	for (size_t i = 0; i < ELEMENTSOF(good); i++)
		assert_true(pmemram_dax_name_is_valid(good[i]));
	for (size_t i = 0; i < ELEMENTSOF(bad); i++)
		if (pmemram_dax_name_is_valid(bad[i]))
			fail_msg("accepted dax name '%s'", bad[i]);
	assert_false(pmemram_dax_name_is_valid(NULL));

	assert_int_equal(pmemram_parse_block_name("memory0", &b), 0);
	assert_int_equal(b, 0);
	assert_int_equal(pmemram_parse_block_name("memory37", &b), 0);
	assert_int_equal(b, 37);
	for (size_t i = 0; i < ELEMENTSOF(bad_blocks); i++)
		if (pmemram_parse_block_name(bad_blocks[i], &b) != -EINVAL)
			fail_msg("accepted block name '%s'", bad_blocks[i]);
}

static void test_utf8(void **state)
{
	assert_int_equal(pmemram_utf8_char_len("a"), 1);
	assert_int_equal(pmemram_utf8_char_len(""), 0);
	assert_int_equal(pmemram_utf8_char_len("\xc3\xa9"), 2);		  /* e acute */
	assert_int_equal(pmemram_utf8_char_len("\xe2\x82\xac"), 3);	  /* euro sign */
	assert_int_equal(pmemram_utf8_char_len("\xf0\x9f\x98\x80"), 4); /* emoji */
	assert_int_equal(pmemram_utf8_char_len("\xc3"), 0);		  /* cut */
	assert_int_equal(pmemram_utf8_char_len("\xe2\x82"), 0);		  /* cut */
	assert_int_equal(pmemram_utf8_char_len("\xa9"), 0);		  /* stray continuation */
	assert_int_equal(pmemram_utf8_char_len("\xc0\xaf"), 0);		  /* overlong '/' */
	assert_int_equal(pmemram_utf8_char_len("\xe0\x80\xaf"), 0);	  /* overlong */
	assert_int_equal(pmemram_utf8_char_len("\xed\xa0\x80"), 0);	  /* surrogate */
	assert_int_equal(pmemram_utf8_char_len("\xf4\x90\x80\x80"), 0); /* past U+10FFFF */
	assert_int_equal(pmemram_utf8_char_len("\xff"), 0);
}

static void test_u64(void **state)
{
	uint64_t v = 42;

	assert_int_equal(pmemram_parse_u64("134217728\n", 10, &v), 0);
	assert_int_equal(v, 134217728);
	assert_int_equal(pmemram_parse_u64("8000000\n", 16, &v), 0);
	assert_int_equal(v, 0x8000000);
	assert_int_equal(pmemram_parse_u64("0x140000000", 16, &v), 0);
	assert_int_equal(v, 0x140000000ULL);
	assert_int_equal(pmemram_parse_u64("18446744073709551615", 10, &v), 0);
	assert_true(v == UINT64_MAX);

	v = 7;
	assert_int_equal(pmemram_parse_u64("", 10, &v), -EINVAL);
	assert_int_equal(pmemram_parse_u64("\n", 10, &v), -EINVAL);
	assert_int_equal(pmemram_parse_u64("-1", 10, &v), -EINVAL);
	assert_int_equal(pmemram_parse_u64(" 1", 10, &v), -EINVAL);
	assert_int_equal(pmemram_parse_u64("12abc", 10, &v), -EINVAL);
	assert_int_equal(pmemram_parse_u64("ff", 10, &v), -EINVAL);
	assert_int_equal(pmemram_parse_u64("0x", 16, &v), -EINVAL);
	assert_int_equal(pmemram_parse_u64("18446744073709551616", 10, &v), -ERANGE);
	assert_int_equal(pmemram_parse_u64("1", 8, &v), -EINVAL);
	/* failures leave the output alone */
	assert_int_equal(v, 7);
}

static void test_int_bool(void **state)
{
	int i = 5;
	bool b = false;

	assert_int_equal(pmemram_parse_int("-1\n", &i), 0);
	assert_int_equal(i, -1);
	assert_int_equal(pmemram_parse_int("2147483647", &i), 0);
	assert_int_equal(i, 2147483647);
	assert_int_equal(pmemram_parse_int("-2147483648", &i), 0);
	assert_int_equal(i, -2147483647 - 1);
	assert_int_equal(pmemram_parse_int("2147483648", &i), -ERANGE);
	assert_int_equal(pmemram_parse_int("-", &i), -EINVAL);
	assert_int_equal(pmemram_parse_int("--1", &i), -EINVAL);
	assert_int_equal(i, -2147483647 - 1);

	assert_int_equal(pmemram_parse_bool("Y\n", &b), 0);
	assert_true(b);
	assert_int_equal(pmemram_parse_bool("0", &b), 0);
	assert_false(b);
	assert_int_equal(pmemram_parse_bool("1", &b), 0);
	assert_true(b);
	assert_int_equal(pmemram_parse_bool("N", &b), 0);
	assert_false(b);
	assert_int_equal(pmemram_parse_bool("maybe", &b), -EINVAL);
	assert_int_equal(pmemram_parse_bool("", &b), -EINVAL);
}

static void test_range_list(void **state)
{
	struct pmemram_nodemask m;

	assert_int_equal(pmemram_parse_range_list("0-1,3\n", &m), 0);
	assert_true(pmemram_nodemask_test(&m, 0));
	assert_true(pmemram_nodemask_test(&m, 1));
	assert_false(pmemram_nodemask_test(&m, 2));
	assert_true(pmemram_nodemask_test(&m, 3));
	assert_int_equal(pmemram_nodemask_weight(&m), 3);
	assert_int_equal(pmemram_nodemask_next(&m, 2), 3);
	assert_int_equal(pmemram_nodemask_next(&m, 4), -1);

	/* an empty mask is valid (has_cpu of a memory-only system) */
	assert_int_equal(pmemram_parse_range_list("\n", &m), 0);
	assert_int_equal(pmemram_nodemask_weight(&m), 0);

	assert_int_equal(pmemram_parse_range_list("1023", &m), 0);
	assert_true(pmemram_nodemask_test(&m, 1023));
	assert_int_equal(pmemram_parse_range_list("0-1023", &m), 0);
	assert_int_equal(pmemram_nodemask_weight(&m), 1024);

	assert_int_equal(pmemram_parse_range_list("1024", &m), -ERANGE);
	assert_int_equal(pmemram_parse_range_list("3-1", &m), -EINVAL);
	assert_int_equal(pmemram_parse_range_list("1,", &m), -EINVAL);
	assert_int_equal(pmemram_parse_range_list(",1", &m), -EINVAL);
	assert_int_equal(pmemram_parse_range_list("1-", &m), -EINVAL);
	assert_int_equal(pmemram_parse_range_list("-1", &m), -EINVAL);
	assert_int_equal(pmemram_parse_range_list("a", &m), -EINVAL);
	assert_int_equal(pmemram_parse_range_list("1 2", &m), -EINVAL);
	assert_int_equal(pmemram_nodemask_weight(&m), 1024);
}

static void test_valid_zones(void **state)
{
	struct pmemram_zones z;

	assert_int_equal(pmemram_parse_valid_zones("Movable\n", &z), 0);
	assert_int_equal(z.first, PMEMRAM_ZONE_MOVABLE);
	assert_int_equal(z.mask, 1u << PMEMRAM_ZONE_MOVABLE);

	assert_int_equal(pmemram_parse_valid_zones("DMA32 Normal Movable", &z), 0);
	assert_int_equal(z.first, PMEMRAM_ZONE_DMA32);
	assert_int_equal(z.mask, (1u << PMEMRAM_ZONE_DMA32) | (1u << PMEMRAM_ZONE_NORMAL) |
					 (1u << PMEMRAM_ZONE_MOVABLE));

	assert_int_equal(pmemram_parse_valid_zones("none", &z), 0);
	assert_int_equal(z.first, PMEMRAM_ZONE_NONE);

	assert_int_equal(pmemram_parse_valid_zones("", &z), -EINVAL);
	assert_int_equal(pmemram_parse_valid_zones("normal", &z), -EINVAL);
	assert_int_equal(pmemram_parse_valid_zones("Normal  Movable", &z), -EINVAL);
	assert_int_equal(pmemram_parse_valid_zones("Normal ", &z), 0); /* trailing space trimmed */
	assert_int_equal(pmemram_parse_valid_zones("none Normal", &z), -EINVAL);
	assert_int_equal(pmemram_parse_valid_zones("Movableeeeeeeeeeeeee", &z), -EINVAL);
	assert_int_equal(z.first, PMEMRAM_ZONE_NORMAL);
}

static void test_meminfo(void **state)
{
	static const char text[] = "Node 1 MemTotal:        1048576 kB\n"
				   "Node 1 MemFree:          524288 kB\n"
				   "Node 1 HugePages_Total:     3\n";
	struct pmemram_meminfo_line m;
	uint64_t v = 0;

	assert_int_equal(pmemram_parse_meminfo_line("Node 0 MemTotal:  1024 kB", &m), 0);
	assert_int_equal(m.node, 0);
	assert_string_equal(m.key, "MemTotal");
	assert_int_equal(m.value, 1024);
	assert_true(m.kb);

	assert_int_equal(pmemram_parse_meminfo_line("Node 12 HugePages_Free:     7\n", &m), 0);
	assert_int_equal(m.node, 12);
	assert_string_equal(m.key, "HugePages_Free");
	assert_int_equal(m.value, 7);
	assert_false(m.kb);

	assert_int_equal(pmemram_parse_meminfo_line("MemTotal:  1024 kB", &m), -EINVAL);
	assert_int_equal(pmemram_parse_meminfo_line("Node x MemTotal: 1 kB", &m), -EINVAL);
	assert_int_equal(pmemram_parse_meminfo_line("Node 0 MemTotal 1 kB", &m), -EINVAL);
	assert_int_equal(pmemram_parse_meminfo_line("Node 0 MemTotal: 1 MB", &m), -EINVAL);
	assert_int_equal(pmemram_parse_meminfo_line("Node 0 MemTotal: kB", &m), -EINVAL);
	assert_int_equal(pmemram_parse_meminfo_line("Node 0 MemTotal:", &m), -EINVAL);
	assert_int_equal(pmemram_parse_meminfo_line("Node 0 MemTotal: 12x kB", &m), -EINVAL);
	/* Nothing after the node but blanks: on the heap, so that a read past the end is caught. */
	{
		char *blanks = strdup("Node 0   \t ");

		assert_non_null(blanks);
		assert_int_equal(pmemram_parse_meminfo_line(blanks, &m), -EINVAL);
		free(blanks);
	}

	assert_int_equal(pmemram_parse_meminfo_value(text, "MemTotal", &v), 0);
	assert_int_equal(v, 1073741824);
	assert_int_equal(pmemram_parse_meminfo_value(text, "HugePages_Total", &v), 0);
	assert_int_equal(v, 3);
	assert_int_equal(pmemram_parse_meminfo_value(text, "Shmem", &v), -ENODATA);
	assert_int_equal(pmemram_parse_meminfo_value("Node 0 MemTotal: oops\n", "MemTotal", &v), -EINVAL);
	assert_int_equal(v, 3);
}

static void test_log_priority(void **state)
{
	int p = -1;

	assert_int_equal(pmemram_parse_log_priority("err", &p), 0);
	assert_int_equal(p, LOG_ERR);
	assert_int_equal(pmemram_parse_log_priority("info", &p), 0);
	assert_int_equal(p, LOG_INFO);
	assert_int_equal(pmemram_parse_log_priority("debug", &p), 0);
	assert_int_equal(p, LOG_DEBUG);
	assert_int_equal(pmemram_parse_log_priority("5", &p), 0);
	assert_int_equal(p, 5);
	assert_int_equal(pmemram_parse_log_priority("8", &p), -EINVAL);
	assert_int_equal(pmemram_parse_log_priority("loud", &p), -EINVAL);
	assert_int_equal(p, 5);
}

static void test_names(void **state)
{
	char buf[32];

	assert_string_equal(pmemram_zone_to_string(PMEMRAM_ZONE_MOVABLE), "Movable");
	assert_null(pmemram_zone_to_string(_PMEMRAM_ZONE_MAX));
	assert_int_equal(pmemram_zone_from_string("DMA32"), PMEMRAM_ZONE_DMA32);
	assert_int_equal(pmemram_block_state_from_string("going-offline"), PMEMRAM_BLOCK_GOING_OFFLINE);
	assert_int_equal(pmemram_block_state_from_string("online_movable"), -EINVAL);
	assert_int_equal(pmemram_auto_online_from_string("online_movable"), PMEMRAM_AUTO_ONLINE_MOVABLE);
	assert_int_equal(pmemram_auto_online_from_string("online_kernel"), PMEMRAM_AUTO_ONLINE_KERNEL);
	assert_int_equal(pmemram_auto_online_from_string("always"), -EINVAL);
	assert_string_equal(pmemram_cache_indexing_to_string(PMEMRAM_CACHE_DIRECT_MAPPED), "direct-mapped");
	assert_string_equal(pmemram_cache_indexing_to_string(PMEMRAM_CACHE_COMPLEX), "complex");
	assert_string_equal(pmemram_cache_write_policy_to_string(PMEMRAM_CACHE_WRITE_THROUGH), "write-through");
	assert_int_equal(pmemram_dax_mode_from_driver("kmem"), PMEMRAM_DAX_SYSTEM_RAM);
	assert_int_equal(pmemram_dax_mode_from_driver("device_dax"), PMEMRAM_DAX_DEVDAX);
	assert_int_equal(pmemram_dax_mode_from_driver(""), PMEMRAM_DAX_UNBOUND);
	assert_int_equal(pmemram_dax_mode_from_driver("dax_pmem_compat"), PMEMRAM_DAX_OTHER);

	assert_string_equal(pmemram_format_size(0, buf, sizeof(buf)), "0 B");
	assert_string_equal(pmemram_format_size(64, buf, sizeof(buf)), "64 B");
	assert_string_equal(pmemram_format_size(134217728, buf, sizeof(buf)), "128 MiB");
	assert_string_equal(pmemram_format_size(1054867456, buf, sizeof(buf)), "1006 MiB");
	assert_string_equal(pmemram_format_size(1610612736, buf, sizeof(buf)), "1.5 GiB");
	assert_string_equal(pmemram_format_size(UINT64_MAX, buf, sizeof(buf)), "16.0 EiB");
}

static void test_size(void **state)
{
	uint64_t v = 0;

	(void)state;
	assert_int_equal(pmemram_parse_size("134217728", &v), 0);
	assert_int_equal(v, 134217728);
	assert_int_equal(pmemram_parse_size("128M", &v), 0);
	assert_int_equal(v, UINT64_C(128) << 20);
	assert_int_equal(pmemram_parse_size("128MiB\n", &v), 0);
	assert_int_equal(v, UINT64_C(128) << 20);
	assert_int_equal(pmemram_parse_size("2g", &v), 0);
	assert_int_equal(v, UINT64_C(2) << 30);
	assert_int_equal(pmemram_parse_size("4KB", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(pmemram_parse_size("15E", &v), 0);
	assert_int_equal(v, UINT64_C(15) << 60);
	assert_int_equal(pmemram_parse_size("16E", &v), -ERANGE);
	assert_int_equal(pmemram_parse_size("", &v), -EINVAL);
	assert_int_equal(pmemram_parse_size("M", &v), -EINVAL);
	assert_int_equal(pmemram_parse_size("12X", &v), -EINVAL);
	assert_int_equal(pmemram_parse_size("12Mi", &v), -EINVAL);
	assert_int_equal(pmemram_parse_size("12MiBs", &v), -EINVAL);
	assert_int_equal(pmemram_parse_size("-1M", &v), -EINVAL);
	assert_int_equal(pmemram_parse_size("1.5G", &v), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_strict),
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_u64),	    cmocka_unit_test(test_int_bool),
		cmocka_unit_test(test_range_list),  cmocka_unit_test(test_valid_zones),
		cmocka_unit_test(test_meminfo),	    cmocka_unit_test(test_log_priority),
		cmocka_unit_test(test_names),	    cmocka_unit_test(test_size),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
