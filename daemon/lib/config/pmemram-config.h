/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Configuration of pmemramd: pmemram.conf plus pmemram.conf.d drop-ins, parsed from strings or a directory fd. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "pmemram.h"

/* Every user-controllable resource has a limit (see pmemram.conf(5)). */
#define PMEMRAM_CONFIG_MAX_LINE 1024	      /* bytes per line, without the newline */
#define PMEMRAM_CONFIG_MAX_FILE_SIZE 65536    /* bytes per file */
#define PMEMRAM_CONFIG_MAX_DROPINS 128	      /* *.conf files in pmemram.conf.d */
#define PMEMRAM_CONFIG_MAX_CLAIMS 256	      /* claims over all files */
#define PMEMRAM_CONFIG_MAX_CLASSES 64	      /* classes over all files: each is a slice */
#define PMEMRAM_CONFIG_MAX_ERRORS 16	      /* messages kept; later ones are only counted */
#define PMEMRAM_CONFIG_NAME_MAX 64	      /* claim name, with the NUL */
#define PMEMRAM_CONFIG_ERROR_MAX 256	      /* one message, with the NUL */
#define PMEMRAM_UUID_STRING_MAX 37	      /* 8-4-4-4-12 hex digits and the NUL */

/* The configuration directory, unless $PMEMRAM_CONFIG_DIR or an option says otherwise. */
#define PMEMRAM_CONFIG_DIR_DEFAULT "/etc/pmemram"
#define PMEMRAM_CONFIG_DIR_ENV "PMEMRAM_CONFIG_DIR"

/* Names relative to the configuration directory (/etc/pmemram). */
#define PMEMRAM_CONFIG_MAIN "pmemram.conf"
#define PMEMRAM_CONFIG_DROPIN_DIR "pmemram.conf.d"

/* daxctl's persistent configuration, read as claims unless [global] daxctl-conf = no. */
#define PMEMRAM_DAXCTL_CONFIG_DIR_DEFAULT "/etc/daxctl.conf.d"
#define PMEMRAM_DAXCTL_CONFIG_DIR_ENV "PMEMRAM_DAXCTL_CONFIG_DIR"
#define PMEMRAM_DAXCTL_MAX_SECTIONS 64	      /* [reconfigure-device NAME] sections over all files */
#define PMEMRAM_DAXCTL_CLAIM_PREFIX "daxctl:" /* a claim made from a section is named daxctl:NAME */

enum pmemram_config_shuffle {
	PMEMRAM_CONFIG_SHUFFLE_AUTO, /* whatever the kernel decided (HMAT autodetection) */
	PMEMRAM_CONFIG_SHUFFLE_ON,
	PMEMRAM_CONFIG_SHUFFLE_OFF,
	PMEMRAM_CONFIG_SHUFFLE_NODES, /* shuffle-nodes = LIST: those nodes, no others (not a value of shuffle) */
	_PMEMRAM_CONFIG_SHUFFLE_MAX,
};

/* What the kernel does with hot-added memory from the next boot on: the key hotplug-policy, kept on the
 * kernel command line (memhp_default_state, memory_hotplug.online_policy) by pmemramctl hotplug apply. */
enum pmemram_config_hotplug {
	PMEMRAM_CONFIG_HOTPLUG_KEEP,	     /* pmemram writes nothing: the kernel's or the administrator's */
	PMEMRAM_CONFIG_HOTPLUG_OFFLINE,	     /* added offline: only claims online memory */
	PMEMRAM_CONFIG_HOTPLUG_MOVABLE,	     /* onlined by the kernel, always ZONE_MOVABLE */
	PMEMRAM_CONFIG_HOTPLUG_AUTO_MOVABLE, /* onlined by the kernel, movable within its auto-movable ratio */
	_PMEMRAM_CONFIG_HOTPLUG_MAX,
};

