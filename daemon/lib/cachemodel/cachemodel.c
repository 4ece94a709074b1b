/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Direct-mapped memory-side cache model: slot occupancy and simulated conflict misses, no I/O. */
#include <inttypes.h>
#include <math.h>

#include "macro.h"
#include "pmemram-cachemodel.h"

/* Page indices fit in 32 bits (PMEMRAM_CACHEMODEL_MAX_PAGES < 2^32); this one means "none". */
#define NIL UINT32_MAX

_Static_assert(PMEMRAM_CACHEMODEL_MAX_PAGES < NIL, "page indices must fit in uint32_t below NIL");
_Static_assert(PMEMRAM_CACHEMODEL_MAX_ACCESSES <= SIZE_MAX, "trace lengths must fit in size_t");
_Static_assert(PMEMRAM_CACHEMODEL_MAX_ACCESSES < (UINT64_C(1) << 53), "miss counts must be exact in a double");
_Static_assert(PMEMRAM_CACHEMODEL_MAX_PAGES * PMEMRAM_CACHEMODEL_ACCESSES_PER_PAGE < UINT64_MAX,
	       "the default trace length must not overflow");

int pmemram_cachemodel_slots(uint64_t cache_size, uint64_t page_size, uint64_t *ret_slots)
{
	uint64_t slots;

	if (!ret_slots || page_size == 0 || (page_size & (page_size - 1)) != 0)
		return -EINVAL;
	if (cache_size == 0 || cache_size % page_size != 0)
		return -EINVAL;
	slots = cache_size / page_size;
	if (slots > PMEMRAM_CACHEMODEL_MAX_SLOTS)
		return -ERANGE;
	*ret_slots = slots;
	return 0;
}

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int pmemram_cachemodel_unique(uint64_t *pfns, size_t *n)
{
	size_t out = 0;

	if (!n || (*n > 0 && !pfns))
		return -EINVAL;
	if (*n > PMEMRAM_CACHEMODEL_MAX_PAGES)
		return -E2BIG;
	if (*n == 0)
		return 0;

	qsort(pfns, *n, sizeof(*pfns), compare_u64);
	for (size_t i = 0; i < *n; i++)
		if (out == 0 || pfns[i] != pfns[out - 1])
			pfns[out++] = pfns[i];
	*n = out;
	return 0;
}

/* Common argument checks of the functions taking (pfns, n, slots). */
static int check_pages(const uint64_t *pfns, size_t n, uint64_t slots)
{
	if (!pfns || n == 0 || slots == 0)
		return -EINVAL;
	if (n > PMEMRAM_CACHEMODEL_MAX_PAGES)
		return -E2BIG;
	if (slots > PMEMRAM_CACHEMODEL_MAX_SLOTS)
		return -ERANGE;
	return 0;
}

/* ---- slot occupancy ---------------------------------------------------------------------- */

struct slot_entry {
	uint64_t slot;
	uint32_t page;
};

/* By slot, then by PFN, so that a repeated PFN sorts next to itself. */
static int compare_slot_entries(const void *a, const void *b, void *userdata)
{
	const struct slot_entry *x = a, *y = b;
	const uint64_t *pfns = userdata;

	if (x->slot != y->slot)
		return x->slot < y->slot ? -1 : 1;
	return pfns[x->page] < pfns[y->page] ? -1 : pfns[x->page] > pfns[y->page];
}

/*
 * Number the slots the pages use 0..*ret_distinct-1, and write each page's number to
 * ret_slot_of[page] (when not NULL).  The simulation then needs state per used slot only, not per
 * slot of the cache, which may be far larger than the set of resident pages.  -EINVAL when a PFN
 * repeats.  Arguments already checked by check_pages().
 */
