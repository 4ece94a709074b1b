/* Runs the built pmemramd for what it must refuse before it touches anything: its command line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "macro.h"
#include "run-ctl.h"

struct dirs {
	char root[64];
	char config[96];
	char socket[96];
	char config_env[128];
};

static void make_dirs(struct dirs *d)
{
	snprintf(d->root, sizeof(d->root), "/tmp/pmemramd-test.XXXXXX");
	assert_non_null(mkdtemp(d->root));
	snprintf(d->config, sizeof(d->config), "%s/etc", d->root);
	assert_int_equal(mkdir(d->config, 0755), 0);
	snprintf(d->socket, sizeof(d->socket), "%s/file", d->root);
	snprintf(d->config_env, sizeof(d->config_env), "PMEMRAM_CONFIG_DIR=%s", d->config);
}

static void remove_dirs(struct dirs *d)
{
	(void)unlink(d->socket);
	(void)rmdir(d->config);
	(void)rmdir(d->root);
}

/* --socket naming a file that is not a socket: refused, and the file left as it was. */
static void test_socket_not_replaced(void **state)
{
	struct dirs d;
	_cleanup_(freep) struct run *run = NULL;
	char content[32] = "";
	FILE *f;

	(void)state;
	make_dirs(&d);
	f = fopen(d.socket, "w");
	assert_non_null(f);
	fputs("precious\n", f);
	fclose(f);
	{
		const char *env[] = { d.config_env, "PMEMRAM_LOG_TARGET=stderr", NULL };
		const char *args[] = { "--socket", d.socket, "--settle-timeout", "0", NULL };

		run = run_program_env("PMEMRAMD", "pmemramd", env, args);
	}
	assert_int_equal(run->status, 1);
	assert_non_null(strstr(run->err, "exists and is not a socket: not replacing it"));
	f = fopen(d.socket, "r");
	assert_non_null(f);
	assert_non_null(fgets(content, sizeof(content), f));
	fclose(f);
	assert_string_equal(content, "precious\n");
	remove_dirs(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_socket_not_replaced),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
