/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Kernel command line words: split as the kernel splits them, one parameter read, counted or replaced. */
#include "pmemram-bootparam.h"
#include "pmemram-private.h"

/* The kernel's parser takes any isspace() byte as a blank; pmemram's files only hold these three. */
#define BLANKS " \t\n"

/* One word of a command line as the kernel's next_arg() splits it. */
struct word {
	const char *start; /* the word as written */
	size_t len;
	const char *key; /* without a leading double quote */
	size_t key_len;
	const char *value; /* NULL for a bare KEY; without its enclosing double quotes */
	size_t value_len;
};

/* The word at or after *p, and *p moved past it; false at the end. */
static bool next_word(const char **p, struct word *ret)
{
	const char *s = *p + strspn(*p, BLANKS), *e, *name, *eq, *end;
	bool quoted = false, strip_tail;

	if (!*s) {
		*p = s;
		return false;
	}
	for (e = s; *e; e++) {
		if (!quoted && strchr(BLANKS, *e))
			break;
		if (*e == '"')
			quoted = !quoted;
	}

	/* next_arg() drops a leading quote of the word or of the value, and then the word's last
	 * byte when it is a quote: "a b"=c is key a b, k="v w" is value v w. */
	name = s;
	strip_tail = *name == '"';
	if (strip_tail)
		name++;
	eq = memchr(name, '=', (size_t)(e - name));
	*ret = (struct word){ .start = s, .len = (size_t)(e - s), .key = name };
	if (eq) {
		ret->value = eq + 1;
		if (ret->value < e && *ret->value == '"') {
			ret->value++;
			strip_tail = true;
		}
	}
	end = e;
	if (strip_tail && end > name && end[-1] == '"')
		end--;
	if (eq) {
		ret->key_len = (size_t)(eq - name);
		ret->value_len = end > ret->value ? (size_t)(end - ret->value) : 0;
	} else
		ret->key_len = (size_t)(end - name);

	*p = e;
	return true;
}

/* Kernel parameter names compare with '-' and '_' as one character (parameq()). */
static bool word_is(const struct word *w, const char *key)
{
	if (w->key_len != strlen(key))
		return false;
	for (size_t i = 0; i < w->key_len; i++) {
		char a = w->key[i] == '-' ? '_' : w->key[i], b = key[i] == '-' ? '_' : key[i];

		if (a != b)
			return false;
	}
	return true;
}

/* A bare "--" ends the kernel's parameters: the words after it are init's arguments. */
static bool word_ends_params(const struct word *w)
{
	return !w->value && w->key_len == 2 && strncmp(w->key, "--", 2) == 0;
}

int pmemram_cmdline_get(const char *cmdline, const char *key, char **ret_value)
{
	const struct word *last = NULL;
	struct word w, found;
	char *v;

	if (!cmdline || !key || !*key || !ret_value)
		return -EINVAL;

	while (next_word(&cmdline, &w) && !word_ends_params(&w))
		if (word_is(&w, key)) {
			found = w;
			last = &found;
		}
	if (!last) {
		*ret_value = NULL;
		return 0;
	}
	v = last->value ? strndup(last->value, last->value_len) : strdup("");
	if (!v)
		return -ENOMEM;
	*ret_value = v;
	return 1;
}

int pmemram_cmdline_count(const char *cmdline, const char *key)
{
	struct word w;
	int n = 0;

	if (!cmdline || !key || !*key)
		return -EINVAL;
	while (next_word(&cmdline, &w) && !word_ends_params(&w))
		if (word_is(&w, key))
			n++;
	return n;
}

static bool is_token(const char *s, const char *reject)
{
	return s && *s && !s[strcspn(s, reject)];
}

int pmemram_cmdline_check(const char *cmdline, size_t *ret_offset)
{
	const char *open = NULL;

	if (!cmdline)
		return -EINVAL;
	/* Quotes toggle within a word (next_word()); blanks end a word only outside quotes. */
	for (const char *p = cmdline; *p; p++)
		if (*p == '"')
			open = open ? NULL : p;
	if (!open)
		return 0;
	if (ret_offset)
		*ret_offset = (size_t)(open - cmdline);
	return -EBADMSG;
}

int pmemram_cmdline_set(const char *cmdline, const char *key, const char *value, char **ret)
{
	_cleanup_(freep) char *out = NULL;
	bool params = true;
	size_t len = 0;
	struct word w;

	if (!cmdline || !ret || !is_token(key, BLANKS "\"=") || (value && !is_token(value, BLANKS "\"")))
		return -EINVAL;
	/* An open quote swallows the rest of the line, and a word appended after it with it. */
	if (pmemram_cmdline_check(cmdline, NULL) < 0)
		return -EBADMSG;

	/* Every word of the old line, one blank each, the new word and its '=': never longer. */
	out = malloc(strlen(cmdline) + strlen(key) + (value ? strlen(value) : 0) + 3);
	if (!out)
		return -ENOMEM;

	for (;;) {
		bool more = next_word(&cmdline, &w);

		/* The new word goes last among the kernel's own, before a "--" that hands the rest to init. */
		if (params && (!more || word_ends_params(&w))) {
			params = false;
			if (value)
				len += (size_t)sprintf(out + len, "%s%s=%s", len ? " " : "", key, value);
		}
		if (!more)
			break;
		if (params && word_is(&w, key))
			continue;
		len += (size_t)sprintf(out + len, "%s%.*s", len ? " " : "", (int)w.len, w.start);
	}
	out[len] = '\0';
	*ret = TAKE_PTR(out);
	return 0;
}