/* Whether pmemramd writes a kernel switch, and what: demotion (/sys/kernel/mm/numa/demotion_enabled)
 * and promotion (kernel.numa_balancing's memory-tiering bit). */
enum pmemram_config_switch {
	PMEMRAM_CONFIG_SWITCH_KEEP, /* leave whatever the kernel or the administrator set */
	PMEMRAM_CONFIG_SWITCH_ON,
	PMEMRAM_CONFIG_SWITCH_OFF,
	_PMEMRAM_CONFIG_SWITCH_MAX,
};

/* What a claim matches, most specific first: a device matched by several claims takes the first kind. */
enum pmemram_match {
	PMEMRAM_MATCH_UUID,	  /* namespace UUID, lower case */
	PMEMRAM_MATCH_DEVICE,	  /* dax device name, "dax0.0" */
	PMEMRAM_MATCH_HMEM_RANGE, /* soft-reserved (hmem) device inside a physical range */
	PMEMRAM_MATCH_REGION,	  /* region name, "region0" */
	PMEMRAM_MATCH_CXL_REGION, /* CXL region name, "region0" (of bus/cxl, not bus/nd) */
	PMEMRAM_MATCH_CXL_MEMDEV, /* CXL memdev serial number, "0x5eed0001" (lower-case hex) */
	PMEMRAM_MATCH_HMEM_NODE,  /* soft-reserved (hmem) device by target node */
	PMEMRAM_MATCH_ALL_DEVDAX, /* every dax device */
	_PMEMRAM_MATCH_MAX,
};

/* create-region: which CXL region a cxl-memdev claim makes of its memdev when it is in none. */
enum pmemram_region_kind {
	PMEMRAM_REGION_NONE, /* none: the claim takes a region someone made */
	PMEMRAM_REGION_PMEM, /* its pmem capacity, for create = devdax's namespace */
	PMEMRAM_REGION_RAM,  /* its volatile capacity: the region's dax device is the memory */
	_PMEMRAM_REGION_KIND_MAX,
};

/* "no", "pmem", "ram". */
const char *pmemram_region_kind_to_string(enum pmemram_region_kind k);

/* Where a setting came from: index into pmemram_config.files and line; file -1 when never set. */
struct pmemram_config_origin {
	int file;
	unsigned line;
};

struct pmemram_claim {
	char name[PMEMRAM_CONFIG_NAME_MAX];
	enum pmemram_match match;
	char match_value[PMEMRAM_CONFIG_NAME_MAX]; /* "" for all-devdax; hmem: "0xSTART-0xEND", "node=N" */
	uint64_t range_start, range_end;	   /* PMEMRAM_MATCH_HMEM_RANGE: inclusive, as /proc/iomem */
	int node;				   /* PMEMRAM_MATCH_HMEM_NODE */
	enum pmemram_zone zone;			   /* PMEMRAM_ZONE_MOVABLE (default) or _NORMAL */
	bool convert;				   /* may turn a raw/fsdax namespace into devdax */
	bool create;				/* create = devdax: a devdax namespace over the region's free space */
	enum pmemram_region_kind create_region; /* create-region = pmem or ram: the memdev's region */
	bool from_daxctl; /* made from a daxctl.conf.d section: any claim of pmemram's own wins over it */
	struct pmemram_config_origin defined, match_set, zone_set, convert_set, create_set, create_region_set;
};

/* What became of a [reconfigure-device NAME] section of daxctl.conf.d. */
enum pmemram_daxctl_state {
	PMEMRAM_DAXCTL_CLAIMED,	  /* a claim of its own, named daxctl:NAME */
	PMEMRAM_DAXCTL_REDUNDANT, /* a pmemram claim for the same UUID says the same: that one is used */
	PMEMRAM_DAXCTL_CONFLICT,  /* a pmemram claim for the same UUID disagrees: that one is used */
	PMEMRAM_DAXCTL_SKIPPED,	  /* not used: text says why (a warning was given, but for mode = devdax,
				   * which is not a claim: pmemramd logs it at info) */
	PMEMRAM_DAXCTL_MERGED,	  /* another file's section for the same UUID: its keys joined the
				   * section whose mode counts, which claim names */
	_PMEMRAM_DAXCTL_STATE_MAX,
};

