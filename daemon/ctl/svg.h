/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A small SVG writer for pmemramctl's pictures: shapes and escaped text into memory, saved atomically. */
#pragma once

#include <stdbool.h>
#include <stdio.h>

/* The document being written; svg_begin() opens it, svg_end() closes it, svg_done() frees it. */
struct svg {
	FILE *f;
	char *text;
	size_t len;
	bool failed; /* a piece could not be formatted: svg_end() fails */
};

/* Start a document of width x height pixels on a white background, with title as its <title>
 * (what a viewer shows for the file): 0 or -ENOMEM. */
int svg_begin(struct svg *s, double width, double height, const char *title);
/* A rectangle of class cls (the document's style colours it: "bar", "expected", "frame"), with
 * tip as the tooltip a viewer shows on it (NULL: none). */
void svg_rect(struct svg *s, double x, double y, double width, double height, const char *cls, const char *tip);
void svg_line(struct svg *s, double x1, double y1, double x2, double y2, const char *cls);
/* Text at x, y (its baseline), anchor "start", "middle" or "end"; class cls ("title", "label",
 * "small"); rotated a quarter turn anticlockwise about x, y when vertical. */
void svg_text(struct svg *s, double x, double y, const char *anchor, const char *cls, bool vertical, const char *format,
	      ...) __attribute__((format(printf, 7, 8)));
/* Close the document: 0, or -ENOMEM when some of it could not be written. */
int svg_end(struct svg *s);
void svg_done(struct svg *s);
/* Replace path with the document, atomically (a temporary file beside it, then a rename), mode
 * 0644: 0 or -errno; -EEXIST when path exists and is not a regular file (a directory, a device,
 * a symbolic link), which is left alone. */
int svg_save(const struct svg *s, const char *path);
