/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for pmemram.conf parsing: values, exact error messages, drop-in order, limits, the loader. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "pmemram-config.h"
#include "pmemram-private.h"

#define UUID "6e9b4c6d-1f2a-4c3b-9d8e-0a1b2c3d4e5f"
#define UUID_A "ed93e918-e165-49d8-921d-383d7b9660c5"
#define UUID_B UUID
#define UUID_C "0b7e5c1a-2d3f-4a5b-8c6d-7e8f9a0b1c2d"
#define PARSE(c, file, text, errors) pmemram_config_parse((c), (file), (text), strlen(text), (errors))

/* Parse one file into a fresh config; the errors come back in *errors. */
static int parse(const char *file, const char *text, struct pmemram_config **ret, struct pmemram_config_errors *errors)
{
	struct pmemram_config *c;
	int r;

	*errors = (struct pmemram_config_errors){};
	assert_int_equal(pmemram_config_new(&c), 0);
	r = pmemram_config_parse(c, file, text, strlen(text), errors);
	if (r >= 0)
		r = pmemram_config_verify(c, errors);
	*ret = c;
	return r;
}

/* text must fail with exactly one message, msg. */
static void expect_error(const char *file, const char *text, const char *msg)
{
	_cleanup_(pmemram_config_freep) struct pmemram_config *c = NULL;
	struct pmemram_config_errors e;

	assert_int_equal(parse(file, text, &c, &e), -EINVAL);
	assert_int_equal(e.n, 1);
	assert_string_equal(e.msg[0], msg);
}

static void test_values(void **state)
{
	_cleanup_(pmemram_config_freep) struct pmemram_config *c = NULL;
	const struct pmemram_claim *claim;
	struct pmemram_config_errors e;
	char where[64];

	assert_int_equal(parse("pmemram.conf",
			       "# pmem as RAM\n"
			       "\n"
			       "[global]\n"
			       "shuffle = on\n"
			       "; another comment\n"
			       "[claim \"fast-tier\"]\n"
			       "  match=uuid:6E9B4C6D-1F2A-4C3B-9D8E-0A1B2C3D4E5F  \n"
			       "convert = yes\n"
			       "[claim \"dev\"]\n"
			       "match = device:dax1.0\n"
			       "online = normal\n"
			       "[claim \"r\"]\n"
			       "match = region:region12\n"
			       "create = devdax\n"
			       "[claim \"cxl\"]\n"
			       "match = cxl-memdev:0x1234\n"
			       "create-region = pmem\n"
			       "create = devdax\n"
			       "[claim \"cxl-ram\"]\n"
			       "match = cxl-memdev:0x5678\n"
			       "create-region = ram\n"
			       "[claim \"everything\"]\r\n"
			       "match = all-devdax", /* no final newline */
			       &c, &e),
			 0);
	assert_int_equal(e.n, 0);
	assert_int_equal(c->shuffle, PMEMRAM_CONFIG_SHUFFLE_ON);
	assert_int_equal(c->n_claims, 6);

	claim = pmemram_config_find_claim(c, "fast-tier");
	assert_non_null(claim);
	assert_int_equal(claim->match, PMEMRAM_MATCH_UUID);
	assert_string_equal(claim->match_value, UUID); /* lower-cased */
	assert_int_equal(claim->zone, PMEMRAM_ZONE_MOVABLE);
	assert_true(claim->convert);
	assert_string_equal(pmemram_config_origin_to_string(c, claim->match_set, where, sizeof(where)),
			    "pmemram.conf:7");
	assert_string_equal(pmemram_config_origin_to_string(c, claim->zone_set, where, sizeof(where)), "(default)");

	claim = pmemram_config_find_claim(c, "dev");
	assert_int_equal(claim->match, PMEMRAM_MATCH_DEVICE);
	assert_string_equal(claim->match_value, "dax1.0");
	assert_int_equal(claim->zone, PMEMRAM_ZONE_NORMAL);
	assert_false(claim->convert);

	assert_string_equal(pmemram_config_find_claim(c, "r")->match_value, "region12");
	assert_true(pmemram_config_find_claim(c, "r")->create);
	assert_false(pmemram_config_find_claim(c, "dev")->create);
	assert_int_equal(pmemram_config_find_claim(c, "r")->create_region, PMEMRAM_REGION_NONE);
	assert_int_equal(pmemram_config_find_claim(c, "cxl")->create_region, PMEMRAM_REGION_PMEM);
	assert_true(pmemram_config_find_claim(c, "cxl")->create);
	assert_int_equal(pmemram_config_find_claim(c, "cxl-ram")->create_region, PMEMRAM_REGION_RAM);
	assert_false(pmemram_config_find_claim(c, "cxl-ram")->create);
	assert_int_equal(pmemram_config_find_claim(c, "everything")->match, PMEMRAM_MATCH_ALL_DEVDAX);
	assert_null(pmemram_config_find_claim(c, "nope"));
}

static void test_uuid(void **state)
{
	char ok[] = "6E9B4C6D-1f2a-4c3b-9d8e-0a1b2c3d4e5f", short_group[] = "6e9b4c6d-1f2-4c3b-9d8e-0a1b2c3d4e5f0",
	     no_dash[] = "6e9b4c6d1f2a4c3b9d8e0a1b2c3d4e5f", long_uuid[] = UUID "0", bad_digit[] = "6e9b4c6d-1f2a-4c3b-9d8e-0a1b2c3d4e5g";

	assert_int_equal(pmemram_uuid_normalize(ok), 0);
	assert_string_equal(ok, UUID);
	assert_int_equal(pmemram_uuid_normalize(short_group), -EINVAL);
	assert_int_equal(pmemram_uuid_normalize(no_dash), -EINVAL);
	assert_int_equal(pmemram_uuid_normalize(long_uuid), -EINVAL);
	assert_int_equal(pmemram_uuid_normalize(bad_digit), -EINVAL);
	assert_string_equal(bad_digit, "6e9b4c6d-1f2a-4c3b-9d8e-0a1b2c3d4e5g"); /* untouched */
}

static void test_shuffle_nodes(void **state)
{
	_cleanup_(pmemram_config_freep) struct pmemram_config *c = NULL, *d = NULL;
	struct pmemram_config_errors e = {};
	char where[64], text[64];

	assert_int_equal(parse("a.conf", "[global]\nshuffle-nodes = 1,3-4\n", &c, &e), 0);
	assert_int_equal(e.n, 0);
	assert_int_equal(c->shuffle, PMEMRAM_CONFIG_SHUFFLE_AUTO);
	assert_int_equal(pmemram_config_shuffle_policy(c), PMEMRAM_CONFIG_SHUFFLE_NODES);
	assert_string_equal(pmemram_config_shuffle_to_string(pmemram_config_shuffle_policy(c)), "nodes");
	assert_int_equal(pmemram_nodemask_format(&c->shuffle_nodes, text, sizeof(text)), 0);
	assert_string_equal(text, "1,3-4");
	assert_string_equal(pmemram_config_origin_to_string(c, pmemram_config_shuffle_origin(c), where, sizeof(where)),
			    "a.conf:2");

	/* with shuffle = auto it is fine; without shuffle-nodes the policy is shuffle's */
	assert_int_equal(parse("b.conf", "[global]\nshuffle = auto\nshuffle-nodes = 0\n", &d, &e), 0);
	assert_int_equal(pmemram_config_shuffle_policy(d), PMEMRAM_CONFIG_SHUFFLE_NODES);
	assert_true(pmemram_nodemask_test(&d->shuffle_nodes, 0));
	assert_int_equal(pmemram_nodemask_weight(&d->shuffle_nodes), 1);
	pmemram_config_free(d);
	assert_int_equal(parse("b.conf", "[global]\nshuffle = off\n", &d, &e), 0);
	assert_int_equal(pmemram_config_shuffle_policy(d), PMEMRAM_CONFIG_SHUFFLE_OFF);
	assert_string_equal(pmemram_config_origin_to_string(d, pmemram_config_shuffle_origin(d), where, sizeof(where)),
			    "b.conf:2");
}