static int compact_slots(const uint64_t *pfns, size_t n, uint64_t slots, uint32_t *ret_slot_of,
			 uint64_t *ret_distinct)
{
	_cleanup_(freep) struct slot_entry *entries = NULL;
	uint64_t distinct = 0;

	entries = calloc(n, sizeof(*entries));
	if (!entries)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		entries[i] = (struct slot_entry){ .slot = pfns[i] % slots, .page = (uint32_t)i };
	qsort_r(entries, n, sizeof(*entries), compare_slot_entries, (void *)pfns);

	for (size_t i = 0; i < n; i++) {
		if (i > 0 && entries[i].slot == entries[i - 1].slot) {
			if (pfns[entries[i].page] == pfns[entries[i - 1].page])
				return -EINVAL;
		} else
			distinct++;
		if (ret_slot_of)
			ret_slot_of[entries[i].page] = (uint32_t)(distinct - 1);
	}
	*ret_distinct = distinct;
	return 0;
}

int pmemram_cachemodel_distinct_slots(const uint64_t *pfns, size_t n, uint64_t slots, uint64_t *ret)
{
	int r;

	if (!ret)
		return -EINVAL;
	r = check_pages(pfns, n, slots);
	if (r < 0)
		return r;
	return compact_slots(pfns, n, slots, NULL, ret);
}

int pmemram_cachemodel_occupancy(const uint64_t *pfns, size_t n, uint64_t slots, uint64_t *counts, size_t n_counts)
{
	_cleanup_(freep) uint32_t *slot_of = NULL, *pages_in = NULL;
	uint64_t distinct;
	int r;

	if (!counts || n_counts < 2)
		return -EINVAL;
	r = check_pages(pfns, n, slots);
	if (r < 0)
		return r;
	slot_of = calloc(n, sizeof(*slot_of));
	pages_in = calloc(n, sizeof(*pages_in));
	if (!slot_of || !pages_in)
		return -ENOMEM;
	r = compact_slots(pfns, n, slots, slot_of, &distinct);
	if (r < 0)
		return r;

	for (size_t i = 0; i < n; i++)
		pages_in[slot_of[i]]++;
	memset(counts, 0, n_counts * sizeof(*counts));
	counts[0] = slots - distinct;
	for (uint64_t s = 0; s < distinct; s++)
		counts[pages_in[s] < n_counts - 1 ? pages_in[s] : n_counts - 1]++;
	return 0;
}

double pmemram_cachemodel_expected_occupancy(uint64_t n, uint64_t slots, uint64_t k)
{
	double s = (double)slots, log_p;

	if (slots == 0 || k > n)
		return 0.0;
	if (slots == 1)
		return k == n ? 1.0 : 0.0;
	/* log C(n, k) + k log(1/S) + (n - k) log(1 - 1/S) */
	log_p = lgamma((double)n + 1.0) - lgamma((double)k + 1.0) - lgamma((double)(n - k) + 1.0) - (double)k * log(s) +
		(double)(n - k) * log1p(-1.0 / s);
	return s * exp(log_p);
}

double pmemram_cachemodel_expected_slots(uint64_t n, uint64_t slots)
{
	double s = (double)slots, e;

	if (n == 0 || slots == 0)
		return 0.0;
	if (slots == 1)
		return 1.0;
	/* (1 - 1/S)^n = exp(n * log1p(-1/S)); 1 - that = -expm1(...), exact for small n / S. */
	e = -s * expm1((double)n * log1p(-1.0 / s));
	/* Rounding must not report more than min(n, S) slots. */
	return fmin(e, fmin((double)n, s));
}

/* ---- splitmix64 (Steele, Lea, Flood 2014; the generator seeding xoshiro) ------------------- */

void pmemram_rng_init(struct pmemram_rng *rng, uint64_t seed)
{
	rng->state = seed;
}

