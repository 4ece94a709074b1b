/* The library context: sysfs root directory handle, caller-installed log function, error path. */
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <sys/stat.h>

#include "pmemram-private.h"

#define DEFAULT_SYSFS_ROOT "/sys"

struct pmemram_ctx {
	unsigned refcount;
	int sysfs_fd;
	char *sysfs_root;
	pmemram_log_fn log_fn;
	int log_priority;
	void *userdata;
	char error_path[PATH_MAX];
};

static int open_root(const char *root, int *ret_fd, char **ret_root)
{
	_cleanup_(closep) int fd = -1;
	char *copy;

	if (!root || !*root)
		return -EINVAL;

	fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return negative_errno();

	copy = strdup(root);
	if (!copy)
		return -ENOMEM;

	/* "/sys/" and "/sys" name the same tree; keep error paths tidy. */
	for (size_t n = strlen(copy); n > 1 && copy[n - 1] == '/'; n--)
		copy[n - 1] = '\0';

	*ret_fd = TAKE_FD(fd);
	*ret_root = copy;
	return 0;
}

int pmemram_ctx_new(struct pmemram_ctx **ret_ctx)
{
	_cleanup_(pmemram_ctx_unrefp) struct pmemram_ctx *ctx = NULL;
	const char *root, *level;
	int r;

	if (!ret_ctx)
		return -EINVAL;

	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return -ENOMEM;
	ctx->refcount = 1;
	ctx->sysfs_fd = -1;
	ctx->log_priority = LOG_ERR;

	level = secure_getenv("PMEMRAM_LOG");
	if (level) {
		int priority;

		/* An unparsable level is not worth failing for: keep the default. */
		if (pmemram_parse_log_priority(level, &priority) >= 0)
			ctx->log_priority = priority;
	}

	root = secure_getenv("PMEMRAM_SYSFS_ROOT");
	if (!root || !*root)
		root = DEFAULT_SYSFS_ROOT;

	r = open_root(root, &ctx->sysfs_fd, &ctx->sysfs_root);
	if (r < 0) {
		/* The context is going away; the caller learns the path from the errno. */
		return r;
	}

	*ret_ctx = TAKE_PTR(ctx);
	return 0;
}

struct pmemram_ctx *pmemram_ctx_ref(struct pmemram_ctx *ctx)
{
	if (ctx)
		ctx->refcount++;
	return ctx;
}

struct pmemram_ctx *pmemram_ctx_unref(struct pmemram_ctx *ctx)
{
	if (!ctx)
		return NULL;
	if (--ctx->refcount > 0)
		return NULL;

	safe_close(ctx->sysfs_fd);
	free(ctx->sysfs_root);
	free(ctx);
	return NULL;
}

int pmemram_ctx_set_sysfs_root(struct pmemram_ctx *ctx, const char *root)
{
	char *new_root;
	int fd, r;

	if (!ctx)
		return -EINVAL;

	r = open_root(root, &fd, &new_root);
	if (r < 0)
		return log_debug_errno(ctx, r, "cannot open sysfs root %s: %s", root ? root : "(null)",
				       strerror(-r));

	safe_close(ctx->sysfs_fd);
	free(ctx->sysfs_root);
	ctx->sysfs_fd = fd;
	ctx->sysfs_root = new_root;
	pmemram_ctx_clear_error(ctx);
	log_debug(ctx, "sysfs root is now %s", new_root);
	return 0;
}

const char *pmemram_ctx_get_sysfs_root(struct pmemram_ctx *ctx)
{
	return ctx ? ctx->sysfs_root : NULL;
}

int pmemram_ctx_get_sysfs_fd(struct pmemram_ctx *ctx)
{
	return ctx ? ctx->sysfs_fd : -EBADF;
}

void pmemram_ctx_set_log_fn(struct pmemram_ctx *ctx, pmemram_log_fn fn)
{
	if (ctx)
		ctx->log_fn = fn;
}

void pmemram_ctx_set_log_priority(struct pmemram_ctx *ctx, int priority)
{
	if (ctx)
		ctx->log_priority = priority;
}

int pmemram_ctx_get_log_priority(struct pmemram_ctx *ctx)
{
	return ctx ? ctx->log_priority : LOG_ERR;
}

void pmemram_ctx_set_userdata(struct pmemram_ctx *ctx, void *userdata)
{
	if (ctx)
		ctx->userdata = userdata;
}

void *pmemram_ctx_get_userdata(struct pmemram_ctx *ctx)
{
	return ctx ? ctx->userdata : NULL;
}

void pmemram_ctx_set_error_path(struct pmemram_ctx *ctx, const char *path)
{
	int n;

	if (!ctx)
		return;

	n = snprintf(ctx->error_path, sizeof(ctx->error_path), "%s%s%s", ctx->sysfs_root,
		     streq(ctx->sysfs_root, "/") ? "" : "/", path);
	if (n < 0)
		ctx->error_path[0] = '\0';
}

const char *pmemram_ctx_get_error_path(struct pmemram_ctx *ctx)
{
	if (!ctx || !ctx->error_path[0])
		return NULL;
	return ctx->error_path;
}

void pmemram_ctx_clear_error(struct pmemram_ctx *ctx)
{
	if (ctx)
		ctx->error_path[0] = '\0';
}

void pmemram_log(struct pmemram_ctx *ctx, int priority, const char *file, int line, const char *fn,
		 const char *format, ...)
{
	va_list args;

	if (!ctx || !ctx->log_fn || priority > ctx->log_priority)
		return;

	va_start(args, format);
	ctx->log_fn(ctx, priority, file, line, fn, format, args);
	va_end(args);
}
