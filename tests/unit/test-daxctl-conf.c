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
		       F ":1: section 'x': no mode for its UUID (daxctl does nothing without one): skipped",
		       PMEMRAM_DAXCTL_SKIPPED);
	expect_warning("[reconfigure-device x]\nnvdimm.uuid = " UUID_A "\nmode = system-ram\nzone = normal\n",
		       F ":4: key 'zone': not one daxctl reads (nvdimm.uuid, mode, online, movable): ignored",
		       PMEMRAM_DAXCTL_CLAIMED);
	expect_warning("[reconfigure-device x]\nnvdimm.uuid = " UUID_A "\nnvdimm.uuid = " UUID_A
		       "\nmode = system-ram\n",
		       F ":3: key 'nvdimm.uuid': already set at line 2; the later value counts, as for daxctl",
		       PMEMRAM_DAXCTL_CLAIMED);
	/* two UUIDs for one section: daxctl takes the later, but which device was meant is unclear */
	expect_warning("[reconfigure-device x]\nnvdimm.uuid = " UUID_B "\nnvdimm.uuid = " UUID_A
		       "\nmode = system-ram\n",
		       F ":3: key 'nvdimm.uuid': " UUID_A ", but line 2 of the section says " UUID_B
			 ": which device it means is ambiguous: section skipped",
		       PMEMRAM_DAXCTL_SKIPPED);
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
	/* no ']' at the end and no '=': iniparser reads neither a section nor a key */
	assert_string_equal(w.msg[1],
			    F ":3: expected '[section]' or 'key = value', got '[reconfigure-device x' (daxctl "
			      "rejects the whole configuration)");
	assert_int_equal(c->n_daxctl, 0);
	assert_int_equal(c->n_claims, 0);
}

/* iniparser's list of sections leaves out names with ':': daxctl never reads such a section. */
static void test_colon_section(void **state)
{
	_cleanup_(pmemram_config_freep) struct pmemram_config *c = NULL;
	struct pmemram_config_errors w;

	c = parse("[reconfigure-device a:b]\nnvdimm.uuid = " UUID_A "\nmode = system-ram\n", &w);
	assert_int_equal(w.n, 1);
	assert_string_equal(w.msg[0], F ":1: section '[reconfigure-device a:b]' has ':' in its name, and daxctl's ini "
					"parser never lists such a section: ignored");
	assert_int_equal(c->n_daxctl, 0);
	assert_int_equal(c->n_claims, 0);
}

/* Lines that begin with '[' as iniparser reads them: a section header needs ']' at the end and
 * takes the name up to the first ']'; "[]" names none and keeps the section before open; "[x = y"
 * is a key of the current section. */
static void test_header_forms(void **state)
{
	_cleanup_(pmemram_config_freep) struct pmemram_config *c = NULL;
	struct pmemram_config_errors w;

	expect_warning("[reconfigure-device x]\nnvdimm.uuid = " UUID_A "\n[]\nmode = system-ram\n",
		       F ":3: '[]' names no section: daxctl's ini parser keeps the section before it open, and so "
			 "does pmemram",
		       PMEMRAM_DAXCTL_CLAIMED);
	expect_warning("[reconfigure-device x]\nnvdimm.uuid = " UUID_A "\n[x = y\nmode = system-ram\n",
		       F ":3: key '[x': not one daxctl reads (nvdimm.uuid, mode, online, movable): ignored",
		       PMEMRAM_DAXCTL_CLAIMED);

	c = parse("[reconfigure-device a]x]\nnvdimm.uuid = " UUID_A "\nmode = system-ram\n", &w);
	assert_int_equal(w.n, 0);
	assert_int_equal(c->n_claims, 1);
	assert_string_equal(c->claims[0].name, "daxctl:a");
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
	/* a second section of the file for a UUID: daxctl never reads it */
	assert_int_equal(c->daxctl[2].state, PMEMRAM_DAXCTL_SKIPPED);
	assert_int_equal(w.n, 1);
	assert_string_equal(w.msg[0],
			    F ":8: section 'again': daxctl reads only the first section of a file for a UUID, "
			      "'same' (" F ":1): skipped");
}

