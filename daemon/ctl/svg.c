/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A small SVG writer for pmemramctl's pictures: shapes and escaped text into memory, saved atomically. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "fileio.h"
#include "macro.h"
#include "svg.h"

/* Text and attribute values with the five characters XML reserves replaced by entities. */
static void put_escaped(FILE *f, const char *text)
{
	static const char *const entities[] = {
		['&'] = "&amp;", ['<'] = "&lt;", ['>'] = "&gt;", ['"'] = "&quot;", ['\''] = "&apos;",
	};

	for (; *text; text++) {
		unsigned char c = (unsigned char)*text;

		if (c < ELEMENTSOF(entities) && entities[c])
			fputs(entities[c], f);
		else
			fputc(c, f);
	}
}

int svg_begin(struct svg *s, double width, double height, const char *title)
{
	*s = (struct svg){};
	s->f = open_memstream(&s->text, &s->len);
	if (!s->f)
		return -ENOMEM;
	fprintf(s->f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n"
		"<title>",
		width, height, width, height);
	put_escaped(s->f, title);
	fputs("</title>\n"
	      "<style>\n"
	      "text { font-family: sans-serif; font-size: 12px; fill: #222; }\n"
	      "text.title { font-size: 15px; font-weight: bold; }\n"
	      "text.small { font-size: 11px; fill: #555; }\n"
	      ".bar { fill: #4a7ab5; }\n"
	      ".expected { fill: #e08a2c; }\n"
	      ".axis { stroke: #222; stroke-width: 1; }\n"
	      ".grid { stroke: #ddd; stroke-width: 1; }\n"
	      ".tick { stroke: #e08a2c; stroke-width: 3; }\n"
	      "</style>\n",
	      s->f);
	fprintf(s->f, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"white\"/>\n", width, height);
	return 0;
}

void svg_rect(struct svg *s, double x, double y, double width, double height, const char *cls, const char *tip)
{
	fprintf(s->f, "<rect class=\"%s\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"", cls, x, y, width,
		height);
	if (!tip) {
		fputs("/>\n", s->f);
		return;
	}
	fputs("><title>", s->f);
	put_escaped(s->f, tip);
	fputs("</title></rect>\n", s->f);
}

void svg_line(struct svg *s, double x1, double y1, double x2, double y2, const char *cls)
{
	fprintf(s->f, "<line class=\"%s\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>\n", cls, x1, y1, x2, y2);
}

void svg_text(struct svg *s, double x, double y, const char *anchor, const char *cls, bool vertical, const char *format,
	      ...)
{
	_cleanup_(freep) char *text = NULL;
	va_list ap;
	int n;

	va_start(ap, format);
	n = vasprintf(&text, format, ap);
	va_end(ap);
	if (n < 0) {
		text = NULL;
		s->failed = true;
		return;
	}
	fprintf(s->f, "<text class=\"%s\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"%s\"", cls, x, y, anchor);
	if (vertical)
		fprintf(s->f, " transform=\"rotate(-90 %.2f %.2f)\"", x, y);
	fputc('>', s->f);
	put_escaped(s->f, text);
	fputs("</text>\n", s->f);
}

int svg_end(struct svg *s)
{
	bool failed = s->failed;

	fputs("</svg>\n", s->f);
	failed |= ferror(s->f);
	/* fclose() sets text and len to the whole document. */
	failed |= fclose(s->f) != 0;
	s->f = NULL;
	return failed ? -ENOMEM : 0;
}

void svg_done(struct svg *s)
{
	if (s->f)
		fclose(s->f);
	free(s->text);
	*s = (struct svg){};
}

int svg_save(const struct svg *s, const char *path)
{
	struct stat st;

	if (!s->text || s->f)
		return -EINVAL;
	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return -EEXIST;
	return file_write_atomic(path, s->text, s->len, 0644, 0);
}