uint64_t pmemram_rng_next(struct pmemram_rng *rng)
{
	uint64_t z = (rng->state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

uint64_t pmemram_rng_below(struct pmemram_rng *rng, uint64_t bound)
{
	/* 2^64 mod bound: values below it would make the low residues more likely. */
	uint64_t threshold;

	if (bound == 0)
		return 0;
	threshold = (0 - bound) % bound;
	for (;;) {
		uint64_t x = pmemram_rng_next(rng);

		if (x >= threshold)
			return x % bound;
	}
}

double pmemram_rng_double(struct pmemram_rng *rng)
{
	return (double)(pmemram_rng_next(rng) >> 11) * 0x1.0p-53;
}

/* ---- Zipf ---------------------------------------------------------------------------------- */

int pmemram_zipf_init(struct pmemram_zipf *z, size_t n, double s)
{
	_cleanup_(freep) double *cdf = NULL;
	_cleanup_(freep) uint32_t *guide = NULL;
	double sum = 0.0, c = 0.0;

	if (!z || n == 0 || !(s >= 0.0 && s <= PMEMRAM_CACHEMODEL_MAX_ZIPF_S))
		return -EINVAL;
	if (n > PMEMRAM_CACHEMODEL_MAX_PAGES)
		return -E2BIG;

	cdf = calloc(n, sizeof(*cdf));
	guide = calloc(n, sizeof(*guide));
	if (!cdf || !guide)
		return -ENOMEM;

	/* Prefix sums of (k + 1)^-s, compensated (Kahan): the tail terms are tiny next to the head. */
	for (size_t k = 0; k < n; k++) {
		double w = s == 1.0 ? 1.0 / (double)(k + 1) : pow((double)(k + 1), -s);
		double y = w - c, t = sum + y;

		c = (t - sum) - y;
		sum = t;
		cdf[k] = sum;
	}
	/* Dividing a non-decreasing sequence by its last element keeps it non-decreasing and <= 1. */
	for (size_t k = 0; k < n; k++)
		cdf[k] /= sum;
	cdf[n - 1] = 1.0;

	/* cdf[n - 1] = 1 > j / n for every j < n, so k stays below n. */
	for (size_t j = 0, k = 0; j < n; j++) {
		double t = (double)j / (double)n;

		while (cdf[k] <= t)
			k++;
		guide[j] = (uint32_t)k;
	}

	*z = (struct pmemram_zipf){ .n = n, .s = s, .cdf = TAKE_PTR(cdf), .guide = TAKE_PTR(guide) };
	return 0;
}

void pmemram_zipf_done(struct pmemram_zipf *z)
{
	if (!z)
		return;
	free(z->cdf);
	free(z->guide);
	*z = (struct pmemram_zipf){};
}

double pmemram_zipf_probability(const struct pmemram_zipf *z, size_t k)
{
	if (k >= z->n)
		return 0.0;
	return k == 0 ? z->cdf[0] : z->cdf[k] - z->cdf[k - 1];
}

size_t pmemram_zipf_sample(const struct pmemram_zipf *z, struct pmemram_rng *rng)
{
	double u = pmemram_rng_double(rng);
	size_t j = (size_t)(u * (double)z->n), lo, hi;

	/* u in [j/n, (j+1)/n): the answer is in [guide[j], guide[j + 1]], and in [guide[n - 1], n - 1]
	 * for the last bucket.  Rounding in u * n may pick a neighbouring bucket: then widen. */
	if (j >= z->n)
		j = z->n - 1;
	lo = z->guide[j];
	hi = j + 1 < z->n ? z->guide[j + 1] : z->n - 1;
	if (lo > 0 && z->cdf[lo - 1] > u)
		lo = 0;
	if (z->cdf[hi] <= u)
		hi = z->n - 1; /* cdf[n - 1] == 1 > u */

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (u < z->cdf[mid])
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* ---- the two caches ------------------------------------------------------------------------ */

/* What the model keeps per page, in one 16-byte record: one cache line per access. */
struct page_state {
	uint32_t slot;	 /* number of its slot among the used ones */
	uint32_t prev;	 /* LRU list neighbours, NIL at the ends */
	uint32_t next;
	uint32_t in_lru; /* 1 when in the LRU cache */
};

struct model {
	size_t n;
	struct page_state *pages;
	uint64_t n_used;       /* slots used */
	uint32_t *dm;	       /* used slot -> page + 1 it holds, 0 when empty */
	uint64_t lru_capacity; /* min(slots, n): with S >= n the LRU cache never evicts */
	uint64_t lru_size;
	uint32_t head, tail; /* most and least recently used page, NIL when empty */
	uint64_t accesses, dm_misses, lru_misses;
};

static void model_done(struct model *m)
{
	free(m->pages);
	free(m->dm);
	*m = (struct model){};
}

/* Both caches empty, counters zero. */
static void model_reset(struct model *m)
{
	memset(m->dm, 0, m->n_used * sizeof(*m->dm));
	for (size_t i = 0; i < m->n; i++)
		m->pages[i].in_lru = 0;
	m->lru_size = 0;
	m->head = m->tail = NIL;
	m->accesses = m->dm_misses = m->lru_misses = 0;
}

static int model_init(struct model *m, const uint64_t *pfns, size_t n, uint64_t slots)
{
	_cleanup_(freep) uint32_t *slot_of = NULL;
	int r;

	*m = (struct model){ .n = n, .lru_capacity = slots < n ? slots : n };
	slot_of = calloc(n, sizeof(*slot_of));
	if (!slot_of)
		return -ENOMEM;
	r = compact_slots(pfns, n, slots, slot_of, &m->n_used);
	if (r < 0)
		return r;

	m->pages = calloc(n, sizeof(*m->pages));
	m->dm = calloc(m->n_used, sizeof(*m->dm));
	if (!m->pages || !m->dm) {
		model_done(m);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		m->pages[i] = (struct page_state){ .slot = slot_of[i], .prev = NIL, .next = NIL };
	model_reset(m);
	return 0;
}

static void lru_unlink(struct model *m, struct page_state *p)
{
	if (p->prev != NIL)
		m->pages[p->prev].next = p->next;
	else
		m->head = p->next;
	if (p->next != NIL)
		m->pages[p->next].prev = p->prev;
	else
		m->tail = p->prev;
}

static void lru_push_front(struct model *m, uint32_t i)
{
	struct page_state *p = &m->pages[i];

	p->prev = NIL;
	p->next = m->head;
	if (m->head != NIL)
		m->pages[m->head].prev = i;
	else
		m->tail = i;
	m->head = i;
}

/* One access to page i (< n) in both caches. */
static void model_access(struct model *m, uint32_t i)
{
	struct page_state *p = &m->pages[i];
	uint32_t *slot = &m->dm[p->slot];

	m->accesses++;

	/* Direct-mapped: the slot holds one page; any other page there is evicted. */
	if (*slot != i + 1) {
		m->dm_misses++;
		*slot = i + 1;
	}

	/* Fully associative LRU: a hit moves the page to the front; a miss evicts the tail when full. */
	if (p->in_lru) {
		if (m->head != i) {
			lru_unlink(m, p);
			lru_push_front(m, i);
		}
		return;
	}
	m->lru_misses++;
	if (m->lru_size == m->lru_capacity) {
		struct page_state *victim = &m->pages[m->tail];

		lru_unlink(m, victim);
		victim->in_lru = 0;
		m->lru_size--;
	}
	lru_push_front(m, i);
	p->in_lru = 1;
	m->lru_size++;
}

static void model_result(const struct model *m, struct pmemram_cachemodel_sim *ret)
{
	double k = (double)m->accesses;

	*ret = (struct pmemram_cachemodel_sim){
		.accesses = m->accesses,
		.dm_misses = m->dm_misses,
		.lru_misses = m->lru_misses,
		.dm_miss_rate = (double)m->dm_misses / k,
		.lru_miss_rate = (double)m->lru_misses / k,
		/* Both counts are below 2^53, so the difference is exact and may be negative. */
		.conflict_rate = ((double)m->dm_misses - (double)m->lru_misses) / k,
	};
}

int pmemram_cachemodel_simulate(const uint64_t *pfns, size_t n, uint64_t slots, const size_t *trace,
				size_t n_accesses, struct pmemram_cachemodel_sim *ret)
{
	_cleanup_(model_done) struct model m = {};
	int r;

	if (!ret || !trace || n_accesses == 0)
		return -EINVAL;
	r = check_pages(pfns, n, slots);
	if (r < 0)
		return r;
	if (n_accesses > PMEMRAM_CACHEMODEL_MAX_ACCESSES)
		return -ERANGE;
	for (size_t i = 0; i < n_accesses; i++)
		if (trace[i] >= n)
			return -EINVAL;

	r = model_init(&m, pfns, n, slots);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n_accesses; i++)
		model_access(&m, (uint32_t)trace[i]);
	model_result(&m, ret);
	return 0;
}

/* Uniform: every access page rng_below(n). */
static void run_uniform(struct model *m, uint64_t seed, uint64_t accesses)
{
	struct pmemram_rng rng;

	model_reset(m);
	pmemram_rng_init(&rng, seed);
	for (uint64_t i = 0; i < accesses; i++)
		model_access(m, (uint32_t)pmemram_rng_below(&rng, m->n));
}

/* Zipf: ranks dealt to pages by a Fisher-Yates shuffle, then every access the page of a Zipf rank. */
static int run_zipf(struct model *m, uint64_t seed, uint64_t accesses, double s)
{
	_cleanup_(pmemram_zipf_done) struct pmemram_zipf z = {};
	_cleanup_(freep) uint32_t *page_of_rank = NULL;
	struct pmemram_rng rng;
	int r;

	r = pmemram_zipf_init(&z, m->n, s);
	if (r < 0)
		return r;
	page_of_rank = calloc(m->n, sizeof(*page_of_rank));
	if (!page_of_rank)
		return -ENOMEM;

	model_reset(m);
	pmemram_rng_init(&rng, seed);
	for (size_t i = 0; i < m->n; i++)
		page_of_rank[i] = (uint32_t)i;
	for (size_t i = m->n - 1; i > 0; i--) {
		size_t j = (size_t)pmemram_rng_below(&rng, i + 1);
		uint32_t t = page_of_rank[i];

		page_of_rank[i] = page_of_rank[j];
		page_of_rank[j] = t;
	}
	for (uint64_t i = 0; i < accesses; i++)
		model_access(m, page_of_rank[pmemram_zipf_sample(&z, &rng)]);
	return 0;
}

int pmemram_cachemodel_run(const uint64_t *pfns, size_t n, uint64_t slots,
			   const struct pmemram_cachemodel_options *options, struct pmemram_cachemodel_report *ret)
{
	const struct pmemram_cachemodel_options o = options ? *options : PMEMRAM_CACHEMODEL_OPTIONS_INIT;
	_cleanup_(model_done) struct model m = {};
	struct pmemram_cachemodel_report report;
	uint64_t accesses;
	int r;

	if (!ret)
		return -EINVAL;
	r = check_pages(pfns, n, slots);
	if (r < 0)
		return r;
	if (!(o.zipf_s >= 0.0 && o.zipf_s <= PMEMRAM_CACHEMODEL_MAX_ZIPF_S))
		return -EINVAL;
	if (o.accesses > PMEMRAM_CACHEMODEL_MAX_ACCESSES)
		return -ERANGE;
	accesses = o.accesses;
	if (accesses == 0) {
		accesses = (uint64_t)n * PMEMRAM_CACHEMODEL_ACCESSES_PER_PAGE;
		if (accesses > PMEMRAM_CACHEMODEL_MAX_ACCESSES)
			accesses = PMEMRAM_CACHEMODEL_MAX_ACCESSES;
	}

	r = model_init(&m, pfns, n, slots);
	if (r < 0)
		return r;

	report = (struct pmemram_cachemodel_report){
		.pages = n,
		.slots = slots,
		.distinct_slots = m.n_used,
		.ideal_slots = slots < n ? slots : n,
		.expected_random_slots = pmemram_cachemodel_expected_slots(n, slots),
		.seed = o.seed,
		.zipf_s = o.zipf_s,
	};

	run_uniform(&m, o.seed, accesses);
	model_result(&m, &report.uniform);

	r = run_zipf(&m, o.seed, accesses, o.zipf_s);
	if (r < 0)
		return r;
	model_result(&m, &report.zipf);

	*ret = report;
	return 0;
}
