/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* pmemram.conf loader: the main file and pmemram.conf.d drop-ins read through a directory fd (openat). */
#include <fcntl.h>
#include <sys/stat.h>

#include "pmemram-config.h"
#include "pmemram-private.h"

/* Parse the file open at fd as name (used in messages) with parse: 1 when parsed, -errno otherwise. */
static int parse_fd_with(struct pmemram_config *c, int fd, const char *name, pmemram_config_parse_fn parse,
			 struct pmemram_config_errors *errors)
{
	_cleanup_(freep) char *text = NULL;
	size_t len = 0;
	struct stat st;
	int r;

	if (fstat(fd, &st) < 0) {
		r = negative_errno();
		pmemram_config_errors_add(errors, name, 0, "cannot read: %s", strerror(-r));
		return r;
	}
	if (!S_ISREG(st.st_mode)) {
		pmemram_config_errors_add(errors, name, 0, "not a regular file");
		return -EINVAL;
	}

	text = malloc(PMEMRAM_CONFIG_MAX_FILE_SIZE + 1);
	if (!text)
		return -ENOMEM;
	/* One byte more than the limit, so a file that grew since fstat() is still caught. */
	while (len <= PMEMRAM_CONFIG_MAX_FILE_SIZE) {
		ssize_t k = read(fd, text + len, PMEMRAM_CONFIG_MAX_FILE_SIZE + 1 - len);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			r = negative_errno();
			pmemram_config_errors_add(errors, name, 0, "cannot read: %s", strerror(-r));
			return r;
		}
		if (k == 0)
			break;
		len += (size_t)k;
	}

	r = parse(c, name, text, len, errors);
	return r < 0 ? r : 1;
}

static int parse_fd(struct pmemram_config *c, int fd, const char *name, struct pmemram_config_errors *errors)
{
	return parse_fd_with(c, fd, name, pmemram_config_parse, errors);
}

/* O_NONBLOCK: a FIFO named *.conf must not hang the daemon. */
#define CONFIG_OPEN_FLAGS (O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)

/* Read and parse path below dir_fd: 1 when parsed, 0 when absent, -errno otherwise. */
static int load_file(struct pmemram_config *c, int dir_fd, const char *path, struct pmemram_config_errors *errors)
{
	_cleanup_(closep) int fd = -1;
	int r;

	fd = openat(dir_fd, path, CONFIG_OPEN_FLAGS);
	if (fd < 0 && errno == ENOENT)
		return 0;
	if (fd < 0) {
		r = negative_errno();
		pmemram_config_errors_add(errors, path, 0, "cannot read: %s", strerror(-r));
		return r;
	}
	return parse_fd(c, fd, path, errors);
}