/* Two sections of a file for one UUID: daxctl reads the first alone, even for a key only the second
 * has; a section name given again in a file is the same section, as iniparser reads it. */
static void test_duplicate(void **state)
{
	_cleanup_(pmemram_config_freep) struct pmemram_config *c = NULL;
	struct pmemram_config_errors w;

	c = parse("[reconfigure-device one]\nnvdimm.uuid = " UUID_A "\nmode = system-ram\n"
		  "[reconfigure-device two]\nnvdimm.uuid = " UUID_A "\nmode = system-ram\nmovable = false\n"
		  "[Reconfigure-Device ONE]\nmovable = false\n",
		  &w);
	assert_int_equal(c->n_daxctl, 2);
	assert_int_equal(c->n_claims, 1);
	assert_int_equal(w.n, 2);
	assert_string_equal(w.msg[0],
			    F ":8: section '[reconfigure-device one]' again: its keys join those of line 1, as "
			      "daxctl's ini parser reads it");
	assert_string_equal(w.msg[1], F ":4: section 'two': daxctl reads only the first section of a file for a UUID, "
					"'one' (" F ":1): skipped");
	assert_int_equal(c->daxctl[1].state, PMEMRAM_DAXCTL_SKIPPED);
	/* movable = false from the reopened 'one' (line 9), not from 'two' */
	assert_int_equal(c->claims[0].zone, PMEMRAM_ZONE_NORMAL);
	assert_int_equal(c->claims[0].zone_set.line, 9);
}

/* A reopened section with another UUID: ambiguous, skipped, naming both lines.  To daxctl it is
 * the first section of the file for the later UUID, so a later section for that one is not read. */
static void test_reopened_uuid(void **state)
{
	_cleanup_(pmemram_config_freep) struct pmemram_config *c = NULL;
	struct pmemram_config_errors w;

	c = parse("[reconfigure-device x]\nnvdimm.uuid = " UUID_A "\nmode = system-ram\n"
		  "[reconfigure-device y]\nnvdimm.uuid = " UUID_B "\nmode = system-ram\n"
		  "[reconfigure-device x]\nnvdimm.uuid = " UUID_B "\n",
		  &w);
	assert_int_equal(c->n_claims, 0);
	assert_int_equal(w.n, 3);
	assert_string_equal(w.msg[0], F ":7: section '[reconfigure-device x]' again: its keys join those of line 1, as "
					"daxctl's ini parser reads it");
	assert_string_equal(w.msg[1], F ":8: key 'nvdimm.uuid': " UUID_B ", but line 2 of the section says " UUID_A
					": which device it means is ambiguous: section skipped");
	assert_string_equal(w.msg[2], F ":4: section 'y': daxctl reads only the first section of a file for a UUID, "
					"'x' (" F ":1): skipped");
	assert_int_equal(c->daxctl[0].state, PMEMRAM_DAXCTL_SKIPPED);
	assert_string_equal(c->daxctl[0].text, "two different nvdimm.uuid (lines 2 and 8)");
	assert_int_equal(c->daxctl[1].state, PMEMRAM_DAXCTL_SKIPPED);
}

/* Lines ending in '\\' go on on the next one, comments too; one at the end of the file is dropped. */
static void test_continued_lines(void **state)
{
	_cleanup_(pmemram_config_freep) struct pmemram_config *c = NULL;
	struct pmemram_config_errors w;

	c = parse("[reconfigure-device x]\nnvdimm.uuid = " UUID_A "\nmode = system-\\  \nram\n"
		  "# not movable: \\\nmovable = false\n"
		  "online = \\",
		  &w);
	assert_int_equal(w.n, 1);
	assert_string_equal(w.msg[0], F ":7: the file ends in a line continued with '\\': daxctl drops it, and so "
					"does pmemram");
	assert_int_equal(c->n_claims, 1);
	assert_string_equal(c->claims[0].name, "daxctl:x");
	assert_int_equal(c->claims[0].zone, PMEMRAM_ZONE_MOVABLE); /* movable = false was part of a comment */

	/* a warning names the first line of the joined ones */
	c = pmemram_config_free(c);
	c = parse("[reconfigure-device x]\nnvdimm.uuid = " UUID_A "\nmode = \\\nram\n", &w);
	assert_int_equal(w.n, 1);
	assert_string_equal(w.msg[0],
			    F ":3: key 'mode': expected 'system-ram' or 'devdax', got 'ram' (daxctl refuses it "
			      "too): section skipped");
}