static void test_shuffle_nodes_errors(void **state)
{
	expect_error(
		"a.conf", "[global]\nshuffle = on\nshuffle-nodes = 1\n",
		"a.conf:3: key 'shuffle-nodes': goes with 'shuffle = auto' only, but 'shuffle = on' is set (a.conf:2)");
	expect_error(
		"a.conf", "[global]\nshuffle-nodes = 1\n\nshuffle = off\n",
		"a.conf:2: key 'shuffle-nodes': goes with 'shuffle = auto' only, but 'shuffle = off' is set (a.conf:4)");
	/* "nodes" is no value of shuffle */
	expect_error("a.conf", "[global]\nshuffle = nodes\n",
		     "a.conf:2: key 'shuffle': expected 'auto', 'on' or 'off', got 'nodes'");
	expect_error("a.conf", "[global]\nshuffle-nodes =\n",
		     "a.conf:2: key 'shuffle-nodes': expected a node list like '1,3' or '1-2', got ''");
	expect_error("a.conf", "[global]\nshuffle-nodes = 1,x,3\n",
		     "a.conf:2: key 'shuffle-nodes': 'x' is not a node number or a range FIRST-LAST (expected a list "
		     "like '1,3' or '1-2')");
	expect_error("a.conf", "[global]\nshuffle-nodes = 1,,3\n",
		     "a.conf:2: key 'shuffle-nodes': '' is not a node number or a range FIRST-LAST (expected a list "
		     "like '1,3' or '1-2')");
	expect_error("a.conf", "[global]\nshuffle-nodes = 1,\n",
		     "a.conf:2: key 'shuffle-nodes': '' is not a node number or a range FIRST-LAST (expected a list "
		     "like '1,3' or '1-2')");
	expect_error("a.conf", "[global]\nshuffle-nodes = 3-1\n",
		     "a.conf:2: key 'shuffle-nodes': '3-1' is not a node number or a range FIRST-LAST (expected a list "
		     "like '1,3' or '1-2')");
	expect_error("a.conf", "[global]\nshuffle-nodes = 1, 2\n",
		     "a.conf:2: key 'shuffle-nodes': ' 2' is not a node number or a range FIRST-LAST (expected a list "
		     "like '1,3' or '1-2')");
	expect_error("a.conf", "[global]\nshuffle-nodes = -1\n",
		     "a.conf:2: key 'shuffle-nodes': '-1' is not a node number or a range FIRST-LAST (expected a list "
		     "like '1,3' or '1-2')");
	expect_error("a.conf", "[global]\nshuffle-nodes = 0,1024\n",
		     "a.conf:2: key 'shuffle-nodes': node numbers go up to 1023, got '1024'");
	expect_error("a.conf", "[global]\nshuffle-nodes = 0-2,2\n",
		     "a.conf:2: key 'shuffle-nodes': node 2 is listed twice ('2')");
	expect_error("a.conf", "[global]\nshuffle-nodes = 1\nshuffle-nodes = 2\n",
		     "a.conf:3: key 'shuffle-nodes': already set at line 2");
	expect_error(
		"a.conf",
		"[global]\nshuffle-nodes = 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30\n",
		"a.conf:2: key 'shuffle-nodes': node list longer than 63 characters");
}

static void test_value_errors(void **state)
{
	expect_error("pmemram.conf.d/10-x.conf",
		     "# line 1\n\n[claim \"fast\"]\nmatch = device:dax0.0\n\n# line 6\nonline = moveable\n",
		     "pmemram.conf.d/10-x.conf:7: key 'online': expected 'movable' or 'normal', got 'moveable'");
	expect_error("a.conf", "[global]\nshuffle = yes\n",
		     "a.conf:2: key 'shuffle': expected 'auto', 'on' or 'off', got 'yes'");
	expect_error("a.conf", "[claim \"x\"]\nmatch = all-devdax\nconvert = true\n",
		     "a.conf:3: key 'convert': expected 'no' or 'yes', got 'true'");
	expect_error("a.conf", "[claim \"x\"]\nmatch = region:region0\ncreate = yes\n",
		     "a.conf:3: key 'create': expected 'devdax', got 'yes'");
	expect_error("a.conf", "[claim \"x\"]\nmatch = region:region0\ncreate = devdax\ncreate = devdax\n",
		     "a.conf:4: key 'create': already set at line 3");
	expect_error("a.conf", "[claim \"x\"]\nmatch = uuid:6e9b4c6d-1f2a-4c3b-9d8e\n",
		     "a.conf:2: key 'match': invalid UUID (8-4-4-4-12 hex digits) '6e9b4c6d-1f2a-4c3b-9d8e'");
	expect_error("a.conf", "[claim \"x\"]\nmatch = device:dax0\n",
		     "a.conf:2: key 'match': invalid dax device name (daxX.Y) 'dax0'");
	expect_error("a.conf", "[claim \"x\"]\nmatch = region:0\n",
		     "a.conf:2: key 'match': invalid region name (regionN) '0'");
	expect_error("a.conf", "[claim \"x\"]\nmatch = namespace0.0\n",
		     "a.conf:2: key 'match': expected 'uuid:UUID', 'device:daxX.Y', 'region:regionN', "
		     "'hmem:START-END', 'hmem:node=N', 'cxl-region:regionN', 'cxl-memdev:SERIAL' or 'all-devdax', "
		     "got 'namespace0.0'");
	expect_error("a.conf", "[claim \"x\"]\nmatch = all-devdax\nonline =\n",
		     "a.conf:3: key 'online': expected 'movable' or 'normal', got ''");
	/* control characters are not repeated into logs */
	expect_error("a.conf", "[claim \"x\"]\nmatch = all-devdax\nonline = mov\033[2Jable\n",
		     "a.conf:3: key 'online': expected 'movable' or 'normal', got 'mov?[2Jable'");
	/* a quote is cut before a character that does not fit, never inside it, and bytes that are
	 * not UTF-8 are replaced: the message goes into JSON (status) as it is */
	expect_error("a.conf",
		     "[claim \"x\"]\nmatch = all-devdax\nonline = "
		     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\xc3\xa9tc\n",
		     "a.conf:3: key 'online': expected 'movable' or 'normal', got "
		     "'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...'");
	/* e9 cut short by c0, c0 and af no lead bytes, ed a0 80 a surrogate: one '?' per byte */
	expect_error("a.conf", "[claim \"x\"]\nmatch = all-devdax\nonline = \xc3\xa9t\xe9\xc0\xaf\xed\xa0\x80\n",
		     "a.conf:3: key 'online': expected 'movable' or 'normal', got '\xc3\xa9t?" "?" "?" "?" "?" "?'");
}

static void test_hmem(void **state)
{
	_cleanup_(pmemram_config_freep) struct pmemram_config *c = NULL;
	const struct pmemram_claim *claim;
	struct pmemram_config_errors e;

	assert_int_equal(parse("pmemram.conf",
			       "[claim \"iomem\"]\nmatch = hmem:60000000-6fffffff\n"
			       "[claim \"hex\"]\nmatch = hmem:0x1_0000_0000-0x2\n"
			       "[claim \"upper\"]\nmatch = hmem:0X80000000-0XBFFFFFFF\n"
			       "[claim \"node\"]\nmatch = hmem:node=1\nonline = normal\n",
			       &c, &e),
			 -EINVAL);
	assert_int_equal(e.n, 1);
	assert_string_equal(e.msg[0], "pmemram.conf:4: key 'match': invalid hmem match '0x1_0000_0000-0x2' (expected "
				      "'hmem:START-END', hex addresses as /proc/iomem prints them, or 'hmem:node=N')");
	c = pmemram_config_free(c);

	assert_int_equal(parse("pmemram.conf",
			       "[claim \"iomem\"]\nmatch = hmem:60000000-6fffffff\n"
			       "[claim \"upper\"]\nmatch = hmem:0X80000000-0XBFFFFFFF\n"
			       "[claim \"node\"]\nmatch = hmem:node=1\nonline = normal\n",
			       &c, &e),
			 0);
	claim = pmemram_config_find_claim(c, "iomem");
	assert_int_equal(claim->match, PMEMRAM_MATCH_HMEM_RANGE);
	assert_string_equal(claim->match_value, "0x60000000-0x6fffffff");
	assert_int_equal(claim->range_start, 0x60000000);
	assert_int_equal(claim->range_end, 0x6fffffff);
	claim = pmemram_config_find_claim(c, "upper");
	assert_string_equal(claim->match_value, "0x80000000-0xbfffffff");
	claim = pmemram_config_find_claim(c, "node");
	assert_int_equal(claim->match, PMEMRAM_MATCH_HMEM_NODE);
	assert_string_equal(claim->match_value, "node=1");
	assert_int_equal(claim->node, 1);
	assert_int_equal(claim->zone, PMEMRAM_ZONE_NORMAL);
}