struct pmemram_daxctl_section {
	char name[PMEMRAM_CONFIG_NAME_MAX]; /* after "reconfigure-device ", made safe to print */
	char uuid[PMEMRAM_UUID_STRING_MAX]; /* nvdimm.uuid, lower case; "" when missing or invalid */
	bool system_ram;		    /* mode = system-ram (for its UUID, once merged) */
	bool online;			    /* online = (default true; for its UUID, once merged) */
	bool movable;			    /* movable = (default true; for its UUID, once merged) */
	/* The first character of online and movable as written, '\0' when unset or empty: daxctl
	 * joins the values of every file and reads the first character of the result. */
	char online_first, movable_first;
	struct pmemram_config_origin defined, uuid_set, mode_set, online_set, movable_set;
	bool invalid; /* skipped with a warning: a key malformed, or refused with its UUID's other sections */
	enum pmemram_daxctl_state state;
	char claim[PMEMRAM_CONFIG_NAME_MAX]; /* the claim it became, agrees or conflicts with */
	char text[PMEMRAM_CONFIG_ERROR_MAX]; /* why it was skipped, what the conflict is */
};

/* Which nodes a tiering class's memory comes from; resolved against the machine by
 * pmemram_class_resolve() (pmemram-class.h), each time, so a class follows hotplug. */
enum pmemram_class_nodes {
	PMEMRAM_CLASS_NODES_DRAM,
	PMEMRAM_CLASS_NODES_PMEM,
	PMEMRAM_CLASS_NODES_ALL,
	PMEMRAM_CLASS_NODES_LOWEST_LATENCY,
	PMEMRAM_CLASS_NODES_HIGHEST_BANDWIDTH,
	PMEMRAM_CLASS_NODES_LIST, /* the nodes in pmemram_class.list */
	_PMEMRAM_CLASS_NODES_MAX,
};

/* The memory policy `pmemramctl run` gives a process of the class; the slice only restricts the nodes. */
enum pmemram_class_mode {
	PMEMRAM_CLASS_BIND,
	PMEMRAM_CLASS_PREFERRED,
	PMEMRAM_CLASS_INTERLEAVE,
	PMEMRAM_CLASS_WEIGHTED_INTERLEAVE, /* Linux 6.9: weights per node, written by pmemramd */
	_PMEMRAM_CLASS_MODE_MAX,
};

/* weights = hmat | NODE:WEIGHT,...: for mode = weighted-interleave. */
#define PMEMRAM_CLASS_WEIGHTS_MAX 16 /* NODE:WEIGHT pairs */
#define PMEMRAM_CLASS_WEIGHT_MAX 255 /* the kernel's u8 */

struct pmemram_class_weight {
	unsigned node;
	unsigned weight; /* 1 to PMEMRAM_CLASS_WEIGHT_MAX */
};

/* The name becomes the slice pmemram-NAME.slice: letters, digits and '_' only, since '-' in a
 * slice name means nesting and '.' ends it. */
#define PMEMRAM_CLASS_NAME_MAX 32 /* with the NUL */

struct pmemram_class {
	char name[PMEMRAM_CLASS_NAME_MAX];
	enum pmemram_class_nodes nodes;
	struct pmemram_nodemask list; /* PMEMRAM_CLASS_NODES_LIST */
	char nodes_text[64];	      /* the value as written, for messages and status */
	enum pmemram_class_mode mode; /* PMEMRAM_CLASS_BIND by default */
	uint64_t protect;	      /* bytes of the slice's memory protected from reclaim, 0 none */
	/* weights: from each node's HMAT read bandwidth (the default), or the list */
	bool weights_hmat;
	size_t n_weights;
	struct pmemram_class_weight weights[PMEMRAM_CLASS_WEIGHTS_MAX];
	struct pmemram_config_origin defined, nodes_set, mode_set, protect_set, weights_set;
};

