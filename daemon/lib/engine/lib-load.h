/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A library opened with dlopen() and its functions looked up into a table of pointers. */
#pragma once

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "macro.h"

struct pmemram_ctx;

/* One function of the library: its name, and where its address goes in the table; an optional
 * one missing from the library (older than the function) leaves NULL there. */
struct lib_symbol {
	const char *name;
	size_t offset;
	bool optional;
};

/*
 * Open soname and store the address of each symbol at api + its offset.  -ELIBACC, with
 * dlerror()'s words and the Debian package to install in the log, when the library or one of its
 * functions not optional is missing; the table is then left partly filled and must not be used.  The library
 * stays open for the process's life.
 */
int lib_load(struct pmemram_ctx *ctx, const char *soname, const char *package, const struct lib_symbol *symbols,
	     size_t n_symbols, void *api);

/* lib_load() unless *loaded, which it sets on success: for a table kept for the process's life.
 * A failure is not remembered: a library installed meanwhile is found by the next call. */
int lib_load_once(struct pmemram_ctx *ctx, const char *soname, const char *package, const struct lib_symbol *symbols,
		  size_t n_symbols, void *api, bool *loaded);

/* A library's log line (its log function's arguments) as a debug line of ctx, prefixed with the
 * library's name: library code logs at debug through the caller's function, never to stderr. */
_printf_(6, 0) void lib_log_forward(struct pmemram_ctx *ctx, const char *library, const char *file, int line,
				    const char *fn, const char *format, va_list args);