static void test_hmem_errors(void **state)
{
	static const char *const bad[] = {
		"",
		"-",
		"60000000",
		"60000000-",
		"-6fffffff",
		"60000000 - 6fffffff",
		"0x-0x10",
		"0x10-0x",
		"g0000000-6fffffff",
		"60000000-6fffffff-7",
		"+1-2",
		"12345678901234567-2",
		"node",
		"node=",
		"node=-1",
		"node=+1",
		"node=1 ",
		"node=x",
		"node=1.0",
		"node= 1",
		"nodes=1",
	};
	struct pmemram_claim claim = {};
	enum pmemram_match m;
	char text[128], msg[256];

	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		assert_int_equal(pmemram_parse_hmem_match(bad[i], &m, &claim), -EINVAL);
		snprintf(text, sizeof(text), "# x\n[claim \"x\"]\nmatch = hmem:%s\n", bad[i]);
		snprintf(msg, sizeof(msg),
			 "x.conf:3: key 'match': invalid hmem match '%s' (expected 'hmem:START-END', hex addresses "
			 "as /proc/iomem prints them, or 'hmem:node=N')",
			 bad[i]);
		/* the config strips blanks at the end of the line: "node=1 " is fine there */
		if (bad[i][0] && bad[i][strlen(bad[i]) - 1] != ' ')
			expect_error("x.conf", text, msg);
	}
	assert_int_equal(pmemram_parse_hmem_match("6fffffff-60000000", &m, &claim), -ERANGE);
	assert_int_equal(pmemram_parse_hmem_match("1000-1000", &m, &claim), -ERANGE);
	assert_int_equal(pmemram_parse_hmem_match("node=99999999999", &m, &claim), -ERANGE);
	assert_int_equal(pmemram_parse_hmem_match(NULL, &m, &claim), -EINVAL);
	expect_error("x.conf", "[claim \"x\"]\nmatch = hmem:6fffffff-60000000\n",
		     "x.conf:2: key 'match': hmem range '6fffffff-60000000' is empty (END must lie above START)");
	snprintf(msg, sizeof(msg), "x.conf:2: key 'match': hmem node '%d' out of range (0 to %d)", PMEMRAM_MAX_NODES,
		 PMEMRAM_MAX_NODES - 1);
	snprintf(text, sizeof(text), "[claim \"x\"]\nmatch = hmem:node=%d\n", PMEMRAM_MAX_NODES);
	expect_error("x.conf", text, msg);

	/* the same range twice, in another spelling; overlapping ranges; the same node twice */
	expect_error("x.conf",
		     "[claim \"a\"]\nmatch = hmem:60000000-6fffffff\n[claim \"b\"]\nmatch = hmem:0x60000000-0x6FFFFFFF\n",
		     "x.conf:4: key 'match': 'hmem:0x60000000-0x6fffffff' already claimed by 'a' (x.conf:2)");
	expect_error("x.conf",
		     "[claim \"a\"]\nmatch = hmem:60000000-6fffffff\n[claim \"b\"]\nmatch = hmem:6fffffff-7fffffff\n",
		     "x.conf:4: key 'match': 'hmem:0x6fffffff-0x7fffffff' overlaps 'hmem:0x60000000-0x6fffffff' of claim "
		     "'a' (x.conf:2)");
	expect_error("x.conf", "[claim \"a\"]\nmatch = hmem:node=1\n[claim \"b\"]\nmatch = hmem:node=01\n",
		     "x.conf:4: key 'match': 'hmem:node=1' already claimed by 'a' (x.conf:2)");
	/* convert is for namespaces only */
	expect_error("x.conf", "[claim \"a\"]\nmatch = hmem:node=1\nconvert = yes\n",
		     "x.conf:3: key 'convert': 'yes' needs 'match = uuid:UUID', claim 'a' has 'match = hmem:node=1' "
		     "(x.conf:2)");
}

static void test_cxl_matches(void **state)
{
	_cleanup_(pmemram_config_freep) struct pmemram_config *c = NULL;
	struct pmemram_config_errors e;

	assert_int_equal(parse("cxl.conf",
			       "[claim \"r\"]\nmatch = cxl-region:region3\n"
			       "[claim \"hex\"]\nmatch = cxl-memdev:0x5EED0001\n"
			       "[claim \"dec\"]\nmatch = cxl-memdev:1592590338\n"
			       "[claim \"nd\"]\nmatch = region:region3\n",
			       &c, &e),
			 0);
	assert_int_equal(e.n, 0);
	assert_int_equal(pmemram_config_find_claim(c, "r")->match, PMEMRAM_MATCH_CXL_REGION);
	assert_string_equal(pmemram_config_find_claim(c, "r")->match_value, "region3");
	/* Serials are kept as sysfs prints them, whichever way they were written. */
	assert_int_equal(pmemram_config_find_claim(c, "hex")->match, PMEMRAM_MATCH_CXL_MEMDEV);
	assert_string_equal(pmemram_config_find_claim(c, "hex")->match_value, "0x5eed0001");
	assert_string_equal(pmemram_config_find_claim(c, "dec")->match_value, "0x5eed0002");
	/* A CXL region and an nvdimm region of the same name are different things. */
	assert_int_equal(pmemram_config_find_claim(c, "nd")->match, PMEMRAM_MATCH_REGION);

	expect_error("a.conf", "[claim \"x\"]\nmatch = cxl-region:decoder0.0\n",
		     "a.conf:2: key 'match': invalid CXL region name (regionN) 'decoder0.0'");
	expect_error("a.conf", "[claim \"x\"]\nmatch = cxl-region:\n",
		     "a.conf:2: key 'match': invalid CXL region name (regionN) ''");
	expect_error("a.conf", "[claim \"x\"]\nmatch = cxl-memdev:mem0\n",
		     "a.conf:2: key 'match': invalid CXL memdev serial number (0xHEX or decimal) 'mem0'");
	expect_error("a.conf", "[claim \"x\"]\nmatch = cxl-memdev:0x5eed000g\n",
		     "a.conf:2: key 'match': invalid CXL memdev serial number (0xHEX or decimal) '0x5eed000g'");
	expect_error("a.conf", "[claim \"x\"]\nmatch = cxl-memdev:0\n",
		     "a.conf:2: key 'match': invalid CXL memdev serial number (0xHEX or decimal) '0'");
	expect_error("a.conf", "[claim \"x\"]\nmatch = cxl-memdev:18446744073709551616\n",
		     "a.conf:2: key 'match': invalid CXL memdev serial number (0xHEX or decimal) "
		     "'18446744073709551616'");
	/* One memdev claimed twice, once in each notation. */
	expect_error("a.conf", "[claim \"x\"]\nmatch = cxl-memdev:0x10\n[claim \"y\"]\nmatch = cxl-memdev:16\n",
		     "a.conf:4: key 'match': 'cxl-memdev:0x10' already claimed by 'x' (a.conf:2)");
}

static void test_syntax_errors(void **state)
{
	expect_error(
		"a.conf", "[global]\nshufle = on\n",
		"a.conf:2: key 'shufle': unknown in [global] (known: shuffle, shuffle-nodes, hotplug-policy, demotion, online-at-bind, promotion, promotion-rate, daxctl-conf)");
	expect_error("a.conf", "[claim \"x\"]\nmatch = all-devdax\nzone = movable\n",
		     "a.conf:3: key 'zone': unknown in [claim] (known: match, online, convert, create, create-region)");
	expect_error("a.conf", "shuffle = on\n", "a.conf:1: key 'shuffle': outside of any section");
	expect_error("a.conf", "[device dax0.0]\nmatch = all-devdax\n",
		     "a.conf:1: unknown section '[device dax0.0]' (expected [global], [claim \"NAME\"] or [class "
		     "\"NAME\"])");
	expect_error("a.conf", "[claim fast]\n", "a.conf:1: invalid claim name fast (expected \"NAME\", 1 to 63 "
						 "letters, digits, '.', '_' or '-')");
	expect_error("a.conf", "[claim \"a b\"]\n", "a.conf:1: invalid claim name \"a b\" (expected \"NAME\", 1 to 63 "
						    "letters, digits, '.', '_' or '-')");
	expect_error("a.conf", "[global\n", "a.conf:1: expected ']' at the end of section header '[global'");
	expect_error("a.conf", "[global]\nshuffle\n", "a.conf:2: expected '[section]' or 'key = value', got 'shuffle'");
	expect_error("a.conf", "[global]\nshuffle = on\nshuffle = off\n", "a.conf:3: key 'shuffle': already set at line 2");
	expect_error("a.conf", "[claim \"x\"]\nmatch = all-devdax\n[claim \"x\"]\n",
		     "a.conf:3: claim 'x': defined twice in this file (first at line 1)");
}

/* A message too long for its buffer is cut between UTF-8 characters of the user's value, never
 * inside one (found by fuzz-config). */
static void test_error_cut_utf8(void **state)
{
	struct pmemram_config_errors errors = {};
	struct pmemram_config *c = NULL;
	char text[256];

	(void)state;
	for (int shift = 0; shift < 3; shift++) {
		int len = snprintf(text, sizeof(text), "[claim \"x\"]\nmatch = %.*s", shift, "aaa");

		for (int i = 0; i < 40; i++)
			len += snprintf(text + len, sizeof(text) - (size_t)len, "\xc3\xa9"); /* e acute */
		text[len++] = '\n';
		text[len] = '\0';
		errors = (struct pmemram_config_errors){};
		/* A long file name, so that the message runs past its buffer inside the value. */
		assert_int_equal(parse("pmemram.conf.d/10-a-drop-in-with-a-long-name.conf", text, &c, &errors),
				 -EINVAL);
		pmemram_config_free(c);
		c = NULL;
		assert_int_equal(errors.n, 1);
		print_message("%s\n", errors.msg[0]);
		assert_true(strlen(errors.msg[0]) >= PMEMRAM_CONFIG_ERROR_MAX - 4);
		assert_true(pmemram_name_is_printable(errors.msg[0]));
	}
}