int pmemram_config_parse_at(struct pmemram_config *c, int dir_fd, const char *path, const char *name,
			    pmemram_config_parse_fn parse, struct pmemram_config_errors *errors)
{
	_cleanup_(closep) int fd = -1;
	int r;

	if (!c || (dir_fd < 0 && dir_fd != AT_FDCWD) || !path || !name || !parse)
		return -EINVAL;
	fd = openat(dir_fd, path, CONFIG_OPEN_FLAGS);
	if (fd < 0) {
		r = negative_errno();
		pmemram_config_errors_add(errors, name, 0, "cannot read: %s", strerror(-r));
		return r;
	}
	return parse_fd_with(c, fd, name, parse, errors);
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void pmemram_config_names_free(char **names)
{
	for (size_t i = 0; names && names[i]; i++)
		free(names[i]);
	free(names);
}

static void names_freep(char ***names)
{
	pmemram_config_names_free(*names);
}

/* Whether name is one of the policy's "*.conf" names. */
static bool listed_name(const char *name, enum pmemram_config_list_policy policy)
{
	size_t len = strlen(name);

	if (len <= 5 || !streq(name + len - 5, ".conf"))
		return false;
	return policy == PMEMRAM_CONFIG_LIST_DAXCTL || name[0] != '.';
}

int pmemram_config_list(int dir_fd, const char *subdir, const char *shown, enum pmemram_config_list_policy policy,
			char ***ret, struct pmemram_config_errors *errors)
{
	_cleanup_(names_freep) char **names = NULL;
	_cleanup_(closedirp) DIR *d = NULL;
	size_t n = 0;
	int fd;

	if (dir_fd < 0 || !shown || !ret || (unsigned)policy >= _PMEMRAM_CONFIG_LIST_POLICY_MAX)
		return -EINVAL;
	names = calloc(PMEMRAM_CONFIG_MAX_DROPINS + 1, sizeof(*names));
	if (!names)
		return -ENOMEM;

	fd = openat(dir_fd, subdir ?: ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		*ret = TAKE_PTR(names);
		return 0;
	}
	if (fd >= 0) {
		d = fdopendir(fd);
		if (!d)
			safe_close(fd);
	}
	if (!d) {
		int r = negative_errno();

		pmemram_config_errors_add(errors, shown, 0, "cannot read: %s", strerror(-r));
		return r;
	}

	for (struct dirent *de; (errno = 0, de = readdir(d));) {
		if (!listed_name(de->d_name, policy))
			continue;
		if (policy == PMEMRAM_CONFIG_LIST_DAXCTL && de->d_type != DT_REG) {
			/* daxctl's filter takes what readdir() types regular, before any other rule:
			 * the rest neither counts nor needs a printable name. */
			char escaped[4 * NAME_MAX + 1], path[PATH_MAX + sizeof(escaped)];

			snprintf(path, sizeof(path), "%s/%s", shown,
				 pmemram_name_escape(de->d_name, escaped, sizeof(escaped)));
			pmemram_config_errors_add(errors, path, 0, "%s: daxctl does not read it either",
						  de->d_type == DT_UNKNOWN ? "the file system gives no file type"
									   : "not a regular file");
			continue;
		}
		/* Names go into messages, status, JSON and the slices' comments: no newline or escape
		 * sequence may ride along (a newline in a unit file is a directive of its own). */
		if (!pmemram_name_is_printable(de->d_name)) {
			char escaped[4 * NAME_MAX + 1];

			pmemram_config_errors_add(errors, shown, 0,
						  "file name '%s' has control characters or is not UTF-8: rename it",
						  pmemram_name_escape(de->d_name, escaped, sizeof(escaped)));
			return -EINVAL;
		}
		if (n >= PMEMRAM_CONFIG_MAX_DROPINS) {
			pmemram_config_errors_add(errors, shown, 0, "more than %d *.conf files",
						  PMEMRAM_CONFIG_MAX_DROPINS);
			return -EINVAL;
		}
		if (subdir)
			names[n] = malloc(strlen(subdir) + 1 + strlen(de->d_name) + 1);
		else
			names[n] = malloc(strlen(de->d_name) + 1);
		if (!names[n])
			return -ENOMEM;
		if (subdir)
			strcpy(stpcpy(stpcpy(names[n], subdir), "/"), de->d_name);
		else
			strcpy(names[n], de->d_name);
		n++;
	}
	if (errno != 0) {
		int r = negative_errno();

		pmemram_config_errors_add(errors, shown, 0, "cannot read: %s", strerror(-r));
		return r;
	}

	qsort(names, n, sizeof(*names), compare_names);
	*ret = TAKE_PTR(names);
	return 0;
}

/* NULL-terminated, sorted names of the drop-ins: "*.conf", not hidden. */
static int list_dropins(int dir_fd, char ***ret, struct pmemram_config_errors *errors)
{
	return pmemram_config_list(dir_fd, PMEMRAM_CONFIG_DROPIN_DIR, PMEMRAM_CONFIG_DROPIN_DIR,
				   PMEMRAM_CONFIG_LIST_PMEMRAM, ret, errors);
}

/* ---- one file swapped: pmemram_config_load_swapped() ---------------------------------------- */

/* Read source below dir_fd, which must exist, and parse it as the file name (used in messages). */
static int load_source(struct pmemram_config *c, int dir_fd, const char *name, const char *source,
		       struct pmemram_config_errors *errors)
{
	_cleanup_(closep) int fd = -1;
	int r;

	fd = openat(dir_fd, source, CONFIG_OPEN_FLAGS);
	if (fd < 0) {
		r = negative_errno();
		pmemram_config_errors_add(errors, name, 0, "cannot read: %s", strerror(-r));
		/* Missing is not "no configuration" here. */
		return r == -ENOENT ? -EINVAL : r;
	}
	return parse_fd(c, fd, name, errors);
}

/* list_dropins() with the drop-in swap ("pmemram.conf.d/X.conf") listed when present, left out otherwise. */
static int list_dropins_swapped(int dir_fd, const char *swap, bool present, char ***ret,
				struct pmemram_config_errors *errors)
{
	_cleanup_(names_freep) char **listed = NULL, **names = NULL;
	size_t n = 0;
	int r;

	r = list_dropins(dir_fd, &listed, errors);
	if (r < 0)
		return r;
	names = calloc(PMEMRAM_CONFIG_MAX_DROPINS + 2, sizeof(*names));
	if (!names)
		return -ENOMEM;
	for (size_t i = 0; listed[i]; i++)
		if (streq(listed[i], swap))
			free(listed[i]);
		else
			names[n++] = listed[i];
	free(TAKE_PTR(listed)); /* its strings moved to names */

	if (present) {
		if (n >= PMEMRAM_CONFIG_MAX_DROPINS) {
			pmemram_config_errors_add(errors, PMEMRAM_CONFIG_DROPIN_DIR, 0, "more than %d *.conf files",
						  PMEMRAM_CONFIG_MAX_DROPINS);
			return -EINVAL;
		}
		names[n] = strdup(swap);
		if (!names[n++])
			return -ENOMEM;
		qsort(names, n, sizeof(*names), compare_names);
	}
	*ret = TAKE_PTR(names);
	return 0;
}

/* PMEMRAM_CONFIG_MAIN, or PMEMRAM_CONFIG_DROPIN_DIR "/" X.conf with X not hidden and without '/'. */
static bool is_config_name(const char *name)
{
	const char *base;

	if (streq(name, PMEMRAM_CONFIG_MAIN))
		return true;
	if (strncmp(name, PMEMRAM_CONFIG_DROPIN_DIR "/", strlen(PMEMRAM_CONFIG_DROPIN_DIR "/")) != 0)
		return false;
	base = name + strlen(PMEMRAM_CONFIG_DROPIN_DIR "/");
	return !strchr(base, '/') && listed_name(base, PMEMRAM_CONFIG_LIST_PMEMRAM);
}

/*
 * The main file, then the drop-ins in lexical order, then the checks across files.  With name
 * (one of is_config_name()'s) that file is read from source instead, or left out when source is
 * NULL; without name, what is on disk.  Keeps going after a bad file, so one run reports the
 * errors of every file.
 */
static int load_all(int dir_fd, const char *name, const char *source, struct pmemram_config **ret,
		    struct pmemram_config_errors *errors)
{
	_cleanup_(pmemram_config_freep) struct pmemram_config *c = NULL;
	_cleanup_(names_freep) char **dropins = NULL;
	bool main_swapped = name && streq(name, PMEMRAM_CONFIG_MAIN), found = false;
	bool dropin_swapped = name && !main_swapped;
	int r, result = 0;

	r = pmemram_config_new(&c);
	if (r < 0)
		return r;

	if (!main_swapped)
		r = load_file(c, dir_fd, PMEMRAM_CONFIG_MAIN, errors);
	else
		r = source ? load_source(c, dir_fd, name, source, errors) : 0;
	if (r > 0)
		found = true;
	else if (r < 0)
		result = r;

	r = dropin_swapped ? list_dropins_swapped(dir_fd, name, source != NULL, &dropins, errors)
			   : list_dropins(dir_fd, &dropins, errors);
	if (r < 0)
		return r;

	for (size_t i = 0; dropins[i]; i++) {
		if (dropin_swapped && streq(dropins[i], name))
			r = load_source(c, dir_fd, name, source, errors);
		else
			r = load_file(c, dir_fd, dropins[i], errors);
		if (r > 0)
			found = true;
		else if (r < 0 && result == 0)
			result = r;
	}

	if (result < 0)
		return result;
	if (!found)
		return -ENOENT;

	r = pmemram_config_verify(c, errors);
	if (r < 0)
		return r;

	*ret = TAKE_PTR(c);
	return 0;
}

int pmemram_config_load(int dir_fd, struct pmemram_config **ret, struct pmemram_config_errors *errors)
{
	if (dir_fd < 0 || !ret)
		return -EINVAL;
	return load_all(dir_fd, NULL, NULL, ret, errors);
}

/* As pmemram_config_load(), with name read from source (absent when source is NULL). */
int pmemram_config_load_swapped(int dir_fd, const char *name, const char *source, struct pmemram_config **ret,
				struct pmemram_config_errors *errors)
{
	if (dir_fd < 0 || !ret || !name || !is_config_name(name))
		return -EINVAL;
	return load_all(dir_fd, name, source, ret, errors);
}