#define F10 "/etc/daxctl.conf.d/10-a.conf"
#define F20 "/etc/daxctl.conf.d/20-b.conf"

/* Two files parsed in lexical order, as pmemram_daxctl_load() reads them, then merged. */
static struct pmemram_config *parse2(const char *a, const char *b, struct pmemram_config_errors *w)
{
	struct pmemram_config *c;

	*w = (struct pmemram_config_errors){};
	assert_int_equal(pmemram_config_new(&c), 0);
	assert_int_equal(pmemram_daxctl_parse(c, F10, a, strlen(a), w), 0);
	assert_int_equal(pmemram_daxctl_parse(c, F20, b, strlen(b), w), 0);
	assert_int_equal(pmemram_daxctl_merge(c, w), 0);
	return c;
}

/* One UUID in two files: daxctl joins their values; names of sections do not matter to it. */
static void test_files_join(void **state)
{
	_cleanup_(pmemram_config_freep) struct pmemram_config *c = NULL;
	struct pmemram_config_errors w;
	char where[128];

	c = parse2("[reconfigure-device fast]\nnvdimm.uuid = " UUID_A "\nmode = system-ram\n",
		   "[reconfigure-device other]\nnvdimm.uuid = " UUID_A "\nmovable = false\n", &w);
	assert_int_equal(w.n, 0);
	assert_int_equal(c->n_claims, 1);
	assert_string_equal(c->claims[0].name, "daxctl:fast");
	assert_int_equal(c->claims[0].zone, PMEMRAM_ZONE_NORMAL);
	assert_string_equal(pmemram_config_origin_to_string(c, c->claims[0].zone_set, where, sizeof(where)), F20 ":3");
	assert_int_equal(c->daxctl[0].state, PMEMRAM_DAXCTL_CLAIMED);
	assert_int_equal(c->daxctl[1].state, PMEMRAM_DAXCTL_MERGED);
	assert_string_equal(c->daxctl[1].claim, "daxctl:fast");
	assert_string_equal(c->daxctl[1].text,
			    "its keys join section 'fast' (" F10 ":1): daxctl joins every file's values for a UUID");
}

/* Files a (as 10-a.conf) and b (as 20-b.conf) make no claim, with n warnings, the first one first
 * (unless NULL) and the last one last. */
static struct pmemram_config *expect_no_claim(const char *a, const char *b, size_t n, const char *first,
					      const char *last)
{
	struct pmemram_config *c;
	struct pmemram_config_errors w;

	c = parse2(a, b, &w);
	assert_int_equal(c->n_claims, 0);
	assert_int_equal(w.n, n);
	if (first)
		assert_string_equal(w.msg[0], first);
	assert_string_equal(w.msg[n - 1], last);
	return c;
}

/* mode for one UUID in two files: daxctl joins them ("system-ram system-ram") and refuses that;
 * the warnings come in daxctl's order, 20-b.conf first. */
static void test_files_mode_twice(void **state)
{
	_cleanup_(pmemram_config_freep) struct pmemram_config *c = NULL;

	c = expect_no_claim("[reconfigure-device a]\nnvdimm.uuid = " UUID_A "\nmode = system-ram\n",
			    "[reconfigure-device b]\n\nnvdimm.uuid = " UUID_A "\nmode = system-ram\n", 2,
			    F20 ":1: section 'b': mode for its UUID is set at " F20 ":4 and at " F10
				":3: daxctl joins the files' values and accepts neither: skipped",
			    F10 ":1: section 'a': mode for its UUID is set at " F20 ":4 and at " F10
				":3: daxctl joins the files' values and accepts neither: skipped");
	assert_int_equal(c->daxctl[0].state, PMEMRAM_DAXCTL_SKIPPED);
	assert_int_equal(c->daxctl[1].state, PMEMRAM_DAXCTL_SKIPPED);
}

/* movable in two files: the first character of the joined values counts, that of the file daxctl
 * reads first, the one whose name sorts last; an invalid value read first hides a valid one, so
 * the default (true) holds. */