static void test_classes(void **state)
{
	_cleanup_(pmemram_config_freep) struct pmemram_config *c = NULL;
	static const struct {
		const char *name;
		enum pmemram_class_nodes nodes;
		const char *text;
		enum pmemram_class_mode mode;
	} expect[] = {
		{ "fast", PMEMRAM_CLASS_NODES_DRAM, "dram", PMEMRAM_CLASS_BIND },
		{ "Bulk_2", PMEMRAM_CLASS_NODES_PMEM, "pmem", PMEMRAM_CLASS_PREFERRED },
		{ "everything", PMEMRAM_CLASS_NODES_ALL, "all", PMEMRAM_CLASS_INTERLEAVE },
		{ "quick", PMEMRAM_CLASS_NODES_LOWEST_LATENCY, "lowest-latency", PMEMRAM_CLASS_BIND },
		{ "wide", PMEMRAM_CLASS_NODES_HIGHEST_BANDWIDTH, "highest-bandwidth", PMEMRAM_CLASS_INTERLEAVE },
		{ "pinned", PMEMRAM_CLASS_NODES_LIST, "0,2-3", PMEMRAM_CLASS_BIND },
	};
	const struct pmemram_class *class;
	struct pmemram_config_errors e;
	char where[64];

	assert_int_equal(parse("pmemram.conf",
			       "[global]\n"
			       "demotion = on\n"
			       "[class \"fast\"]\n"
			       "nodes = dram\n"
			       "[claim \"dev\"]\n"
			       "match = device:dax0.0\n"
			       "[class \"Bulk_2\"]\n"
			       "mode = preferred\n"
			       "nodes = pmem\n"
			       "[class \"everything\"]\n"
			       "nodes = all\n"
			       "mode = interleave\n"
			       "[class \"quick\"]\n"
			       "nodes = lowest-latency\n"
			       "[class \"wide\"]\n"
			       "nodes=highest-bandwidth\n"
			       "mode=interleave\n"
			       "[class \"pinned\"]\n"
			       "nodes = 0,2-3\n",
			       &c, &e),
			 0);
	assert_int_equal(e.n, 0);
	assert_int_equal(c->n_claims, 1);
	assert_int_equal(c->demotion, PMEMRAM_CONFIG_SWITCH_ON);
	assert_string_equal(pmemram_config_origin_to_string(c, c->demotion_set, where, sizeof(where)), "pmemram.conf:2");

	/* in order of definition */
	assert_int_equal(c->n_classes, ELEMENTSOF(expect));
	for (size_t i = 0; i < ELEMENTSOF(expect); i++) {
		class = pmemram_config_find_class(c, expect[i].name);
		assert_ptr_equal(class, &c->classes[i]);
		assert_int_equal(class->nodes, expect[i].nodes);
		assert_string_equal(class->nodes_text, expect[i].text);
		assert_int_equal(class->mode, expect[i].mode);
	}

	class = pmemram_config_find_class(c, "pinned");
	assert_int_equal(pmemram_nodemask_weight(&class->list), 3);
	assert_true(pmemram_nodemask_test(&class->list, 0));
	assert_true(pmemram_nodemask_test(&class->list, 2));
	assert_true(pmemram_nodemask_test(&class->list, 3));
	assert_string_equal(pmemram_config_origin_to_string(c, class->defined, where, sizeof(where)), "pmemram.conf:18");
	assert_string_equal(pmemram_config_origin_to_string(c, class->nodes_set, where, sizeof(where)),
			    "pmemram.conf:19");
	assert_string_equal(pmemram_config_origin_to_string(c, class->mode_set, where, sizeof(where)), "(default)");
	assert_string_equal(pmemram_config_origin_to_string(c, pmemram_config_find_class(c, "Bulk_2")->mode_set, where,
							    sizeof(where)),
			    "pmemram.conf:8");

	/* claims and classes are apart: the same name may be both */
	assert_null(pmemram_config_find_class(c, "dev"));
	assert_null(pmemram_config_find_class(c, "bulk_2"));
	assert_null(pmemram_config_find_claim(c, "fast"));

	assert_string_equal(pmemram_class_nodes_to_string(PMEMRAM_CLASS_NODES_HIGHEST_BANDWIDTH), "highest-bandwidth");
	assert_string_equal(pmemram_class_nodes_to_string(PMEMRAM_CLASS_NODES_LIST), "list");
	assert_null(pmemram_class_nodes_to_string(_PMEMRAM_CLASS_NODES_MAX));
	assert_string_equal(pmemram_class_mode_to_string(PMEMRAM_CLASS_PREFERRED), "preferred");
	assert_null(pmemram_class_mode_to_string(_PMEMRAM_CLASS_MODE_MAX));
	assert_string_equal(pmemram_config_switch_to_string(PMEMRAM_CONFIG_SWITCH_KEEP), "keep");
	assert_null(pmemram_config_switch_to_string(_PMEMRAM_CONFIG_SWITCH_MAX));
	c = pmemram_config_free(c);

	/* defaults: no classes, demotion left alone */
	assert_int_equal(parse("pmemram.conf", "[global]\ndemotion = off\n", &c, &e), 0);
	assert_int_equal(c->demotion, PMEMRAM_CONFIG_SWITCH_OFF);
	c = pmemram_config_free(c);
	assert_int_equal(parse("pmemram.conf", "", &c, &e), 0);
	assert_int_equal(c->demotion, PMEMRAM_CONFIG_SWITCH_KEEP);
	assert_int_equal(c->demotion_set.file, -1);
	assert_int_equal(c->n_classes, 0);
	assert_null(pmemram_config_find_class(c, "fast"));
}

static void test_online_at_bind(void **state)
{
	struct pmemram_config_errors e;
	struct pmemram_config *c = NULL;
	char where[64];

	(void)state;
	/* on unless turned off */
	assert_int_equal(parse("pmemram.conf", "", &c, &e), 0);
	assert_true(c->online_at_bind);
	assert_int_equal(c->online_at_bind_set.file, -1);
	c = pmemram_config_free(c);
	assert_int_equal(parse("pmemram.conf", "[global]\n\nonline-at-bind = no\n", &c, &e), 0);
	assert_false(c->online_at_bind);
	assert_string_equal(pmemram_config_origin_to_string(c, c->online_at_bind_set, where, sizeof(where)),
			    "pmemram.conf:3");
	c = pmemram_config_free(c);

	expect_error("a.conf", "[global]\nonline-at-bind = off\n",
		     "a.conf:2: key 'online-at-bind': expected 'no' or 'yes', got 'off'");
	expect_error("a.conf", "[global]\nonline-at-bind = yes\nonline-at-bind = no\n",
		     "a.conf:3: key 'online-at-bind': already set at line 2");
	expect_error(
		"a.conf", "[claim \"c\"]\nonline-at-bind = yes\n",
		"a.conf:2: key 'online-at-bind': unknown in [claim] (known: match, online, convert, create, create-region)");
}

static void test_promotion(void **state)
{
	struct pmemram_config_errors e;
	struct pmemram_config *c = NULL;
	char where[64];

	(void)state;
	/* left alone unless set */
	assert_int_equal(parse("pmemram.conf", "", &c, &e), 0);
	assert_int_equal(c->promotion, PMEMRAM_CONFIG_SWITCH_KEEP);
	assert_int_equal(c->promotion_rate, 0);
	c = pmemram_config_free(c);
	assert_int_equal(parse("pmemram.conf", "[global]\npromotion = on\npromotion-rate = 256\n", &c, &e), 0);
	assert_int_equal(c->promotion, PMEMRAM_CONFIG_SWITCH_ON);
	assert_int_equal(c->promotion_rate, 256);
	assert_string_equal(pmemram_config_origin_to_string(c, c->promotion_rate_set, where, sizeof(where)),
			    "pmemram.conf:3");
	c = pmemram_config_free(c);

	expect_error("a.conf", "[global]\npromotion = yes\n",
		     "a.conf:2: key 'promotion': expected 'keep', 'on' or 'off', got 'yes'");
	expect_error("a.conf", "[global]\npromotion-rate = 0\n",
		     "a.conf:2: key 'promotion-rate': expected MB/s, a whole number from 1 to 4294967295, got '0'");
	expect_error(
		"a.conf", "[global]\npromotion-rate = 4294967296\n",
		"a.conf:2: key 'promotion-rate': expected MB/s, a whole number from 1 to 4294967295, got '4294967296'");
	expect_error("a.conf", "[global]\npromotion-rate = 10M\n",
		     "a.conf:2: key 'promotion-rate': expected MB/s, a whole number from 1 to 4294967295, got '10M'");
	expect_error("a.conf", "[global]\npromotion = on\npromotion = off\n",
		     "a.conf:3: key 'promotion': already set at line 2");
}

