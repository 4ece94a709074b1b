/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmemramd: keeps claimed persistent memory online as system RAM; main() turns arguments into a run. */
#include <getopt.h>
#include <syslog.h>

#include <systemd/sd-daemon.h>

#include "macro.h"
#include "manager.h"
#include "pmemram-protocol.h"
#include "pmemram-tiering.h"

#define DEFAULT_SETTLE_SEC 30
#define DEFAULT_COALESCE_MSEC 200
#define EXIT_CONFIG 78 /* EX_CONFIG: the unit does not restart on it */
#define EXIT_USAGE 64  /* EX_USAGE, as pmemramctl */

static void help(void)
{
	printf("Usage: %s [OPTIONS]\n"
	       "\n"
	       "Keep the persistent memory that the configuration claims online as system RAM.\n"
	       "\n"
	       "  -h --help               Show this help\n"
	       "  -V --version            Show the version\n"
	       "  -c --config DIR         Configuration directory (default $PMEMRAM_CONFIG_DIR or " PMEMRAM_CONFIG_DIR_DEFAULT ")\n"
	       "  -s --socket PATH        Control socket (default $" PMEMRAM_SOCKET_ENV " or " PMEMRAM_SOCKET_PATH ")\n"
	       "     --settle-timeout SEC Wait this long at start for claimed devices to appear before\n"
	       "                          telling systemd we are ready (default %d, 0: do not wait)\n"
	       "     --coalesce-ms MS     After a reconcile, gather this long's uevents into one\n"
	       "                          (default %d; the first after a quiet spell starts at once)\n"
	       "     --offline-timeout SEC\n"
	       "                          Give up offlining a memory block after this long during a\n"
	       "                          release (default %d, 0: never)\n"
	       "     --metrics-textfile PATH\n"
	       "                          Write metrics in Prometheus text format to PATH (a *.prom\n"
	       "                          file in node_exporter's textfile directory) after every\n"
	       "                          reconcile and every minute (default: none)\n"
	       "     --nfd-features PATH  Write node labels for Kubernetes node-feature-discovery to\n"
	       "                          PATH (a file in its features.d directory) likewise\n"
	       "                          (default: none)\n"
	       "\n"
	       "See pmemramd(8).\n",
	       program_invocation_short_name, DEFAULT_SETTLE_SEC, DEFAULT_COALESCE_MSEC,
	       (int)(PMEMRAM_OFFLINE_TIMEOUT_DEFAULT_USEC / 1000000));
}

/* The file name part of path: after the last '/'. */
static const char *path_base(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* A file to replace: a name that is not "." or "..". */
static bool export_path_is_valid(const char *path)
{
	const char *base = path_base(path);

	return *base && !streq(base, ".") && !streq(base, "..");
}

static int parse_seconds(const char *s, unsigned max, unsigned *ret)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v > max || *s == '-')
		return -EINVAL;
	*ret = (unsigned)v;
	return 0;
}

static bool endswith(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && streq(s + n - k, suffix);
}