static void test_files_bool_order(void **state)
{
	static const struct {
		const char *a, *b;
		enum pmemram_zone zone;
		size_t n;
	} cases[] = {
		{ "movable = true\n", "movable = no\n", PMEMRAM_ZONE_NORMAL, 1 },
		{ "movable = false\n", "movable = maybe\n", PMEMRAM_ZONE_MOVABLE, 2 },
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		_cleanup_(pmemram_config_freep) struct pmemram_config *c = NULL;
		struct pmemram_config_errors w;
		char a[256], b[256];

		snprintf(a, sizeof(a), "[reconfigure-device a]\nnvdimm.uuid = " UUID_A "\nmode = system-ram\n%s",
			 cases[i].a);
		snprintf(b, sizeof(b), "[reconfigure-device b]\nnvdimm.uuid = " UUID_A "\n%s", cases[i].b);
		c = parse2(a, b, &w);
		assert_int_equal(c->n_claims, 1);
		assert_int_equal(c->claims[0].zone, cases[i].zone);
		assert_int_equal(w.n, cases[i].n);
		assert_string_equal(w.msg[w.n - 1], F10 ":4: key 'movable': also set for UUID " UUID_A " at " F20
							":3, which daxctl reads first (last file name first) and whose "
							"value counts: this one is ignored");
	}
}

/* One section name in two files for two UUIDs: two sections to daxctl, two claims. */
static void test_files_same_name(void **state)
{
	_cleanup_(pmemram_config_freep) struct pmemram_config *c = NULL;
	struct pmemram_config_errors w;

	c = parse2("[reconfigure-device fast]\nnvdimm.uuid = " UUID_A "\nmode = system-ram\n",
		   "\n[reconfigure-device fast]\nnvdimm.uuid = " UUID_B "\nmode = system-ram\n", &w);
	assert_int_equal(c->n_claims, 2);
	assert_string_equal(c->claims[0].name, "daxctl:fast");
	assert_string_equal(c->claims[1].name, "daxctl:fast-20-b.conf-2");
	assert_int_equal(w.n, 1);
	assert_string_equal(w.msg[0], F20 ":2: section 'fast': the name is also that of the section at " F10
					  ":1, for another UUID; daxctl applies both, and this one's claim is named "
					  "'daxctl:fast-20-b.conf-2'");
}

/* A bad section for a UUID spoils the others for it: daxctl would join their keys.  A line daxctl
 * cannot parse in one file: daxctl stops with an error, so no file's section is used. */
static void test_files_refused(void **state)
{
	_cleanup_(pmemram_config_freep) struct pmemram_config *c = NULL;

	pmemram_config_free(expect_no_claim(
		"[reconfigure-device a]\nnvdimm.uuid = " UUID_A "\nmode = system-ram\n",
		"[reconfigure-device b]\nnvdimm.uuid = " UUID_A "\nonline = yes\nmode = ram\n", 2, NULL,
		F10 ":1: section 'a': section 'b' (" F20
		    ":1) for the same UUID is skipped, and daxctl would join its keys with this one's: skipped"));

	c = expect_no_claim("[reconfigure-device a]\nnvdimm.uuid = " UUID_A "\nmode = system-ram\n",
			    "[reconfigure-device b]\nnvdimm.uuid = " UUID_B "\nmode system-ram\n", 1, NULL,
			    F20 ":3: expected '[section]' or 'key = value', got 'mode system-ram' (daxctl rejects the "
				"whole configuration)");
	assert_int_equal(c->daxctl[0].state, PMEMRAM_DAXCTL_SKIPPED);
	assert_string_equal(c->daxctl[0].text, "daxctl cannot read " F20 ":3, and then applies no section");
	assert_int_equal(c->daxctl[1].state, PMEMRAM_DAXCTL_SKIPPED);
}

/* text + '\n' parsed as F20 after a good F10: whether its sections are used. */
static bool second_file_read(const char *text, const char *expected_warning)
{
	_cleanup_(pmemram_config_freep) struct pmemram_config *c = NULL;
	struct pmemram_config_errors w;

	c = parse2("[reconfigure-device a]\nnvdimm.uuid = " UUID_A "\nmode = system-ram\n", text, &w);
	if (expected_warning) {
		assert_int_equal(w.n, 1);
		assert_string_equal(w.msg[0], expected_warning);
	} else
		assert_int_equal(w.n, 0);
	return c->n_claims == 1;
}