static void test_class_errors(void **state)
{
	/* the name becomes pmemram-NAME.slice, where '-' would nest */
	expect_error("a.conf", "[class \"fast-tier\"]\nnodes = dram\n",
		     "a.conf:1: invalid class name \"fast-tier\" (expected \"NAME\", 1 to 31 letters, digits or '_')");
	expect_error("a.conf", "[class \"a.b\"]\n",
		     "a.conf:1: invalid class name \"a.b\" (expected \"NAME\", 1 to 31 letters, digits or '_')");
	expect_error("a.conf", "[class \"\"]\n",
		     "a.conf:1: invalid class name \"\" (expected \"NAME\", 1 to 31 letters, digits or '_')");
	expect_error("a.conf", "[class fast]\n",
		     "a.conf:1: invalid class name fast (expected \"NAME\", 1 to 31 letters, digits or '_')");
	expect_error("a.conf", "[class \"abcdefghijklmnopqrstuvwxyz012345\"]\nnodes = dram\n",
		     "a.conf:1: invalid class name \"abcdefghijklmnopqrstuvwxyz012345\" (expected \"NAME\", 1 to 31 "
		     "letters, digits or '_')");
	expect_error("a.conf", "[class \"x\"]\nnodes = dram\nmode = strict\n",
		     "a.conf:3: key 'mode': expected 'bind', 'preferred', 'interleave' or 'weighted-interleave', got "
		     "'strict'");
	expect_error("a.conf", "[class \"x\"]\nnodes = dram\nmode = weighted-interleave\nweights = 0:3,2\n",
		     "a.conf:4: key 'weights': expected 'hmat' or NODE:WEIGHT pairs like '0:3,2:1', got '0:3,2'");
	expect_error("a.conf", "[class \"x\"]\nnodes = dram\nmode = weighted-interleave\nweights = 0:3,\n",
		     "a.conf:4: key 'weights': expected 'hmat' or NODE:WEIGHT pairs like '0:3,2:1', got '0:3,'");
	expect_error("a.conf", "[class \"x\"]\nnodes = dram\nmode = weighted-interleave\nweights = 0:256\n",
		     "a.conf:4: key 'weights': in '0:256', node 0 weight 256: nodes 0 to 1023, weights 1 to 255");
	expect_error("a.conf", "[class \"x\"]\nnodes = dram\nmode = weighted-interleave\nweights = 0:0\n",
		     "a.conf:4: key 'weights': in '0:0', node 0 weight 0: nodes 0 to 1023, weights 1 to 255");
	expect_error("a.conf", "[class \"x\"]\nnodes = dram\nmode = weighted-interleave\nweights = 1:2,1:3\n",
		     "a.conf:4: key 'weights': node 1 given twice in '1:2,1:3'");
	expect_error("a.conf", "[class \"x\"]\nnodes = dram\nmode = weighted-interleave\nweights = -1:2\n",
		     "a.conf:4: key 'weights': expected 'hmat' or NODE:WEIGHT pairs like '0:3,2:1', got '-1:2'");
	/* the weights are the kernel's, for weighted interleave only */
	expect_error("a.conf", "[class \"x\"]\nnodes = dram\nweights = 0:1\n",
		     "a.conf:3: class 'x': key 'weights' goes with 'mode = weighted-interleave' only, not bind");
	expect_error("a.conf", "[class \"x\"]\nnodes = fast\n",
		     "a.conf:2: key 'nodes': expected 'dram', 'pmem', 'all', 'lowest-latency', 'highest-bandwidth' or a "
		     "node list like '0,2-3', got 'fast'");
	expect_error("a.conf", "[class \"x\"]\nnodes = list\n",
		     "a.conf:2: key 'nodes': expected 'dram', 'pmem', 'all', 'lowest-latency', 'highest-bandwidth' or a "
		     "node list like '0,2-3', got 'list'");
	expect_error("a.conf", "[class \"x\"]\nnodes = 0-\n",
		     "a.conf:2: key 'nodes': invalid node list '0-' (expected numbers and ranges, like '0,2-3')");
	expect_error("a.conf", "[class \"x\"]\nnodes = 3-1\n",
		     "a.conf:2: key 'nodes': invalid node list '3-1' (expected numbers and ranges, like '0,2-3')");
	expect_error("a.conf", "[class \"x\"]\nnodes = 1,1024\n",
		     "a.conf:2: key 'nodes': node numbers go up to 1023, got '1,1024'");
	expect_error("a.conf",
		     "[class \"x\"]\nnodes = 1,3,5,7,9,11,13,15,17,19,21,23,25,27,29,31,33,35,37,39,41,43,45,47\n",
		     "a.conf:2: key 'nodes': node list longer than 63 characters");
	expect_error("a.conf", "[class \"x\"]\nnodes = dram\nnodes = pmem\n",
		     "a.conf:3: key 'nodes': already set at line 2");
	expect_error("a.conf", "[class \"x\"]\nnodes = dram\n\n[class \"x\"]\n",
		     "a.conf:4: class 'x': defined twice in this file (first at line 1)");
	expect_error("a.conf", "[class \"x\"]\nnodes = dram\npolicy = bind\n",
		     "a.conf:3: key 'policy': unknown in [class] (known: nodes, mode, protect, weights)");
	expect_error("a.conf", "[class \"x\"]\nnodes = dram\nprotect = lots\n",
		     "a.conf:3: key 'protect': expected a size like '512M' or '2G' (0 for none), got 'lots'");
	expect_error("a.conf", "[class \"x\"]\nnodes = dram\nprotect = -1G\n",
		     "a.conf:3: key 'protect': expected a size like '512M' or '2G' (0 for none), got '-1G'");
	expect_error("a.conf", "[class \"x\"]\nnodes = dram\nprotect = 512X\n",
		     "a.conf:3: key 'protect': expected a size like '512M' or '2G' (0 for none), got '512X'");
	expect_error("a.conf", "[class \"x\"]\nnodes = dram\nprotect = 1.5G\n",
		     "a.conf:3: key 'protect': expected a size like '512M' or '2G' (0 for none), got '1.5G'");
	expect_error("a.conf", "[class \"x\"]\nnodes = dram\nprotect = 512 M\n",
		     "a.conf:3: key 'protect': expected a size like '512M' or '2G' (0 for none), got '512 M'");
	expect_error("a.conf", "[class \"x\"]\nnodes = dram\nprotect =\n",
		     "a.conf:3: key 'protect': expected a size like '512M' or '2G' (0 for none), got ''");
	expect_error("a.conf", "[class \"x\"]\nnodes = dram\nprotect = 16E\n",
		     "a.conf:3: key 'protect': '16E' is more bytes than 64 bits hold");
	expect_error("a.conf", "[class \"x\"]\nprotect = 1G\nnodes = dram\nprotect = 2G\n",
		     "a.conf:4: key 'protect': already set at line 2");
	/* a class's key: not one of [global] */
	expect_error(
		"a.conf", "[global]\nprotect = 1G\n",
		"a.conf:2: key 'protect': unknown in [global] (known: shuffle, shuffle-nodes, hotplug-policy, demotion, online-at-bind, promotion, promotion-rate, daxctl-conf)");
	expect_error("a.conf", "[global]\ndemotion = yes\n",
		     "a.conf:2: key 'demotion': expected 'keep', 'on' or 'off', got 'yes'");
	expect_error("a.conf", "[global]\ndemotion = off\ndemotion = on\n",
		     "a.conf:3: key 'demotion': already set at line 2");
	/* checked once every file is read: a later one might still set it */
	expect_error("a.conf", "[claim \"c\"]\nmatch = all-devdax\n[class \"x\"]\nmode = bind\n",
		     "a.conf:3: class 'x': key 'nodes' missing");
}

static void test_many_errors(void **state)
{
	_cleanup_(pmemram_config_freep) struct pmemram_config *c = NULL;
	_cleanup_(freep) char *text = NULL;
	struct pmemram_config_errors e;
	size_t len = 0;

	/* keys of a bad section are not checked: one message, not a cascade */
	assert_int_equal(parse("a.conf", "[bogus]\nfoo = 1\nbar = 2\n[global]\nshuffle = of\n", &c, &e), -EINVAL);
	assert_int_equal(e.n, 2);
	assert_string_equal(e.msg[1], "a.conf:5: key 'shuffle': expected 'auto', 'on' or 'off', got 'of'");
	c = pmemram_config_free(c);

	/* all errors of a file are reported, up to the limit; the rest are counted */
	text = malloc(64 * 20);
	assert_non_null(text);
	len += (size_t)sprintf(text, "[global]\n");
	for (int i = 0; i < 20; i++)
		len += (size_t)sprintf(text + len, "bad%d = 1\n", i);
	assert_int_equal(parse("a.conf", text, &c, &e), -EINVAL);
	assert_int_equal(e.n, PMEMRAM_CONFIG_MAX_ERRORS);
	assert_int_equal(e.n_dropped, 20 - PMEMRAM_CONFIG_MAX_ERRORS);
	assert_string_equal(
		e.msg[15],
		"a.conf:17: key 'bad15': unknown in [global] (known: shuffle, shuffle-nodes, hotplug-policy, demotion, online-at-bind, promotion, promotion-rate, daxctl-conf)");
}

