/* pmemram.conf loader: the main file and pmemram.conf.d drop-ins read through a directory fd (openat). */
#include <fcntl.h>
#include <sys/stat.h>

#include "pmemram-config.h"
#include "pmemram-private.h"

/* Read and parse path below dir_fd: 1 when parsed, 0 when absent, -errno otherwise. */
static int load_file(struct pmemram_config *c, int dir_fd, const char *path, struct pmemram_config_errors *errors)
{
	_cleanup_(closep) int fd = -1;
	_cleanup_(freep) char *text = NULL;
	size_t len = 0;
	struct stat st;
	int r;

	/* O_NONBLOCK: a FIFO named *.conf must not hang the daemon. */
	fd = openat(dir_fd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0 && errno == ENOENT)
		return 0;
	if (fd < 0 || fstat(fd, &st) < 0) {
		r = negative_errno();
		pmemram_config_errors_add(errors, path, 0, "cannot read: %s", strerror(-r));
		return r;
	}
	if (!S_ISREG(st.st_mode)) {
		pmemram_config_errors_add(errors, path, 0, "not a regular file");
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
			pmemram_config_errors_add(errors, path, 0, "cannot read: %s", strerror(-r));
			return r;
		}
		if (k == 0)
			break;
		len += (size_t)k;
	}

	r = pmemram_config_parse(c, path, text, len, errors);
	return r < 0 ? r : 1;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void names_free(char **names)
{
	for (size_t i = 0; names && names[i]; i++)
		free(names[i]);
	free(names);
}

static void names_freep(char ***names)
{
	names_free(*names);
}

/* NULL-terminated, sorted names of the drop-ins: "*.conf", not hidden. */
static int list_dropins(int dir_fd, char ***ret, struct pmemram_config_errors *errors)
{
	_cleanup_(names_freep) char **names = NULL;
	_cleanup_(closedirp) DIR *d = NULL;
	size_t n = 0;
	int fd;

	names = calloc(PMEMRAM_CONFIG_MAX_DROPINS + 1, sizeof(*names));
	if (!names)
		return -ENOMEM;

	fd = openat(dir_fd, PMEMRAM_CONFIG_DROPIN_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
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

		pmemram_config_errors_add(errors, PMEMRAM_CONFIG_DROPIN_DIR, 0, "cannot read: %s", strerror(-r));
		return r;
	}

	for (struct dirent *de; (errno = 0, de = readdir(d));) {
		size_t len = strlen(de->d_name);

		if (de->d_name[0] == '.' || len <= 5 || !streq(de->d_name + len - 5, ".conf"))
			continue;
		if (n >= PMEMRAM_CONFIG_MAX_DROPINS) {
			pmemram_config_errors_add(errors, PMEMRAM_CONFIG_DROPIN_DIR, 0, "more than %d *.conf files",
				  PMEMRAM_CONFIG_MAX_DROPINS);
			return -EINVAL;
		}
		names[n] = malloc(sizeof(PMEMRAM_CONFIG_DROPIN_DIR "/") + len);
		if (!names[n])
			return -ENOMEM;
		strcpy(stpcpy(names[n], PMEMRAM_CONFIG_DROPIN_DIR "/"), de->d_name);
		n++;
	}
	if (errno != 0) {
		int r = negative_errno();

		pmemram_config_errors_add(errors, PMEMRAM_CONFIG_DROPIN_DIR, 0, "cannot read: %s", strerror(-r));
		return r;
	}

	qsort(names, n, sizeof(*names), compare_names);
	*ret = TAKE_PTR(names);
	return 0;
}

int pmemram_config_load(int dir_fd, struct pmemram_config **ret, struct pmemram_config_errors *errors)
{
	_cleanup_(pmemram_config_freep) struct pmemram_config *c = NULL;
	_cleanup_(names_freep) char **dropins = NULL;
	int r, result = 0;
	bool found = false;

	if (dir_fd < 0 || !ret)
		return -EINVAL;

	r = pmemram_config_new(&c);
	if (r < 0)
		return r;

	r = load_file(c, dir_fd, PMEMRAM_CONFIG_MAIN, errors);
	if (r > 0)
		found = true;
	else if (r < 0)
		result = r;

	r = list_dropins(dir_fd, &dropins, errors);
	if (r < 0)
		return r;

	/* Keep going after a bad file: one run reports the errors of every file. */
	for (size_t i = 0; dropins[i]; i++) {
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
