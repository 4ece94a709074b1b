/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the daxctl.conf.d reader: every key, exact FILE:LINE warnings, the merge with pmemram's claims
 * (its directory is read in test-config.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pmemram-config.h"
#include "pmemram-plan.h"
#include "pmemram-private.h"

#define UUID_A "ed93e918-e165-49d8-921d-383d7b9660c5"
#define UUID_B "6e9b4c6d-1f2a-4c3b-9d8e-0a1b2c3d4e5f"
#define F "/etc/daxctl.conf.d/a.conf"

/* Parse text as F into a fresh config and merge; warnings in *w. */
static struct pmemram_config *parse(const char *text, struct pmemram_config_errors *w)
{
	struct pmemram_config *c;

	*w = (struct pmemram_config_errors){};
	assert_int_equal(pmemram_config_new(&c), 0);
	assert_int_equal(pmemram_daxctl_parse(c, F, text, strlen(text), w), 0);
	assert_int_equal(pmemram_daxctl_merge(c, w), 0);
	return c;
}

/* text gives exactly one warning, msg, and its one section ends in state. */
static void expect_warning(const char *text, const char *msg, enum pmemram_daxctl_state state)
{
	_cleanup_(pmemram_config_freep) struct pmemram_config *c = NULL;
	struct pmemram_config_errors w;

	c = parse(text, &w);
	if (w.n != 1)
		fail_msg("%zu warnings for '%s', first '%s'", w.n, text, w.n ? w.msg[0] : "");
	assert_string_equal(w.msg[0], msg);
	assert_int_equal(c->n_daxctl, 1);
	assert_int_equal(c->daxctl[0].state, state);
}

static void test_valid(void **state)
{
	_cleanup_(pmemram_config_freep) struct pmemram_config *c = NULL;
	struct pmemram_config_errors w;
	char where[128];

	c = parse("# daxctl's example, filled in\n"
		  "[reconfigure-device unique_identifier_foo]\n"
		  "nvdimm.uuid=" UUID_A "\n"
		  "mode = system-ram\n"
		  "online = true\n"
		  "movable = false\n"
		  "\n"
		  "; quoted, comments after values, keys and words in any case\n"
		  "[Reconfigure-Device  Second One ]\n"
		  "NVDIMM.UUID = \"" UUID_B "\"\n"
		  "Mode = system-ram ; as RAM\n"
		  "movable = Yes # the default anyway\n",
		  &w);
	assert_int_equal(w.n, 0);
	assert_int_equal(c->n_daxctl, 2);
	assert_int_equal(c->n_claims, 2);

	assert_string_equal(c->daxctl[0].name, "unique_identifier_foo");
	assert_int_equal(c->daxctl[0].state, PMEMRAM_DAXCTL_CLAIMED);
	assert_string_equal(c->claims[0].name, "daxctl:unique_identifier_foo");
	assert_true(c->claims[0].from_daxctl);
	assert_int_equal(c->claims[0].match, PMEMRAM_MATCH_UUID);
	assert_string_equal(c->claims[0].match_value, UUID_A);
	assert_int_equal(c->claims[0].zone, PMEMRAM_ZONE_NORMAL);
	assert_false(c->claims[0].convert);
	assert_string_equal(pmemram_config_origin_to_string(c, c->claims[0].defined, where, sizeof(where)), F ":2");
	assert_string_equal(pmemram_config_origin_to_string(c, c->claims[0].match_set, where, sizeof(where)), F ":3");
	assert_string_equal(pmemram_config_origin_to_string(c, c->claims[0].zone_set, where, sizeof(where)), F ":6");

	/* spaces in the name become '_', letters lower case, as daxctl sees it */
	assert_string_equal(c->daxctl[1].name, "second_one");
	assert_string_equal(c->claims[1].name, "daxctl:second_one");
	assert_string_equal(c->claims[1].match_value, UUID_B);
	assert_int_equal(c->claims[1].zone, PMEMRAM_ZONE_MOVABLE);
}

/* online and movable read as daxctl reads them: by their first letter. */
static void test_booleans(void **state)
{
	static const struct {
		const char *value;
		bool movable;
	} cases[] = {
		{ "true", true }, { "T", true },   { "yes", true }, { "1", true },     { "false", false },
		{ "F", false },	  { "no", false }, { "0", false },  { "nope", false },
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		_cleanup_(pmemram_config_freep) struct pmemram_config *c = NULL;
		struct pmemram_config_errors w;
		char text[256];

		snprintf(text, sizeof(text),
			 "[reconfigure-device x]\nnvdimm.uuid = " UUID_A "\nmode = system-ram\nmovable = %s\n",
			 cases[i].value);
		c = parse(text, &w);
		assert_int_equal(w.n, 0);
		assert_int_equal(c->n_claims, 1);
		assert_int_equal(c->claims[0].zone, cases[i].movable ? PMEMRAM_ZONE_MOVABLE : PMEMRAM_ZONE_NORMAL);
	}

	/* without movable or online: movable, as daxctl's default */
	expect_warning(
		"[reconfigure-device x]\nnvdimm.uuid = " UUID_A "\nmode = system-ram\nmovable = maybe\n",
		F
		":4: key 'movable': expected true or false, got 'maybe': daxctl ignores it, so the default (true) holds",
		PMEMRAM_DAXCTL_CLAIMED);
}

static void test_malformed(void **state)
{
	expect_warning("[reconfigure-device x]\nnvdimm.uuid = 1234\nmode = system-ram\n",
		       F ":2: key 'nvdimm.uuid': invalid UUID '1234' (expected 8-4-4-4-12 hex digits): section skipped",
		       PMEMRAM_DAXCTL_SKIPPED);
	expect_warning(
		"[reconfigure-device x]\nnvdimm.uuid = " UUID_A "\nmode = ram\n",
		F
		":3: key 'mode': expected 'system-ram' or 'devdax', got 'ram' (daxctl refuses it too): section skipped",
		PMEMRAM_DAXCTL_SKIPPED);
	expect_warning("\n[reconfigure-device x]\nmode = system-ram\n",
		       F ":2: section 'x': no nvdimm.uuid, the only key daxctl matches devices by: skipped",
		       PMEMRAM_DAXCTL_SKIPPED);
	expect_warning("[reconfigure-device x]\nnvdimm.uuid = " UUID_A "\n",
		       F ":1: section 'x': no mode: skipped (daxctl does nothing without one)", PMEMRAM_DAXCTL_SKIPPED);
	expect_warning("[reconfigure-device x]\nnvdimm.uuid = " UUID_A "\nmode = system-ram\nzone = normal\n",
		       F ":4: key 'zone': not one daxctl reads (nvdimm.uuid, mode, online, movable): ignored",
		       PMEMRAM_DAXCTL_CLAIMED);
	expect_warning("[reconfigure-device x]\nnvdimm.uuid = " UUID_B "\nnvdimm.uuid = " UUID_A
		       "\nmode = system-ram\n",
		       F ":3: key 'nvdimm.uuid': already set at line 2; the later value counts, as for daxctl",
		       PMEMRAM_DAXCTL_CLAIMED);
	expect_warning("nvdimm.uuid = " UUID_A "\n[reconfigure-device x]\nnvdimm.uuid = " UUID_A
		       "\nmode = system-ram\n",
		       F ":1: key 'nvdimm.uuid': outside of any section: ignored", PMEMRAM_DAXCTL_CLAIMED);

	/* a line daxctl cannot parse: it rejects everything, so every section of the file is skipped */
	{
		_cleanup_(pmemram_config_freep) struct pmemram_config *c = NULL;
		struct pmemram_config_errors w;

		c = parse("[reconfigure-device x]\nnvdimm.uuid = " UUID_A "\nmode = system-ram\n"
			  "[reconfigure-device y]\nnvdimm.uuid = " UUID_B "\nsystem-ram\n",
			  &w);
		assert_int_equal(w.n, 1);
		assert_string_equal(w.msg[0], F ":6: expected '[section]' or 'key = value', got 'system-ram' (daxctl "
						"rejects the whole configuration)");
		assert_int_equal(c->n_claims, 0);
		assert_int_equal(c->daxctl[0].state, PMEMRAM_DAXCTL_SKIPPED);
		assert_string_equal(c->daxctl[0].text,
				    F ":6 cannot be parsed, and daxctl rejects the whole configuration for it");
		assert_int_equal(c->daxctl[1].state, PMEMRAM_DAXCTL_SKIPPED);
	}
}

/* Sections daxctl does not read, and a header without ']', open no section. */
static void test_no_section(void **state)
{
	_cleanup_(pmemram_config_freep) struct pmemram_config *c = NULL;
	struct pmemram_config_errors w;

	c = parse("[other]\nx = 1\n[reconfigure-device x\nnvdimm.uuid = " UUID_A "\n", &w);
	assert_int_equal(w.n, 2);
	assert_string_equal(w.msg[0], F
			    ":1: section '[other]' is not one daxctl reads (only [reconfigure-device NAME]): ignored");
	assert_string_equal(w.msg[1], F ":3: expected ']' at the end of section header '[reconfigure-device x' (daxctl "
					"rejects the whole configuration)");
	assert_int_equal(c->n_daxctl, 0);
	assert_int_equal(c->n_claims, 0);
}

/* What has no pmemram claim: devdax mode (not a claim, no warning), online = false (a warning). */
static void test_untranslatable(void **state)
{
	_cleanup_(pmemram_config_freep) struct pmemram_config *c = NULL;
	struct pmemram_config_errors w;
	struct pmemram_claim claim;
	const char *why = NULL;

	c = parse("[reconfigure-device d]\nnvdimm.uuid = " UUID_A "\nmode = devdax\n"
		  "[reconfigure-device o]\nnvdimm.uuid = " UUID_B "\nmode = system-ram\nonline = false\n",
		  &w);
	assert_int_equal(w.n, 1);
	assert_string_equal(w.msg[0], F ":4: section 'o': online = false (kmem without onlining its memory) has no "
					"pmemram equivalent: skipped");
	assert_int_equal(c->n_claims, 0);
	assert_int_equal(c->daxctl[0].state, PMEMRAM_DAXCTL_SKIPPED);
	assert_int_equal(pmemram_daxctl_to_claim(&c->daxctl[0], &claim, &why), -EINVAL);
	assert_string_equal(why,
			    "mode = devdax: not a claim (pmemram leaves devices it does not claim in devdax mode)");
	assert_int_equal(c->daxctl[1].state, PMEMRAM_DAXCTL_SKIPPED);
	assert_string_equal(c->daxctl[1].text,
			    "online = false (kmem without onlining its memory) has no pmemram equivalent");
}

/* pmemram's claim for a UUID wins: the section is redundant when it agrees, a conflict when not. */
static void test_merge(void **state)
{
	_cleanup_(pmemram_config_freep) struct pmemram_config *c = NULL;
	struct pmemram_config_errors e = {}, w = {};
	const char *mine = "[claim \"a\"]\nmatch = uuid:" UUID_A "\n"
			   "[claim \"b\"]\nmatch = uuid:" UUID_B "\nonline = normal\n";
	const char *theirs =
		"[reconfigure-device same]\nnvdimm.uuid = " UUID_A "\nmode = system-ram\n"
		"[reconfigure-device differs]\nnvdimm.uuid = " UUID_B "\nmode = system-ram\nmovable = true\n"
		"[reconfigure-device again]\nnvdimm.uuid = " UUID_A "\nmode = system-ram\n";

	assert_int_equal(pmemram_config_new(&c), 0);
	assert_int_equal(pmemram_config_parse(c, "pmemram.conf", mine, strlen(mine), &e), 0);
	assert_int_equal(pmemram_daxctl_parse(c, F, theirs, strlen(theirs), &w), 0);
	assert_int_equal(pmemram_daxctl_merge(c, &w), 0);

	assert_int_equal(c->n_claims, 2); /* no claim from daxctl */
	assert_int_equal(c->daxctl[0].state, PMEMRAM_DAXCTL_REDUNDANT);
	assert_string_equal(c->daxctl[0].claim, "a");
	assert_string_equal(c->daxctl[0].text, "claim 'a' (pmemram.conf:1) says the same");
	assert_int_equal(c->daxctl[1].state, PMEMRAM_DAXCTL_CONFLICT);
	assert_string_equal(c->daxctl[1].claim, "b");
	assert_string_equal(c->daxctl[1].text, "claim 'b' (pmemram.conf:3) has online = normal, this section movable = "
					       "true: the claim is used");
	/* a second section for a UUID pmemram claims is compared too, not an error */
	assert_int_equal(c->daxctl[2].state, PMEMRAM_DAXCTL_REDUNDANT);
	assert_int_equal(w.n, 0);
}

/* Two sections for one UUID without a pmemram claim: the first counts, the second is a warning. */
static void test_duplicate(void **state)
{
	_cleanup_(pmemram_config_freep) struct pmemram_config *c = NULL;
	struct pmemram_config_errors w;

	c = parse("[reconfigure-device one]\nnvdimm.uuid = " UUID_A "\nmode = system-ram\n"
		  "[reconfigure-device two]\nnvdimm.uuid = " UUID_A "\nmode = system-ram\nmovable = false\n"
		  "[reconfigure-device one]\nnvdimm.uuid = " UUID_B "\nmode = system-ram\n",
		  &w);
	assert_int_equal(c->n_claims, 1);
	assert_int_equal(w.n, 2);
	assert_string_equal(w.msg[0], F ":4: section 'two': UUID already in section 'one' (" F ":1): skipped");
	assert_string_equal(w.msg[1], F ":8: section 'one': name already in section 'one' (" F ":1): skipped");
	assert_int_equal(c->daxctl[1].state, PMEMRAM_DAXCTL_SKIPPED);
}

/* The sections as status and plan give them. */
static void test_json(void **state)
{
	_cleanup_(pmemram_config_freep) struct pmemram_config *c = NULL;
	struct pmemram_config_errors w;
	struct json_object *a;

	c = parse("[reconfigure-device x]\nnvdimm.uuid = " UUID_A "\nmode = system-ram\n", &w);
	a = pmemram_daxctl_to_json(c);
	assert_non_null(a);
	assert_string_equal(json_object_to_json_string_ext(a, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE),
			    "[{\"origin\":\"" F ":1\",\"section\":\"x\",\"uuid\":\"" UUID_A
			    "\",\"state\":\"claimed\",\"claim\":\"daxctl:x\",\"text\":\"\"}]");
	json_object_put(a);
}

/* daxctl looks a section up by the lower-case UUID uuid_unparse() gives: one in upper case never applies. */
static void test_upper_case_uuid(void **state)
{
	expect_warning("[reconfigure-device x]\nnvdimm.uuid = 6E9B4C6D-1F2A-4C3B-9D8E-0a1b2c3d4e5f\nmode = system-ram\n",
		       F ":2: key 'nvdimm.uuid': '6E9B4C6D-1F2A-4C3B-9D8E-0a1b2c3d4e5f' has upper-case letters: daxctl "
			 "compares it with the lower-case UUID of the device and never applies the section: skipped",
		       PMEMRAM_DAXCTL_SKIPPED);
}

/* daxctl reads a section without a name like any other: its claim is named after FILE and LINE. */
static void test_nameless(void **state)
{
	_cleanup_(pmemram_config_freep) struct pmemram_config *c = NULL;
	struct pmemram_config_errors w;

	c = parse("\n[reconfigure-device]\nnvdimm.uuid = " UUID_A "\nmode = system-ram\n", &w);
	assert_int_equal(w.n, 0);
	assert_int_equal(c->daxctl[0].state, PMEMRAM_DAXCTL_CLAIMED);
	assert_string_equal(c->daxctl[0].name, "a.conf-2");
	assert_string_equal(c->claims[0].name, "daxctl:a.conf-2");
}

/* Only regular files are read, as daxctl selects them (a symlink or a directory named *.conf is not). */
static void test_regular_files(void **state)
{
	_cleanup_(pmemram_config_freep) struct pmemram_config *c = NULL;
	struct pmemram_config_errors w = {};
	char dir[] = "/tmp/daxctl-conf-test.XXXXXX", path[64], target[64];
	int fd;
	FILE *f;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/a.conf", dir);
	f = fopen(path, "we");
	assert_non_null(f);
	fputs("[reconfigure-device a]\nnvdimm.uuid = " UUID_A "\nmode = system-ram\n", f);
	assert_int_equal(fclose(f), 0);
	snprintf(target, sizeof(target), "%s/b.other", dir);
	f = fopen(target, "we");
	assert_non_null(f);
	fputs("[reconfigure-device b]\nnvdimm.uuid = " UUID_B "\nmode = system-ram\n", f);
	assert_int_equal(fclose(f), 0);
	snprintf(path, sizeof(path), "%s/b.conf", dir);
	assert_int_equal(symlink("b.other", path), 0);
	snprintf(path, sizeof(path), "%s/c.conf", dir);
	assert_int_equal(mkdir(path, 0755), 0);

	assert_int_equal(pmemram_config_new(&c), 0);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(pmemram_daxctl_load(c, fd, dir, &w), 0);
	close(fd);
	assert_int_equal(c->n_daxctl, 1);
	assert_string_equal(c->daxctl[0].name, "a");
	assert_int_equal(w.n, 2); /* b.conf and c.conf: not regular files */

	assert_int_equal(rmdir(path), 0);
	snprintf(path, sizeof(path), "%s/b.conf", dir);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(unlink(target), 0);
	snprintf(path, sizeof(path), "%s/a.conf", dir);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),	       cmocka_unit_test(test_booleans),
		cmocka_unit_test(test_malformed),      cmocka_unit_test(test_no_section),
		cmocka_unit_test(test_untranslatable), cmocka_unit_test(test_merge),
		cmocka_unit_test(test_duplicate),      cmocka_unit_test(test_json),
		cmocka_unit_test(test_regular_files),  cmocka_unit_test(test_upper_case_uuid),
		cmocka_unit_test(test_nameless),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