static void test_verify_errors(void **state)
{
	expect_error("a.conf", "[claim \"x\"]\nmatch = device:dax0.0\nconvert = yes\n",
		     "a.conf:3: key 'convert': 'yes' needs 'match = uuid:UUID', claim 'x' has 'match = device:dax0.0' "
		     "(a.conf:2)");
	expect_error("a.conf", "[claim \"x\"]\ncreate = devdax\nmatch = uuid:" UUID "\n",
		     "a.conf:2: key 'create': 'devdax' needs 'match = region:regionN', claim 'x' has 'match = uuid:" UUID
		     "' (a.conf:3)");
	expect_error("a.conf", "[claim \"x\"]\nmatch = all-devdax\ncreate = devdax\n",
		     "a.conf:3: key 'create': 'devdax' needs 'match = region:regionN', claim 'x' has 'match = all-devdax' "
		     "(a.conf:2)");
	expect_error("a.conf", "[claim \"x\"]\nmatch = cxl-memdev:0x1\ncreate = devdax\n",
		     "a.conf:3: key 'create': 'devdax' with 'match = cxl-memdev:0x1' needs 'create-region = pmem' in "
		     "claim 'x'");
	expect_error("a.conf", "[claim \"x\"]\nmatch = region:region0\ncreate-region = pmem\ncreate = devdax\n",
		     "a.conf:3: key 'create-region': 'pmem' needs 'match = cxl-memdev:SERIAL', claim 'x' has 'match = "
		     "region:region0' (a.conf:2)");
	expect_error("a.conf", "[claim \"x\"]\nmatch = cxl-memdev:0x1\ncreate-region = pmem\n",
		     "a.conf:3: key 'create-region': 'pmem' needs 'create = devdax' in claim 'x': a pmem region "
		     "without a namespace gives no memory");
	expect_error("a.conf", "[claim \"x\"]\nmatch = cxl-memdev:0x1\ncreate-region = no\n",
		     "a.conf:3: key 'create-region': expected 'pmem' or 'ram', got 'no'");
	expect_error("a.conf", "[claim \"x\"]\nmatch = cxl-memdev:0x1\ncreate-region = ram\ncreate = devdax\n",
		     "a.conf:4: key 'create': 'devdax' does not go with 'create-region = ram' in claim 'x': a RAM "
		     "region has no namespace, its dax device is the memory");
	expect_error("a.conf", "[claim \"x\"]\nmatch = hmem:node=1\ncreate-region = ram\n",
		     "a.conf:3: key 'create-region': 'ram' needs 'match = cxl-memdev:SERIAL', claim 'x' has 'match = "
		     "hmem:node=1' (a.conf:2)");
	expect_error("a.conf", "[claim \"x\"]\nonline = normal\n", "a.conf:1: claim 'x': key 'match' missing");
	expect_error("a.conf", "[claim \"x\"]\nmatch = uuid:" UUID "\n[claim \"y\"]\nmatch = uuid:" UUID "\n",
		     "a.conf:4: key 'match': 'uuid:" UUID "' already claimed by 'x' (a.conf:2)");
	expect_error("a.conf", "[claim \"x\"]\nmatch = all-devdax\n[claim \"y\"]\nmatch = all-devdax\n",
		     "a.conf:4: key 'match': 'all-devdax' already claimed by 'x' (a.conf:2)");
}

static void test_limits(void **state)
{
	_cleanup_(pmemram_config_freep) struct pmemram_config *c = NULL;
	_cleanup_(freep) char *text = NULL;
	struct pmemram_config_errors e;
	size_t len = 0;

	text = calloc(1, PMEMRAM_CONFIG_MAX_FILE_SIZE + 2);
	assert_non_null(text);

	/* line length: the limit itself passes, one more byte fails */
	len = (size_t)sprintf(text, "[global]\n#");
	memset(text + len, 'x', PMEMRAM_CONFIG_MAX_LINE - 1);
	assert_int_equal(parse("a.conf", text, &c, &e), 0);
	c = pmemram_config_free(c);
	strcat(text, "x\n");
	expect_error("a.conf", text, "a.conf:2: line longer than 1024 bytes");

	/* file size */
	memset(text, '#', PMEMRAM_CONFIG_MAX_FILE_SIZE + 1);
	for (size_t i = 100; i < PMEMRAM_CONFIG_MAX_FILE_SIZE; i += 100)
		text[i] = '\n';
	text[PMEMRAM_CONFIG_MAX_FILE_SIZE + 1] = '\0';
	expect_error("a.conf", text, "a.conf: larger than 65536 bytes");
	text[PMEMRAM_CONFIG_MAX_FILE_SIZE] = '\0';
	assert_int_equal(parse("a.conf", text, &c, &e), 0);
	c = pmemram_config_free(c);

	/* claims */
	len = 0;
	for (int i = 0; i <= PMEMRAM_CONFIG_MAX_CLAIMS; i++)
		len += (size_t)sprintf(text + len, "[claim \"c%d\"]\nmatch = device:dax%d.0\n", i, i);
	expect_error("a.conf", text, "a.conf:513: claim 'c256': more than 256 claims");

	/* classes */
	len = 0;
	for (int i = 0; i <= PMEMRAM_CONFIG_MAX_CLASSES; i++)
		len += (size_t)sprintf(text + len, "[class \"c%d\"]\nnodes = %d\n", i, i);
	expect_error("a.conf", text, "a.conf:129: class 'c64': more than 64 classes");

	/* a NUL byte ends the parse: not a text file */
	assert_int_equal(pmemram_config_new(&c), 0);
	e = (struct pmemram_config_errors){};
	assert_int_equal(pmemram_config_parse(c, "a.conf", "[global]\nshu\0ffle = on\n", 22, &e), -EINVAL);
	assert_int_equal(e.n, 1);
	assert_string_equal(e.msg[0], "a.conf:2: contains a NUL byte, not a text file");
}

/* Layers: a later file overrides single keys, a claim reopened elsewhere keeps its other keys. */
static void test_override_order(void **state)
{
	_cleanup_(pmemram_config_freep) struct pmemram_config *c = NULL;
	struct pmemram_config_errors e = {};
	const struct pmemram_claim *claim;
	char where[64];

	assert_int_equal(pmemram_config_new(&c), 0);
	assert_int_equal(PARSE(c, "pmemram.conf", "[global]\nshuffle = on\n[claim \"a\"]\nmatch = device:dax0.0\n", &e), 0);
	assert_int_equal(PARSE(c, "pmemram.conf.d/10-a.conf", "[claim \"a\"]\nonline = normal\n", &e), 0);
	assert_int_equal(PARSE(c, "pmemram.conf.d/20-b.conf", "[global]\nshuffle = off\n", &e), 0);
	assert_int_equal(pmemram_config_verify(c, &e), 0);
	assert_int_equal(e.n, 0);

	assert_int_equal(c->shuffle, PMEMRAM_CONFIG_SHUFFLE_OFF);
	assert_string_equal(pmemram_config_origin_to_string(c, c->shuffle_set, where, sizeof(where)),
			    "pmemram.conf.d/20-b.conf:2");
	claim = pmemram_config_find_claim(c, "a");
	assert_int_equal(c->n_claims, 1);
	assert_string_equal(claim->match_value, "dax0.0");
	assert_int_equal(claim->zone, PMEMRAM_ZONE_NORMAL);
	assert_string_equal(pmemram_config_origin_to_string(c, claim->zone_set, where, sizeof(where)),
			    "pmemram.conf.d/10-a.conf:2");
}

static void test_class_weights(void **state)
{
	_cleanup_(pmemram_config_freep) struct pmemram_config *c = NULL;
	struct pmemram_config_errors e = {};

	(void)state;
	/* hmat by default; a list; a drop-in replaces the list whole */
	assert_int_equal(pmemram_config_new(&c), 0);
	assert_int_equal(PARSE(c, "pmemram.conf",
			       "[class \"wide\"]\nnodes = all\nmode = weighted-interleave\n[class \"two\"]\nnodes = 1,2\n"
			       "mode = weighted-interleave\nweights = 2:1,1:3\n",
			       &e),
			 0);
	assert_int_equal(c->classes[0].mode, PMEMRAM_CLASS_WEIGHTED_INTERLEAVE);
	assert_true(c->classes[0].weights_hmat);
	assert_false(c->classes[1].weights_hmat);
	assert_int_equal(c->classes[1].n_weights, 2);
	assert_int_equal(c->classes[1].weights[0].node, 2);
	assert_int_equal(c->classes[1].weights[0].weight, 1);
	assert_int_equal(c->classes[1].weights[1].node, 1);
	assert_int_equal(c->classes[1].weights[1].weight, 3);
	assert_int_equal(PARSE(c, "pmemram.conf.d/50-two.conf", "[class \"two\"]\nweights = 1:255\n", &e), 0);
	assert_int_equal(c->classes[1].n_weights, 1);
	assert_int_equal(c->classes[1].weights[0].weight, 255);
	assert_int_equal(PARSE(c, "pmemram.conf.d/60-two.conf", "[class \"two\"]\nweights = hmat\n", &e), 0);
	assert_true(c->classes[1].weights_hmat);
	assert_string_equal(pmemram_class_mode_to_string(PMEMRAM_CLASS_WEIGHTED_INTERLEAVE), "weighted-interleave");
}

static void test_class_protect(void **state)
{
	_cleanup_(pmemram_config_freep) struct pmemram_config *c = NULL;
	static const struct {
		const char *value;
		uint64_t bytes;
	} good[] = {
		{ "512M", UINT64_C(512) << 20 },
		{ "2G", UINT64_C(2) << 30 },
		{ "2GiB", UINT64_C(2) << 30 },
		{ "1g", UINT64_C(1) << 30 },
		{ "64MB", UINT64_C(64) << 20 },
		{ "4096", 4096 },
		{ "0", 0 },
		{ "1T", UINT64_C(1) << 40 },
	};
	struct pmemram_config_errors e = {};
	char text[128], where[64];

	for (size_t i = 0; i < ELEMENTSOF(good); i++) {
		snprintf(text, sizeof(text), "[class \"fast\"]\nnodes = dram\nprotect = %s\n", good[i].value);
		assert_int_equal(parse("pmemram.conf", text, &c, &e), 0);
		assert_int_equal(c->classes[0].protect, good[i].bytes);
		assert_string_equal(pmemram_config_origin_to_string(c, c->classes[0].protect_set, where, sizeof(where)),
				    "pmemram.conf:3");
		c = pmemram_config_free(c);
	}

	/* none by default; a drop-in changes it, or takes it back with 0 */
	assert_int_equal(pmemram_config_new(&c), 0);
	assert_int_equal(PARSE(c, "pmemram.conf", "[class \"fast\"]\nnodes = dram\n[class \"slow\"]\nnodes = pmem\n",
			       &e),
			 0);
	assert_int_equal(c->classes[0].protect, 0);
	assert_int_equal(c->classes[0].protect_set.file, -1);
	assert_int_equal(PARSE(c, "pmemram.conf.d/10-a.conf", "[class \"fast\"]\nprotect = 1G\n", &e), 0);
	assert_int_equal(c->classes[0].protect, UINT64_C(1) << 30);
	assert_string_equal(c->classes[0].nodes_text, "dram"); /* kept */
	assert_int_equal(PARSE(c, "pmemram.conf.d/20-b.conf", "[class \"fast\"]\nprotect = 0\n", &e), 0);
	assert_int_equal(c->classes[0].protect, 0);
	assert_string_equal(pmemram_config_origin_to_string(c, c->classes[0].protect_set, where, sizeof(where)),
			    "pmemram.conf.d/20-b.conf:2");
	assert_int_equal(c->classes[1].protect, 0);
	assert_int_equal(pmemram_config_verify(c, &e), 0);
	assert_int_equal(e.n, 0);
}