int main(int argc, char **argv)
{
	enum { OPT_SETTLE = 0x100, OPT_COALESCE, OPT_OFFLINE_TIMEOUT, OPT_METRICS, OPT_NFD };
	static const struct option options[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "config", required_argument, NULL, 'c' },
		{ "socket", required_argument, NULL, 's' },
		{ "settle-timeout", required_argument, NULL, OPT_SETTLE },
		{ "coalesce-ms", required_argument, NULL, OPT_COALESCE },
		{ "offline-timeout", required_argument, NULL, OPT_OFFLINE_TIMEOUT },
		{ "metrics-textfile", required_argument, NULL, OPT_METRICS },
		{ "nfd-features", required_argument, NULL, OPT_NFD },
		{},
	};
	struct manager m = { .listen_fd = -1, .lock_fd = -1, .demotion = -1, .promotion_r = -ENODATA };
	const char *socket_path = secure_getenv(PMEMRAM_SOCKET_ENV);
	unsigned settle = DEFAULT_SETTLE_SEC, coalesce = DEFAULT_COALESCE_MSEC;
	unsigned offline_timeout = (unsigned)(PMEMRAM_OFFLINE_TIMEOUT_DEFAULT_USEC / 1000000);
	char *slash;
	int c, r;

	/* The environment is read here, once: the tests point the slices elsewhere, where there is
	 * no systemd to tell about them. */
	m.slice_dir = secure_getenv(PMEMRAM_SLICE_DIR_ENV);
	if (!m.slice_dir || !*m.slice_dir)
		m.slice_dir = PMEMRAM_SLICE_DIR;
	m.slice_dir_is_systemds = streq(m.slice_dir, PMEMRAM_SLICE_DIR);
	m.config_dir = secure_getenv(PMEMRAM_CONFIG_DIR_ENV);
	if (!m.config_dir || !*m.config_dir)
		m.config_dir = PMEMRAM_CONFIG_DIR_DEFAULT;
	m.daxctl_dir = secure_getenv(PMEMRAM_DAXCTL_CONFIG_DIR_ENV);
	if (!m.daxctl_dir || !*m.daxctl_dir)
		m.daxctl_dir = PMEMRAM_DAXCTL_CONFIG_DIR_DEFAULT;
	if (!socket_path || !*socket_path)
		socket_path = PMEMRAM_SOCKET_PATH;

	while ((c = getopt_long(argc, argv, "hVc:s:", options, NULL)) >= 0) {
		switch (c) {
		case 'h':
			help();
			return 0;
		case 'V':
			printf("pmemramd %s\n", PACKAGE_VERSION);
			return 0;
		case 'c':
			m.config_dir = optarg;
			break;
		case 's':
			socket_path = optarg;
			break;
		case OPT_SETTLE:
			if (parse_seconds(optarg, 3600, &settle) < 0) {
				fprintf(stderr, "pmemramd: --settle-timeout: '%s' is not a number of seconds 0..3600\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case OPT_COALESCE:
			if (parse_seconds(optarg, 10000, &coalesce) < 0) {
				fprintf(stderr, "pmemramd: --coalesce-ms: '%s' is not a number of milliseconds 0..10000\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case OPT_OFFLINE_TIMEOUT:
			if (parse_seconds(optarg, 86400, &offline_timeout) < 0) {
				fprintf(stderr, "pmemramd: --offline-timeout: '%s' is not a number of seconds 0..86400\n",
					optarg);
				return EXIT_USAGE;
			}
			break;
		case OPT_METRICS:
		case OPT_NFD:
			if (!export_path_is_valid(optarg)) {
				fprintf(stderr, "pmemramd: --%s: '%s' is not a file name (empty, or ends in '/')\n",
					c == OPT_METRICS ? "metrics-textfile" : "nfd-features", optarg);
				return EXIT_USAGE;
			}
			*(c == OPT_METRICS ? &m.metrics_path : &m.nfd_path) = optarg;
			break;
		default:
			fprintf(stderr, "Try 'pmemramd --help' for more information.\n");
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "pmemramd: unexpected argument '%s'\n", argv[optind]);
		return EXIT_USAGE;
	}

	m.settle_usec = (uint64_t)settle * 1000000;
	m.coalesce_usec = (uint64_t)coalesce * 1000;
	manager_log_init(&m);
	m.socket_path = strdup(socket_path);
	m.runtime_dir = strdup(socket_path);
	if (!m.socket_path || !m.runtime_dir) {
		fprintf(stderr, "pmemramd: out of memory\n");
		return 1;
	}
	slash = strrchr(m.runtime_dir, '/');
	if (slash)
		*(slash == m.runtime_dir ? slash + 1 : slash) = '\0';
	else
		strcpy(m.runtime_dir, ".");

	/* node_exporter reads *.prom files only; NFD skips hidden ones. */
	if (m.metrics_path && !endswith(m.metrics_path, ".prom"))
		mevent(&m, MANAGER_EVENT_EXPORT_FAILED, "--metrics-textfile %s: node_exporter's textfile collector reads only *.prom files",
		     m.metrics_path);
	if (m.nfd_path && path_base(m.nfd_path)[0] == '.')
		mevent(&m, MANAGER_EVENT_EXPORT_FAILED, "--nfd-features %s: node-feature-discovery skips hidden files", m.nfd_path);

	r = pmemram_ctx_new(&m.ctx);
	if (r < 0) {
		mevent(&m, MANAGER_EVENT_START_FAILED, "cannot open sysfs: %s", strerror(-r));
		manager_free(&m);
		return 1;
	}
	pmemram_ctx_set_userdata(m.ctx, &m);
	pmemram_ctx_set_offline_timeout(m.ctx, (uint64_t)offline_timeout * 1000000);
	pmemram_ctx_set_log_fn(m.ctx, manager_log_library);

	r = manager_load_config(&m, true);
	if (r < 0) {
		mevent(&m, MANAGER_EVENT_CONFIG_UNUSABLE, "not starting: the configuration in %s is not usable",
		       m.config_dir);
		(void)sd_notifyf(false, "STATUS=configuration in %s is not usable\nERRNO=%d", m.config_dir, -r);
		manager_free(&m);
		return EXIT_CONFIG;
	}

	r = manager_run(&m);
	if (r < 0)
		(void)sd_notifyf(false, "STATUS=failed: %s\nERRNO=%d", strerror(-r), -r);
	manager_free(&m);
	return r < 0 ? 1 : 0;
}