struct pmemram_config {
	enum pmemram_config_shuffle shuffle; /* the key shuffle: auto, on or off */
	struct pmemram_config_origin shuffle_set;
	struct pmemram_nodemask shuffle_nodes; /* the key shuffle-nodes, when shuffle_nodes_set */
	struct pmemram_config_origin shuffle_nodes_set;
	enum pmemram_config_hotplug hotplug; /* the key hotplug-policy */
	struct pmemram_config_origin hotplug_set;
	enum pmemram_config_switch demotion;
	struct pmemram_config_origin demotion_set;
	/* kernel.numa_balancing's memory-tiering bit (promotion of hot pages to the top tier) */
	enum pmemram_config_switch promotion;
	struct pmemram_config_origin promotion_set;
	uint64_t promotion_rate; /* MB/s for numa_balancing_promote_rate_limit_MBps, 0 unset */
	struct pmemram_config_origin promotion_rate_set;
	bool online_at_bind; /* the kernel onlines a claimed device's blocks during its kmem bind */
	struct pmemram_config_origin online_at_bind_set;
	size_t n_claims;
	struct pmemram_claim *claims; /* in order of first definition */
	size_t n_classes;
	struct pmemram_class *classes; /* in order of first definition */
	bool daxctl_conf;	       /* read daxctl.conf.d (default yes) */
	struct pmemram_config_origin daxctl_conf_set;
	size_t n_daxctl;
	struct pmemram_daxctl_section *daxctl; /* in the order read */
	/* A daxctl file pmemram cannot read as daxctl would (line 0: the whole file), file -1 when
	 * none: daxctl would then fail for every device, so no section is used. */
	struct pmemram_config_origin daxctl_unreadable;
	bool daxctl_too_many; /* daxctl_unreadable is where PMEMRAM_DAXCTL_MAX_SECTIONS was passed */
	size_t n_files;
	char **files; /* names of the files read, as used in messages */
};

/* Messages "FILE:LINE: key 'K': ..." of a failed parse or load. */
struct pmemram_config_errors {
	size_t n;	  /* messages kept in msg[] */
	size_t n_dropped; /* further errors past PMEMRAM_CONFIG_MAX_ERRORS */
	char msg[PMEMRAM_CONFIG_MAX_ERRORS][PMEMRAM_CONFIG_ERROR_MAX];
};

/* Append "FILE:LINE: message" ("FILE: message" for line 0); past the limit only n_dropped grows. */
void pmemram_config_errors_add(struct pmemram_config_errors *errors, const char *file, unsigned line,
			       const char *format, ...) __attribute__((format(printf, 4, 5)));

int pmemram_config_new(struct pmemram_config **ret);
struct pmemram_config *pmemram_config_free(struct pmemram_config *c);

/* Apply one file's text (size bytes, need not be NUL-terminated) on top of c; filename is used in
 * messages.  -EINVAL with messages appended to errors when malformed; c is then only fit to free. */
int pmemram_config_parse(struct pmemram_config *c, const char *filename, const char *text, size_t size,
			 struct pmemram_config_errors *errors);
/* Checks that need every file: each claim has a match, no match value is claimed twice,
 * convert = yes only with a uuid match; each class has nodes.  -EINVAL with messages appended to errors. */
int pmemram_config_verify(const struct pmemram_config *c, struct pmemram_config_errors *errors);

/* Read PMEMRAM_CONFIG_MAIN then PMEMRAM_CONFIG_DROPIN_DIR/ *.conf in lexical order below dir_fd,
 * and verify.  0 and *ret on success; -ENOENT when there is neither a main file nor a drop-in
 * ("no configuration": claim nothing); -EINVAL when malformed, other -errno when unreadable,
 * both with messages in errors.  *ret is untouched on failure. */