/* A class reopened in a drop-in: only the key set there changes, and its origin with it. */
static void test_class_override(void **state)
{
	_cleanup_(pmemram_config_freep) struct pmemram_config *c = NULL;
	struct pmemram_config_errors e = {};
	const struct pmemram_class *class;
	char where[64];

	assert_int_equal(pmemram_config_new(&c), 0);
	assert_int_equal(PARSE(c, "pmemram.conf",
			       "[global]\ndemotion = on\n[class \"bulk\"]\nnodes = pmem\nmode = preferred\n"
			       "[class \"fast\"]\nnodes = dram\n",
			       &e),
			 0);
	assert_int_equal(PARSE(c, "pmemram.conf.d/10-a.conf", "[class \"bulk\"]\nnodes = 2-3\n", &e), 0);
	assert_int_equal(PARSE(c, "pmemram.conf.d/20-b.conf", "[global]\ndemotion = keep\n[class \"new\"]\nnodes = all\n",
			       &e),
			 0);
	/* a class may get its nodes from a later file only */
	assert_int_equal(PARSE(c, "pmemram.conf.d/30-c.conf", "[class \"late\"]\nmode = interleave\n", &e), 0);
	assert_int_equal(pmemram_config_verify(c, &e), -EINVAL);
	assert_int_equal(e.n, 1);
	assert_string_equal(e.msg[0], "pmemram.conf.d/30-c.conf:1: class 'late': key 'nodes' missing");
	e = (struct pmemram_config_errors){};
	assert_int_equal(PARSE(c, "pmemram.conf.d/40-d.conf", "[class \"late\"]\nnodes = 0\n", &e), 0);
	assert_int_equal(pmemram_config_verify(c, &e), 0);
	assert_int_equal(e.n, 0);

	assert_int_equal(c->demotion, PMEMRAM_CONFIG_SWITCH_KEEP);
	assert_string_equal(pmemram_config_origin_to_string(c, c->demotion_set, where, sizeof(where)),
			    "pmemram.conf.d/20-b.conf:2");
	assert_int_equal(c->n_classes, 4);
	assert_string_equal(c->classes[0].name, "bulk");
	assert_string_equal(c->classes[3].name, "late");

	class = pmemram_config_find_class(c, "bulk");
	assert_int_equal(class->nodes, PMEMRAM_CLASS_NODES_LIST);
	assert_string_equal(class->nodes_text, "2-3");
	assert_int_equal(pmemram_nodemask_weight(&class->list), 2);
	assert_int_equal(class->mode, PMEMRAM_CLASS_PREFERRED); /* kept */
	assert_string_equal(pmemram_config_origin_to_string(c, class->defined, where, sizeof(where)),
			    "pmemram.conf.d/10-a.conf:1");
	assert_string_equal(pmemram_config_origin_to_string(c, class->nodes_set, where, sizeof(where)),
			    "pmemram.conf.d/10-a.conf:2");
	assert_string_equal(pmemram_config_origin_to_string(c, class->mode_set, where, sizeof(where)), "pmemram.conf:5");
	assert_int_equal(pmemram_config_find_class(c, "fast")->nodes, PMEMRAM_CLASS_NODES_DRAM);
	assert_int_equal(pmemram_config_find_class(c, "late")->mode, PMEMRAM_CLASS_INTERLEAVE);
}

/* ---- the loader, on a directory under mkdtemp() ---------------------------------------- */

struct dir {
	char path[64];
	int fd;
};