/* A line of n bytes ("#xxx"), continued ('\\' and a newline after the first k) when k > 0, then end. */
static char *long_line(size_t n, size_t k, const char *end)
{
	char *l = malloc(n + 2 + strlen(end) + 1);

	assert_non_null(l);
	memset(l, 'x', n + 2);
	l[0] = '#';
	if (k > 0)
		memcpy(l + k, "\\\n", 2);
	strcpy(l + n + (k > 0 ? 2 : 0), end);
	return l;
}

/* What pmemram cannot read as daxctl would: a line longer than iniparser's 1022 bytes (continued
 * lines joined, the '\\' not counted; the last line without a newline too), a file larger than
 * pmemram reads.  Either way daxctl would change no device, so no section counts. */
static void test_files_too_long(void **state)
{
	_cleanup_(freep) char *big = NULL;
	_cleanup_(pmemram_config_freep) struct pmemram_config *c = NULL;
	const char *ok = "[reconfigure-device a]\nnvdimm.uuid = " UUID_A "\nmode = system-ram\n";
	struct {
		size_t n, k;
		const char *end;
		unsigned line; /* of the warning, 0: none, the line is read */
	} cases[] = {
		{ 1022, 0, "\n", 0 },	{ 1023, 0, "\n", 1 },	{ 1022, 0, "", 0 },	{ 1023, 0, "", 1 },
		{ 1022, 600, "\n", 0 }, { 1023, 600, "\n", 2 }, { 1021, 0, "  \n", 1 }, /* blanks before the newline count */
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		_cleanup_(freep) char *l = long_line(cases[i].n, cases[i].k, cases[i].end), *msg = NULL;

		assert_true(asprintf(&msg,
				     F20
				     ":%u: line longer than 1022 bytes (continued lines joined), more than daxctl's "
				     "ini parser reads",
				     cases[i].line) >= 0);
		if (second_file_read(l, cases[i].line ? msg : NULL) != !cases[i].line)
			fail_msg("case %zu: %zu bytes, continued after %zu", i, cases[i].n, cases[i].k);
	}

	big = malloc(PMEMRAM_CONFIG_MAX_FILE_SIZE + 2);
	assert_non_null(big);
	memset(big, '\n', PMEMRAM_CONFIG_MAX_FILE_SIZE + 1);
	big[PMEMRAM_CONFIG_MAX_FILE_SIZE + 1] = '\0';
	c = expect_no_claim(ok, big, 1, NULL,
			    F20 ": larger than 65536 bytes: not read, and no section of daxctl.conf.d is used");
	assert_string_equal(c->daxctl[0].text, "daxctl cannot read " F20 ", and then applies no section");
}

/* More sections than pmemram keeps (here over two files): dropping the rest would change what
 * daxctl joins and refuses, so none is used, with a warning where the limit was passed. */