int pmemram_config_load(int dir_fd, struct pmemram_config **ret, struct pmemram_config_errors *errors);
/* pmemram_config_load() as if the file name (PMEMRAM_CONFIG_MAIN or PMEMRAM_CONFIG_DROPIN_DIR/X.conf)
 * held what source (a path below dir_fd) holds, whether or not name exists; with source NULL, as if
 * name did not exist.  Messages name name, never source.  For checking an edit before making it:
 * write source as a hidden file (the loader skips dot-files), check, then rename it to name.
 * -EINVAL without messages when name is not a name the loader reads; a missing source is -EINVAL
 * with a message ("NAME: cannot read: No such file or directory"), never -ENOENT. */
int pmemram_config_load_swapped(int dir_fd, const char *name, const char *source, struct pmemram_config **ret,
				struct pmemram_config_errors *errors);

/* For the parsers: s without leading and trailing blanks (in place); c->files with filename
 * appended, its index or -ENOMEM. */
char *pmemram_config_strip(char *s);
int pmemram_config_add_file(struct pmemram_config *c, const char *filename);

/* A parser of one file's text: pmemram_config_parse(), pmemram_daxctl_parse(). */
typedef int (*pmemram_config_parse_fn)(struct pmemram_config *c, const char *filename, const char *text, size_t size,
				       struct pmemram_config_errors *errors);
/* Read path below dir_fd (AT_FDCWD too; a regular file of at most PMEMRAM_CONFIG_MAX_FILE_SIZE bytes; a FIFO
 * does not block) and parse it with parse as name: 1 when parsed, -errno (with a message) otherwise. */
int pmemram_config_parse_at(struct pmemram_config *c, int dir_fd, const char *path, const char *name,
			    pmemram_config_parse_fn parse, struct pmemram_config_errors *errors);

/* Which "*.conf" names of a configuration directory are listed: */
enum pmemram_config_list_policy {
	PMEMRAM_CONFIG_LIST_PMEMRAM, /* not hidden ones (pmemram.conf.d) */
	PMEMRAM_CONFIG_LIST_DAXCTL,  /* hidden ones too, and only what readdir() types regular (the
				      * others a warning in errors, before any count or name rule),
				      * as daxctl reads daxctl.conf.d */
	_PMEMRAM_CONFIG_LIST_POLICY_MAX,
};
/* The NULL-terminated, byte-sorted names of subdir below dir_fd (dir_fd itself when NULL) that policy
 * reads, each "subdir/NAME" (or "NAME"), for pmemram_config_names_free(); shown names the directory
 * in messages.  An absent directory lists nothing.  -EINVAL with a message when a name is not
 * printable or there are more than PMEMRAM_CONFIG_MAX_DROPINS, other -errno (with a message) when
 * unreadable. */
int pmemram_config_list(int dir_fd, const char *subdir, const char *shown, enum pmemram_config_list_policy policy,
			char ***ret, struct pmemram_config_errors *errors);
void pmemram_config_names_free(char **names);

/* ---- daxctl.conf.d (daxctl-conf.c) ----
 * daxctl's files never make the load fail: what pmemram cannot use there is a warning "FILE:LINE:
 * ...", and the section it is in is skipped (state PMEMRAM_DAXCTL_SKIPPED). */

/* Parse one daxctl file's text (filename as used in messages, a full path) into c->daxctl. */
int pmemram_daxctl_parse(struct pmemram_config *c, const char *filename, const char *text, size_t size,
			 struct pmemram_config_errors *warnings);