static void write_file(struct dir *d, const char *name, const char *text)
{
	_cleanup_(closep) int fd = openat(d->fd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
}

static int dir_setup(void **state)
{
	struct dir *d = calloc(1, sizeof(*d));
	const char *tmp = getenv("TMPDIR");

	if (!d)
		return -1;
	snprintf(d->path, sizeof(d->path), "%s/test-config.XXXXXX", tmp && *tmp && strlen(tmp) < 32 ? tmp : "/tmp");
	if (!mkdtemp(d->path))
		return -1;
	d->fd = open(d->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	*state = d;
	return d->fd >= 0 ? 0 : -1;
}

static int dir_teardown(void **state)
{
	struct dir *d = *state;
	char cmd[128];

	safe_close(d->fd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d->path);
	free(d);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_load_missing(void **state)
{
	struct pmemram_config *c = (void *)0x1;
	struct pmemram_config_errors e = {};
	struct dir *d = *state;

	/* nothing at all: "no configuration", distinct from malformed, no messages */
	assert_int_equal(pmemram_config_load(d->fd, &c, &e), -ENOENT);
	assert_ptr_equal(c, (void *)0x1);
	assert_int_equal(e.n, 0);

	/* an empty drop-in directory is still nothing */
	assert_int_equal(mkdirat(d->fd, "pmemram.conf.d", 0755), 0);
	write_file(d, "pmemram.conf.d/README", "not a drop-in\n");
	assert_int_equal(pmemram_config_load(d->fd, &c, &e), -ENOENT);

	/* an empty main file is a configuration that claims nothing */
	write_file(d, "pmemram.conf", "");
	assert_int_equal(pmemram_config_load(d->fd, &c, &e), 0);
	assert_int_equal(c->n_claims, 0);
	c = pmemram_config_free(c);
}

static void test_load_dropins(void **state)
{
	_cleanup_(pmemram_config_freep) struct pmemram_config *c = NULL;
	struct pmemram_config_errors e = {};
	struct dir *d = *state;
	char where[64];

	assert_int_equal(mkdirat(d->fd, "pmemram.conf.d", 0755), 0);
	/* no main file: drop-ins alone are a configuration (pmemramctl claim writes them) */
	write_file(d, "pmemram.conf.d/20-b.conf", "[global]\nshuffle = off\n");
	write_file(d, "pmemram.conf.d/10-a.conf", "[global]\nshuffle = on\n[claim \"a\"]\nmatch = all-devdax\n");
	write_file(d, "pmemram.conf.d/.30-hidden.conf", "garbage\n");
	write_file(d, "pmemram.conf.d/40-c.conf.bak", "garbage\n");

	assert_int_equal(pmemram_config_load(d->fd, &c, &e), 0);
	assert_int_equal(c->shuffle, PMEMRAM_CONFIG_SHUFFLE_OFF);
	assert_string_equal(pmemram_config_origin_to_string(c, c->shuffle_set, where, sizeof(where)),
			    "pmemram.conf.d/20-b.conf:2");
	assert_int_equal(c->n_files, 2);
	assert_string_equal(c->files[0], "pmemram.conf.d/10-a.conf");
	c = pmemram_config_free(c);

	/* the main file comes first, whatever the names */
	write_file(d, "pmemram.conf", "[global]\nshuffle = auto\n[claim \"a\"]\nonline = normal\n");
	assert_int_equal(pmemram_config_load(d->fd, &c, &e), 0);
	assert_string_equal(c->files[0], "pmemram.conf");
	assert_int_equal(c->shuffle, PMEMRAM_CONFIG_SHUFFLE_OFF);
	assert_int_equal(c->claims[0].zone, PMEMRAM_ZONE_NORMAL);
	assert_string_equal(pmemram_config_origin_to_string(c, c->claims[0].match_set, where, sizeof(where)),
			    "pmemram.conf.d/10-a.conf:4");
}

static void test_load_errors(void **state)
{
	struct pmemram_config *c = (void *)0x1;
	struct pmemram_config_errors e = {};
	struct dir *d = *state;
	char name[64];

	assert_int_equal(mkdirat(d->fd, "pmemram.conf.d", 0755), 0);
	write_file(d, "pmemram.conf", "[global]\nshuffle = maybe\n");
	write_file(d, "pmemram.conf.d/10-x.conf", "[claim \"x\"]\nmatch = all-devdax\nonline = moveable\n");
	assert_int_equal(mkdirat(d->fd, "pmemram.conf.d/20-dir.conf", 0755), 0);

	/* every broken file is reported in one go, and nothing is returned */
	assert_int_equal(pmemram_config_load(d->fd, &c, &e), -EINVAL);
	assert_ptr_equal(c, (void *)0x1);
	assert_int_equal(e.n, 3);
	assert_string_equal(e.msg[0], "pmemram.conf:2: key 'shuffle': expected 'auto', 'on' or 'off', got 'maybe'");
	assert_string_equal(e.msg[1], "pmemram.conf.d/10-x.conf:3: key 'online': expected 'movable' or 'normal', got "
				      "'moveable'");
	assert_string_equal(e.msg[2], "pmemram.conf.d/20-dir.conf: not a regular file");

	/* a problem only visible across files names the key's file */
	write_file(d, "pmemram.conf", "[claim \"x\"]\nconvert = yes\n");
	write_file(d, "pmemram.conf.d/10-x.conf", "[claim \"x\"]\nmatch = region:region0\n");
	assert_int_equal(unlinkat(d->fd, "pmemram.conf.d/20-dir.conf", AT_REMOVEDIR), 0);
	e = (struct pmemram_config_errors){};
	assert_int_equal(pmemram_config_load(d->fd, &c, &e), -EINVAL);
	assert_int_equal(e.n, 1);
	assert_string_equal(e.msg[0], "pmemram.conf:2: key 'convert': 'yes' needs 'match = uuid:UUID', claim 'x' has "
				      "'match = region:region0' (pmemram.conf.d/10-x.conf:2)");

	/* drop-in count */
	write_file(d, "pmemram.conf", "");
	write_file(d, "pmemram.conf.d/10-x.conf", "");
	for (int i = 0; i < PMEMRAM_CONFIG_MAX_DROPINS; i++) {
		snprintf(name, sizeof(name), "pmemram.conf.d/50-%03d.conf", i);
		write_file(d, name, "");
	}
	e = (struct pmemram_config_errors){};
	assert_int_equal(pmemram_config_load(d->fd, &c, &e), -EINVAL);
	assert_string_equal(e.msg[0], "pmemram.conf.d: more than 128 *.conf files");
	assert_ptr_equal(c, (void *)0x1);
}

/* A drop-in's name goes into messages, JSON and the slices' comments: a newline there would be a
 * directive of its own in the slice, an escape sequence would reach the terminal. */
static void test_load_unprintable_names(void **state)
{
	static const char *const names[] = { "pmemram.conf.d/50-a\nAllowedMemoryNodes=0.conf",
					     "pmemram.conf.d/50-\033[2J.conf", "pmemram.conf.d/50-\xff.conf" };
#define UNPRINTABLE(name) "pmemram.conf.d: file name '" name "' has control characters or is not UTF-8: rename it"
	static const char *const shown[] = {
		UNPRINTABLE("50-a\\x0aAllowedMemoryNodes=0.conf"),
		UNPRINTABLE("50-\\x1b[2J.conf"),
		UNPRINTABLE("50-\\xff.conf"),
	};
#undef UNPRINTABLE
	struct dir *d = *state;

	assert_int_equal(mkdirat(d->fd, "pmemram.conf.d", 0755), 0);
	write_file(d, "pmemram.conf", "");
	write_file(d, "pmemram.conf.d/50-\xc3\xa9t\xc3\xa9.conf", "[class \"x\"]\nnodes = all\n");
	for (size_t i = 0; i < ELEMENTSOF(names); i++) {
		struct pmemram_config *c = (void *)0x1;
		struct pmemram_config_errors e = {};

		write_file(d, names[i], "[class \"x\"]\nnodes = all\n");
		assert_int_equal(pmemram_config_load(d->fd, &c, &e), -EINVAL);
		assert_ptr_equal(c, (void *)0x1);
		assert_int_equal(e.n, 1);
		assert_string_equal(e.msg[0], shown[i]);
		assert_int_equal(unlinkat(d->fd, names[i], 0), 0);
	}
	/* UTF-8 names are fine */
	{
		struct pmemram_config *c = NULL;
		struct pmemram_config_errors e = {};

		assert_int_equal(pmemram_config_load(d->fd, &c, &e), 0);
		pmemram_config_free(c);
	}
}

/* daxctl.conf.d: the files daxctl reads, *.conf, hidden ones too but not ".conf" itself, regular
 * ones only; a bad section does not stop the others. */
static void test_load_daxctl(void **state)
{
	_cleanup_(pmemram_config_freep) struct pmemram_config *c = NULL;
	struct pmemram_config_errors w = {};
	struct dir *d = *state;
	char msg[PMEMRAM_CONFIG_ERROR_MAX];

	write_file(d, "20-b.conf", "[reconfigure-device b]\nnvdimm.uuid = " UUID_B "\nmode = system-ram\n");
	write_file(d, "10-a.conf", "[reconfigure-device a]\nnvdimm.uuid = " UUID_A "\nmode = system-ram\n");
	write_file(d, "15-bad.conf", "[reconfigure-device bad]\nnvdimm.uuid = nope\nmode = system-ram\n");
	write_file(d, ".30-hidden.conf", "[reconfigure-device h]\nnvdimm.uuid = " UUID_C "\nmode = system-ram\n");
	write_file(d, ".conf", "[reconfigure-device n]\nnvdimm.uuid = " UUID_A "\nmode = system-ram\n");
	write_file(d, "daxctl.example.conf.bak", "garbage\n");
	assert_int_equal(mkdirat(d->fd, "40-dir.conf", 0755), 0);

	assert_int_equal(pmemram_config_new(&c), 0);
	assert_int_equal(pmemram_daxctl_load(c, d->fd, d->path, &w), 0);
	assert_int_equal(c->n_daxctl, 4);
	assert_int_equal(c->n_claims, 3);
	assert_string_equal(c->claims[0].name, "daxctl:h"); /* ".30-hidden.conf" sorts first */
	assert_string_equal(c->claims[1].name, "daxctl:a");
	assert_string_equal(c->claims[2].name, "daxctl:b");
	assert_int_equal(w.n, 2);
	snprintf(msg, sizeof(msg), "%s/40-dir.conf: not a regular file: daxctl does not read it either", d->path);
	assert_string_equal(w.msg[0], msg); /* said when listing, before reading */
	snprintf(msg, sizeof(msg),
		 "%s/15-bad.conf:2: key 'nvdimm.uuid': invalid UUID 'nope' (expected 8-4-4-4-12 hex "
		 "digits): section skipped",
		 d->path);
	assert_string_equal(w.msg[1], msg);
	c = pmemram_config_free(c);

	/* a name that cannot be shown: daxctl reads the file, pmemram does not, so no section is used */
	assert_int_equal(unlinkat(d->fd, "40-dir.conf", AT_REMOVEDIR), 0); /* its warning could come first */
	write_file(d, "50-\033[2J.conf", "[reconfigure-device e]\nnvdimm.uuid = " UUID_A "\nmode = system-ram\n");
	w = (struct pmemram_config_errors){};
	assert_int_equal(pmemram_config_new(&c), 0);
	assert_int_equal(pmemram_daxctl_load(c, d->fd, d->path, &w), 0);
	assert_int_equal(c->n_daxctl, 0);
	assert_int_equal(c->daxctl_unreadable.file, 0);
	assert_string_equal(c->files[0], d->path);
	assert_int_equal(w.n, 1);
	snprintf(msg, sizeof(msg), "%s: file name '50-\\x1b[2J.conf' has control characters or is not UTF-8: rename it",
		 d->path);
	assert_string_equal(w.msg[0], msg);
	c = pmemram_config_free(c);

	/* daxctl-conf = no: nothing read */
	assert_int_equal(pmemram_config_new(&c), 0);
	assert_int_equal(pmemram_config_parse(c, "pmemram.conf", "[global]\ndaxctl-conf = no\n", 25, NULL), 0);
	assert_false(c->daxctl_conf);
	assert_int_equal(pmemram_daxctl_load(c, d->fd, d->path, &w), 0);
	assert_int_equal(c->n_daxctl, 0);
	assert_int_equal(c->n_claims, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_uuid),
		cmocka_unit_test(test_value_errors),
		cmocka_unit_test(test_shuffle_nodes),
		cmocka_unit_test(test_shuffle_nodes_errors),
		cmocka_unit_test(test_hmem),
		cmocka_unit_test(test_hmem_errors),
		cmocka_unit_test(test_cxl_matches),
		cmocka_unit_test(test_syntax_errors),
		cmocka_unit_test(test_error_cut_utf8),
		cmocka_unit_test(test_classes),
		cmocka_unit_test(test_online_at_bind),
		cmocka_unit_test(test_promotion),
		cmocka_unit_test(test_class_errors),
		cmocka_unit_test(test_class_weights),
		cmocka_unit_test(test_class_protect),
		cmocka_unit_test(test_many_errors),
		cmocka_unit_test(test_verify_errors),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_override_order),
		cmocka_unit_test(test_class_override),
		cmocka_unit_test_setup_teardown(test_load_missing, dir_setup, dir_teardown),
		cmocka_unit_test_setup_teardown(test_load_dropins, dir_setup, dir_teardown),
		cmocka_unit_test_setup_teardown(test_load_errors, dir_setup, dir_teardown),
		cmocka_unit_test_setup_teardown(test_load_daxctl, dir_setup, dir_teardown),
		cmocka_unit_test_setup_teardown(test_load_unprintable_names, dir_setup, dir_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
