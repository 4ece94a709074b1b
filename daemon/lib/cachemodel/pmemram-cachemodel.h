/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Model of a direct-mapped memory-side cache over a set of resident physical pages, no I/O. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The cache is modelled at page granularity.  A direct-mapped memory-side cache (HMAT, e.g. DRAM in
 * front of pmem in 2LM) of C bytes is indexed by physical address: with a line size L the line at
 * physical address a lives in set (a / L) mod (C / L).  With page size P, C a multiple of P and L
 * dividing P, the S = C / P "page slots" partition the sets: the lines of page frame f, at
 * a = f * P + off, land in sets (f mod S) * (P / L) + off / L, because
 * (f * P / L) mod (S * P / L) = (f mod S) * (P / L).  So two pages compete for the same lines iff
 * f == g (mod S), all of their lines or none, and frame f occupies page slot f mod S.
 *
 * The model needs distinct frame numbers (PFNs) of pages in the memory behind one node's cache;
 * callers merging several processes dedupe first with pmemram_cachemodel_unique().
 * Memory use is O(pages), never O(slots): at most about 40 bytes per page while a model runs
 * (690 MB at the page limit).  Time is O(accesses): each access touches a few random cache lines
 * of those arrays, some 100-250 ns once they outgrow the CPU caches: a run at the limits
 * (2 patterns of 2^26 accesses) takes tens of seconds, one of a million pages with the default
 * 20 accesses per page some 5-10 s.
 */

#define PMEMRAM_CACHEMODEL_MAX_PAGES (UINT64_C(1) << 24)    /* 64 GiB of 4 KiB pages; -E2BIG above */
#define PMEMRAM_CACHEMODEL_MAX_SLOTS (UINT64_C(1) << 48)    /* exact in a double; -ERANGE above */
#define PMEMRAM_CACHEMODEL_MAX_ACCESSES (UINT64_C(1) << 26) /* per simulated pattern; -ERANGE above */
#define PMEMRAM_CACHEMODEL_ACCESSES_PER_PAGE 20		    /* default trace length: 20 * pages, capped */
#define PMEMRAM_CACHEMODEL_MAX_ZIPF_S 10.0		    /* Zipf exponent in [0, 10]; -EINVAL outside */
#define PMEMRAM_CACHEMODEL_ZIPF_S 1.0			    /* default exponent */
#define PMEMRAM_CACHEMODEL_SEED UINT64_C(0x00706d656d72616d) /* "pmemram": the fixed default seed */

/* S = cache_size / page_size.  -EINVAL unless page_size is a power of two and cache_size a non-zero
 * multiple of it; -ERANGE above PMEMRAM_CACHEMODEL_MAX_SLOTS. */
int pmemram_cachemodel_slots(uint64_t cache_size, uint64_t page_size, uint64_t *ret_slots);

/* Sort pfns[0..*n) and drop duplicates (frames shared by several processes); *n shrinks.
 * -E2BIG above PMEMRAM_CACHEMODEL_MAX_PAGES (nothing changed). */
int pmemram_cachemodel_unique(uint64_t *pfns, size_t *n);

/* Distinct slots (pfn mod slots) the pages use.  -EINVAL when n or slots is 0, a pointer is NULL
 * or a PFN repeats; -E2BIG / -ERANGE above the limits. */
int pmemram_cachemodel_distinct_slots(const uint64_t *pfns, size_t n, uint64_t slots, uint64_t *ret);

/* Slot occupancy: counts[k] slots hold exactly k of the pages, for k < n_counts - 1, and
 * counts[n_counts - 1] hold n_counts - 1 or more; counts[0] is the unused slots.  The counts sum
 * to slots.  -EINVAL when n_counts < 2, counts is NULL or as pmemram_cachemodel_distinct_slots(). */
int pmemram_cachemodel_occupancy(const uint64_t *pfns, size_t n, uint64_t slots, uint64_t *counts, size_t n_counts);

/* Expected number of slots holding exactly k of n pages placed uniformly at random into slots
 * slots: S * C(n, k) (1/S)^k (1 - 1/S)^(n - k), computed in logarithms.  0 when slots is 0. */
double pmemram_cachemodel_expected_occupancy(uint64_t n, uint64_t slots, uint64_t k);

/* Expected distinct slots of n pages placed uniformly at random into slots slots:
 * S * (1 - (1 - 1/S)^n), computed without cancellation.  0 when n or slots is 0. */
double pmemram_cachemodel_expected_slots(uint64_t n, uint64_t slots);

/* ---- deterministic random numbers: splitmix64 ------------------------------------------ */

struct pmemram_rng {
	uint64_t state;
};