/* Read the files of dir (open at dir_fd, named dir in messages) that daxctl reads, hidden ones too,
 * in lexical order, with pmemram_daxctl_parse(); then pmemram_daxctl_merge().  Nothing when c says
 * daxctl-conf = no.  0, or -ENOMEM; an unreadable file or directory is a warning, and then no
 * section is used (c->daxctl_unreadable), as daxctl would fail. */
int pmemram_daxctl_load(struct pmemram_config *c, int dir_fd, const char *dir, struct pmemram_config_errors *warnings);
/* Join the sections for each UUID as daxctl does (files parsed in lexical order, daxctl reads them
 * the other way round) and turn each UUID's into one claim, or note it redundant or in conflict
 * with a pmemram claim by the same UUID; what daxctl would refuse or pmemram finds ambiguous is
 * skipped with a warning.  0, or -ENOMEM. */
int pmemram_daxctl_merge(struct pmemram_config *c, struct pmemram_config_errors *warnings);
/* The pmemram claim a usable section stands for, as [claim "NAME"] keys would set it:
 * -EINVAL when it is not usable (text in ret_why, may be NULL). */
int pmemram_daxctl_to_claim(const struct pmemram_daxctl_section *s, struct pmemram_claim *ret, const char **ret_why);
/* "claimed", "redundant", "conflict", "skipped", "merged". */
const char *pmemram_daxctl_state_to_string(enum pmemram_daxctl_state s);

const struct pmemram_claim *pmemram_config_find_claim(const struct pmemram_config *c, const char *name);
/* 1 to PMEMRAM_CLASS_NAME_MAX - 1 letters, digits or '_': what [class "NAME"] accepts. */
bool pmemram_class_name_is_valid(const char *name);
const struct pmemram_class *pmemram_config_find_class(const struct pmemram_config *c, const char *name);
/* "FILE:LINE" of an origin, or "(default)" when never set. */
const char *pmemram_config_origin_to_string(const struct pmemram_config *c, struct pmemram_config_origin o,
					    char *buf, size_t size);

/* Lower-case a UUID in place after checking its 8-4-4-4-12 hex syntax; -EINVAL when malformed. */
int pmemram_uuid_normalize(char *uuid);

const char *pmemram_config_shuffle_to_string(enum pmemram_config_shuffle s);
/* The shuffle policy in force: PMEMRAM_CONFIG_SHUFFLE_NODES when shuffle-nodes is set, else shuffle. */
enum pmemram_config_shuffle pmemram_config_shuffle_policy(const struct pmemram_config *c);
/* Where that policy is set: the origin of shuffle-nodes or of shuffle (file -1: the default). */
struct pmemram_config_origin pmemram_config_shuffle_origin(const struct pmemram_config *c);
const char *pmemram_config_switch_to_string(enum pmemram_config_switch d);
const char *pmemram_config_hotplug_to_string(enum pmemram_config_hotplug h);
/* The word before the ':' of a match value: "uuid", "device", "hmem", "region"; "all-devdax". */
const char *pmemram_match_to_string(enum pmemram_match m);
/* The value of "match = hmem:VALUE": "START-END", two hex addresses (with or without "0x", as
 * /proc/iomem prints them, END inclusive), or "node=N".  0 and *ret_match with the range or node
 * in claim; -EINVAL when malformed, -ERANGE for an empty range or a node past PMEMRAM_MAX_NODES. */
int pmemram_parse_hmem_match(const char *value, enum pmemram_match *ret_match, struct pmemram_claim *claim);
/* "dram", "pmem", "all", "lowest-latency", "highest-bandwidth", "list". */
const char *pmemram_class_nodes_to_string(enum pmemram_class_nodes n);
const char *pmemram_class_mode_to_string(enum pmemram_class_mode m);
/* The word of the "online" key for a claim's zone: "movable", "normal"; NULL for other zones. */
const char *pmemram_config_online_to_string(enum pmemram_zone z);

_PMEMRAM_DEFINE_POINTER_CLEANUP_FUNC(struct pmemram_config, pmemram_config_free)