static void test_files_too_many(void **state)
{
	_cleanup_(pmemram_config_freep) struct pmemram_config *c = NULL;
	_cleanup_(freep) char *a = NULL, *b = NULL;
	struct pmemram_config_errors w;
	char *texts[2] = {};
	size_t counts[2] = { 40, PMEMRAM_DAXCTL_MAX_SECTIONS - 40 + 1 };

	for (size_t f = 0, n = 0; f < 2; f++)
		for (size_t i = 0; i < counts[f]; i++, n++) {
			char *t;

			assert_true(
				asprintf(&t,
					 "%s[reconfigure-device s%zu]\nnvdimm.uuid = %08zx-0000-4000-8000-000000000000\n"
					 "mode = system-ram\n",
					 texts[f] ?: "", n, n) >= 0);
			free(texts[f]);
			texts[f] = t;
		}
	a = texts[0];
	b = texts[1];

	c = parse2(a, b, &w);
	assert_int_equal(w.n, 1);
	assert_string_equal(w.msg[0],
			    F20 ":73: more than 64 [reconfigure-device] sections: no section of daxctl.conf.d is used");
	assert_int_equal(c->n_daxctl, PMEMRAM_DAXCTL_MAX_SECTIONS);
	assert_int_equal(c->n_claims, 0);
	for (size_t i = 0; i < c->n_daxctl; i++)
		assert_int_equal(c->daxctl[i].state, PMEMRAM_DAXCTL_SKIPPED);
	assert_string_equal(c->daxctl[0].text,
			    F20 ":73 has a section past the 64 pmemram reads, and then none is applied");
	c = pmemram_config_free(c);

	/* exactly the limit: all used */
	b[strlen(b) - strlen("[reconfigure-device s64]\nnvdimm.uuid = 00000040-0000-4000-8000-000000000000\nmode = "
			     "system-ram\n")] = '\0';
	c = parse2(a, b, &w);
	assert_int_equal(w.n, 0);
	assert_int_equal(c->n_claims, PMEMRAM_DAXCTL_MAX_SECTIONS);
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

/* daxctl reads only what readdir() types regular, before looking at the name: a symlink whose
 * name cannot be shown and a directory are warned about, neither counts toward the 128 files nor
 * makes the directory unreadable. */
static void test_regular_files_first(void **state)
{
	_cleanup_(pmemram_config_freep) struct pmemram_config *c = NULL;
	struct pmemram_config_errors w = {};
	char dir[] = "/tmp/daxctl-conf-test.XXXXXX", name[32], msg[PMEMRAM_CONFIG_ERROR_MAX];
	int fd;

	assert_non_null(mkdtemp(dir));
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);
	for (int i = 0; i < PMEMRAM_CONFIG_MAX_DROPINS; i++) {
		int f;

		snprintf(name, sizeof(name), "%03d.conf", i);
		f = openat(fd, name, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		assert_true(f >= 0);
		if (i == 0) {
			const char *t = "[reconfigure-device a]\nnvdimm.uuid = " UUID_A "\nmode = system-ram\n";

			assert_int_equal(write(f, t, strlen(t)), (ssize_t)strlen(t));
		}
		close(f);
	}
	assert_int_equal(symlinkat("000.conf", fd, "\033.conf"), 0);
	assert_int_equal(mkdirat(fd, "dir.conf", 0755), 0);

	assert_int_equal(pmemram_config_new(&c), 0);
	assert_int_equal(pmemram_daxctl_load(c, fd, dir, &w), 0);
	assert_int_equal(c->daxctl_unreadable.file, -1);
	assert_int_equal(c->n_claims, 1);
	assert_int_equal(w.n, 2);
	snprintf(msg, sizeof(msg), "%s/\\x1b.conf: not a regular file: daxctl does not read it either", dir);
	assert_true(streq(w.msg[0], msg) || streq(w.msg[1], msg));
	snprintf(msg, sizeof(msg), "%s/dir.conf: not a regular file: daxctl does not read it either", dir);
	assert_true(streq(w.msg[0], msg) || streq(w.msg[1], msg));

	assert_int_equal(unlinkat(fd, "\033.conf", 0), 0);
	assert_int_equal(unlinkat(fd, "dir.conf", AT_REMOVEDIR), 0);
	for (int i = 0; i < PMEMRAM_CONFIG_MAX_DROPINS; i++) {
		snprintf(name, sizeof(name), "%03d.conf", i);
		assert_int_equal(unlinkat(fd, name, 0), 0);
	}
	close(fd);
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_booleans),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_no_section),
		cmocka_unit_test(test_untranslatable),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_duplicate),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_regular_files),
		cmocka_unit_test(test_regular_files_first),
		cmocka_unit_test(test_upper_case_uuid),
		cmocka_unit_test(test_nameless),
		cmocka_unit_test(test_reopened_uuid),
		cmocka_unit_test(test_continued_lines),
		cmocka_unit_test(test_files_join),
		cmocka_unit_test(test_files_mode_twice),
		cmocka_unit_test(test_files_bool_order),
		cmocka_unit_test(test_files_same_name),
		cmocka_unit_test(test_files_refused),
		cmocka_unit_test(test_files_too_long),
		cmocka_unit_test(test_files_too_many),
		cmocka_unit_test(test_colon_section),
		cmocka_unit_test(test_header_forms),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