void pmemram_rng_init(struct pmemram_rng *rng, uint64_t seed);
uint64_t pmemram_rng_next(struct pmemram_rng *rng);
/* Uniform in [0, bound), without modulo bias; 0 when bound is 0. */
uint64_t pmemram_rng_below(struct pmemram_rng *rng, uint64_t bound);
/* Uniform in [0, 1), 53 random bits. */
double pmemram_rng_double(struct pmemram_rng *rng);

/* ---- Zipf: rank k (0-based) of n items with probability (k + 1)^-s / H(n, s) ------------- */

struct pmemram_zipf {
	size_t n;
	double s;
	double *cdf;	 /* cdf[k] = P(rank <= k); cdf[n - 1] == 1 exactly */
	uint32_t *guide; /* guide[j] = first k with cdf[k] > j / n: where a search for u in [j/n, (j+1)/n) starts */
};

/* -EINVAL when n is 0 or s is not in [0, PMEMRAM_CACHEMODEL_MAX_ZIPF_S]; -E2BIG above
 * PMEMRAM_CACHEMODEL_MAX_PAGES items; -ENOMEM. */
int pmemram_zipf_init(struct pmemram_zipf *z, size_t n, double s);
void pmemram_zipf_done(struct pmemram_zipf *z);
/* P(rank == k), from the CDF; 0 when k >= n. */
double pmemram_zipf_probability(const struct pmemram_zipf *z, size_t k);
/* One rank in [0, n): the first k with u < cdf[k], u = pmemram_rng_double().  The guide table
 * narrows the binary search to about one CDF step (Chen and Asau's indexed search). */
size_t pmemram_zipf_sample(const struct pmemram_zipf *z, struct pmemram_rng *rng);

/* ---- simulation -------------------------------------------------------------------------- */

/* Misses of a direct-mapped cache (each slot holds one page) and of a fully associative LRU cache
 * with as many entries, both starting empty, over the same accesses.  conflict_rate is
 * (dm_misses - lru_misses) / accesses: the misses due to placement.  It may be negative, as LRU
 * does worse than direct mapping on a loop a little larger than the cache. */
struct pmemram_cachemodel_sim {
	uint64_t accesses;
	uint64_t dm_misses;
	uint64_t lru_misses;
	double dm_miss_rate;
	double lru_miss_rate;
	double conflict_rate;
};

/* Replay trace[0..n_accesses), each an index into pfns[0..n).  -EINVAL when n, slots or n_accesses
 * is 0, a pointer is NULL, an index is >= n or a PFN repeats; -E2BIG / -ERANGE above the limits. */
int pmemram_cachemodel_simulate(const uint64_t *pfns, size_t n, uint64_t slots, const size_t *trace,
				size_t n_accesses, struct pmemram_cachemodel_sim *ret);

struct pmemram_cachemodel_options {
	uint64_t seed;	   /* both patterns restart from it */
	uint64_t accesses; /* per pattern; 0: ACCESSES_PER_PAGE * pages, capped at MAX_ACCESSES */
	double zipf_s;	   /* Zipf exponent */
};

#define PMEMRAM_CACHEMODEL_OPTIONS_INIT                                                         \
	((struct pmemram_cachemodel_options){ .seed = PMEMRAM_CACHEMODEL_SEED, .accesses = 0, \
					      .zipf_s = PMEMRAM_CACHEMODEL_ZIPF_S })

struct pmemram_cachemodel_report {
	uint64_t pages;
	uint64_t slots;
	uint64_t distinct_slots;	 /* slots the pages use */
	uint64_t ideal_slots;		 /* min(pages, slots): the best any placement can do */
	double expected_random_slots;	 /* pmemram_cachemodel_expected_slots(pages, slots) */
	uint64_t seed;			 /* as used */
	double zipf_s;			 /* as used */
	struct pmemram_cachemodel_sim uniform; /* every resident page equally likely */
	struct pmemram_cachemodel_sim zipf;    /* Zipf(s) over the pages, ranks shuffled over them */
};

/*
 * The whole model for the pages behind one node's cache; options NULL for the defaults.
 * Uniform: pmemram_rng_init(seed), then each access is page pmemram_rng_below(n).
 * Zipf: pmemram_rng_init(seed), a Fisher-Yates shuffle assigns ranks to pages (so hotness does
 * not follow physical address), then each access is the page of rank pmemram_zipf_sample().
 * Errors as pmemram_cachemodel_simulate(), -ERANGE for accesses above the limit, -EINVAL for a bad
 * zipf_s, -ENOMEM; *ret is written only on success.
 */
int pmemram_cachemodel_run(const uint64_t *pfns, size_t n, uint64_t slots,
			   const struct pmemram_cachemodel_options *options, struct pmemram_cachemodel_report *ret);
