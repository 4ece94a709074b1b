/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The node-feature-discovery feature file: labels checked against Kubernetes' rules, size bounded. */
#include <inttypes.h>
#include <time.h>

#include "macro.h"
#include "pmemram-nfd.h"

static bool is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static bool label_part_is_valid(const char *s, bool may_be_empty)
{
	size_t len = strlen(s);

	if (len == 0)
		return may_be_empty;
	if (len > PMEMRAM_NFD_LABEL_MAX || !is_alnum(s[0]) || !is_alnum(s[len - 1]))
		return false;
	for (; *s; s++)
		if (!is_alnum(*s) && *s != '-' && *s != '_' && *s != '.')
			return false;
	return true;
}

bool pmemram_nfd_value_is_valid(const char *s)
{
	return s && label_part_is_valid(s, true);
}

bool pmemram_nfd_name_is_valid(const char *s)
{
	return s && label_part_is_valid(s, false);
}

int pmemram_nfd_nodes_value(const struct pmemram_nodemask *m, char *buf, size_t size)
{
	char list[4096];
	int r;

	if (!m || !buf || size == 0)
		return -EINVAL;
	buf[0] = '\0';
	r = pmemram_nodemask_format(m, list, sizeof(list));
	if (r < 0)
		return r == -ENAMETOOLONG ? -E2BIG : r;
	if (strlen(list) > PMEMRAM_NFD_LABEL_MAX)
		return -E2BIG;
	if (strlen(list) >= size)
		return -ENAMETOOLONG;
	for (char *p = list; *p; p++)
		if (*p == ',')
			*p = '_';
	strcpy(buf, list);
	return 0;
}

int pmemram_nfd_time(uint64_t realtime_usec, char *buf, size_t size)
{
	time_t t = (time_t)(realtime_usec / USEC_PER_SEC);
	struct tm tm;

	if (!buf || !gmtime_r(&t, &tm))
		return -EINVAL;
	return strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0 ? -ENAMETOOLONG : 0;
}

struct out {
	FILE *f;
	size_t len; /* bytes written so far */
	struct pmemram_nfd_dropped *dropped;
};

static void drop(struct out *o, const char *name)
{
	if (o->dropped->n++ == 0)
		(void)snprintf(o->dropped->first, sizeof(o->dropped->first), "%s", name);
}

/* "pmemram.io/NAME=VALUE\n" when both are valid and the line fits the size limit; else dropped. */
static void label(struct out *o, const char *name, const char *value)
{
	size_t len = strlen(PMEMRAM_NFD_NAMESPACE) + 1 + strlen(name) + 1 + strlen(value) + 1;

	if (!pmemram_nfd_name_is_valid(name) || !pmemram_nfd_value_is_valid(value) ||
	    o->len + len > PMEMRAM_NFD_FILE_MAX) {
		drop(o, name);
		return;
	}
	fprintf(o->f, PMEMRAM_NFD_NAMESPACE "/%s=%s\n", name, value);
	o->len += len;
}

static void label_u64(struct out *o, const char *name, uint64_t value)
{
	char v[24];

	(void)snprintf(v, sizeof(v), "%" PRIu64, value);
	label(o, name, v);
}

/* NAME=list and NAME-count=N; the list only when there are nodes. */
static void label_nodes(struct out *o, const char *name, const struct pmemram_nodemask *m)
{
	char v[PMEMRAM_NFD_LABEL_MAX + 1], count[PMEMRAM_NFD_LABEL_MAX + 8];
	unsigned n = pmemram_nodemask_weight(m);

	if (n > 0) {
		if (pmemram_nfd_nodes_value(m, v, sizeof(v)) < 0)
			drop(o, name);
		else
			label(o, name, v);
	}
	(void)snprintf(count, sizeof(count), "%s-count", name);
	label_u64(o, count, n);
}

static void labels(struct out *o, const struct pmemram_nfd *n)
{
	label_u64(o, "kmem-online-bytes", n->kmem_online_bytes);
	label_nodes(o, "slow-nodes", &n->slow_nodes);
	label_nodes(o, "direct-mapped-cache-nodes", &n->direct_mapped_nodes);
	if (n->shuffle)
		label(o, "page-shuffle",
		      n->shuffle->source == PMEMRAM_SHUFFLE_UNAVAILABLE ? "unavailable"
		      : n->shuffle->enabled			     ? "enabled"
								     : "disabled");
	for (size_t i = 0; i < n->n_classes; i++) {
		char name[PMEMRAM_NFD_LABEL_MAX + 8], v[PMEMRAM_NFD_LABEL_MAX + 1];

		if (!n->classes[i].resolved)
			continue;
		(void)snprintf(name, sizeof(name), "class.%s", n->classes[i].name);
		if (pmemram_nfd_nodes_value(&n->classes[i].nodes, v, sizeof(v)) < 0)
			drop(o, name);
		else
			label(o, name, v);
	}
}

int pmemram_nfd_format(const struct pmemram_nfd *n, char **ret, size_t *ret_len, struct pmemram_nfd_dropped *ret_dropped)
{
	struct pmemram_nfd_dropped dropped = {};
	struct out o = { .dropped = &dropped };
	char expiry[32], *text = NULL;
	size_t len = 0;
	int r;

	if (!n || !ret || !ret_len)
		return -EINVAL;
	r = pmemram_nfd_time(n->expiry_usec, expiry, sizeof(expiry));
	if (r < 0)
		return r;
	o.f = open_memstream(&text, &len);
	if (!o.f)
		return -ENOMEM;
	o.len = (size_t)fprintf(o.f, "# Written by pmemramd; see pmemramd(8).\n# +expiry-time=%s\n", expiry);
	labels(&o, n);
	if (fclose(o.f) != 0) {
		free(text);
		return -ENOMEM;
	}
	*ret = text;
	*ret_len = len;
	if (ret_dropped)
		*ret_dropped = dropped;
	return 0;
}
