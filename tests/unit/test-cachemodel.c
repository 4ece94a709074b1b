/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the direct-mapped cache model: hand-computed occupancy, traces, RNG and Zipf. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "macro.h"
#include "pmemram-cachemodel.h"

#define GiB (UINT64_C(1) << 30)
#define PAGE UINT64_C(4096)

/* Doubles computed by a few exact or correctly rounded operations. */
#define assert_double_near(a, b, eps)                                                          \
	do {                                                                                   \
		double _a_ = (a), _b_ = (b);                                                   \
		if (!(fabs(_a_ - _b_) <= (eps)))                                               \
			fail_msg("%s = %.17g, expected %.17g (+-%g)", #a, _a_, _b_, (double)(eps)); \
	} while (0)

static void expect_sim(const struct pmemram_cachemodel_sim *s, uint64_t accesses, uint64_t dm, uint64_t lru)
{
	assert_int_equal(s->accesses, accesses);
	assert_int_equal(s->dm_misses, dm);
	assert_int_equal(s->lru_misses, lru);
	assert_double_near(s->dm_miss_rate, (double)dm / (double)accesses, 1e-15);
	assert_double_near(s->lru_miss_rate, (double)lru / (double)accesses, 1e-15);
	assert_double_near(s->conflict_rate, ((double)dm - (double)lru) / (double)accesses, 1e-15);
}

static void test_slots(void **state)
{
	uint64_t s = 0;

	/* 16 GiB / 4 KiB = 2^34 / 2^12 = 2^22 = 4194304 page slots. */
	assert_int_equal(pmemram_cachemodel_slots(16 * GiB, PAGE, &s), 0);
	assert_int_equal(s, 4194304);
	/* 2 MiB pages: 2^34 / 2^21 = 2^13. */
	assert_int_equal(pmemram_cachemodel_slots(16 * GiB, 2 << 20, &s), 0);
	assert_int_equal(s, 8192);
	/* 48 GiB (not a power of two) is fine: 48 * 2^30 / 2^12 = 48 * 2^18 = 12582912. */
	assert_int_equal(pmemram_cachemodel_slots(48 * GiB, PAGE, &s), 0);
	assert_int_equal(s, 12582912);
	/* The limit: 2^60 / 2^12 = 2^48 is allowed, 2^61 / 2^12 = 2^49 is not. */
	assert_int_equal(pmemram_cachemodel_slots(UINT64_C(1) << 60, PAGE, &s), 0);
	assert_int_equal(s, PMEMRAM_CACHEMODEL_MAX_SLOTS);
	s = 7;
	assert_int_equal(pmemram_cachemodel_slots(UINT64_C(1) << 61, PAGE, &s), -ERANGE);
	assert_int_equal(pmemram_cachemodel_slots(0, PAGE, &s), -EINVAL);
	assert_int_equal(pmemram_cachemodel_slots(PAGE + 1, PAGE, &s), -EINVAL);
	assert_int_equal(pmemram_cachemodel_slots(PAGE / 2, PAGE, &s), -EINVAL);
	assert_int_equal(pmemram_cachemodel_slots(16 * GiB, 0, &s), -EINVAL);
	assert_int_equal(pmemram_cachemodel_slots(16 * GiB, 3000, &s), -EINVAL);
	assert_int_equal(pmemram_cachemodel_slots(16 * GiB, PAGE, NULL), -EINVAL);
	assert_int_equal(s, 7);
}

static void test_unique(void **state)
{
	uint64_t pfns[] = { 5, 3, 5, 1, 3, UINT64_MAX, 1 };
	size_t n = ELEMENTSOF(pfns);

	assert_int_equal(pmemram_cachemodel_unique(pfns, &n), 0);
	assert_int_equal(n, 4);
	assert_int_equal(pfns[0], 1);
	assert_int_equal(pfns[1], 3);
	assert_int_equal(pfns[2], 5);
	assert_int_equal(pfns[3], UINT64_MAX);

	n = 0;
	assert_int_equal(pmemram_cachemodel_unique(NULL, &n), 0);
	assert_int_equal(n, 0);
	n = 1;
	assert_int_equal(pmemram_cachemodel_unique(NULL, &n), -EINVAL);
	assert_int_equal(pmemram_cachemodel_unique(pfns, NULL), -EINVAL);
	n = PMEMRAM_CACHEMODEL_MAX_PAGES + 1; /* refused before anything is read */
	assert_int_equal(pmemram_cachemodel_unique(pfns, &n), -E2BIG);
	assert_int_equal(n, PMEMRAM_CACHEMODEL_MAX_PAGES + 1);
}

static void test_distinct_slots(void **state)
{
	const uint64_t same[] = { 0, 4, 8, 12 }, spread[] = { 0, 1, 2, 3 }, six[] = { 0, 1, 2, 3, 4, 5 };
	const uint64_t pairs[] = { 0, 4, 1, 5, 9 }, dup[] = { 1, 5, 1 };
	const uint64_t top[] = { UINT64_MAX, PMEMRAM_CACHEMODEL_MAX_SLOTS - 1 };
	uint64_t d = 0;

	/* S = 4: 0, 4, 8, 12 mod 4 are all 0 -> 1 slot used; ideal min(4, 4) = 4. */
	assert_int_equal(pmemram_cachemodel_distinct_slots(same, 4, 4, &d), 0);
	assert_int_equal(d, 1);
	/* 0..3 mod 4 -> slots 0, 1, 2, 3. */
	assert_int_equal(pmemram_cachemodel_distinct_slots(spread, 4, 4, &d), 0);
	assert_int_equal(d, 4);
	/* n > S: 0..5 mod 4 -> 0, 1, 2, 3, 0, 1: 4 slots (= ideal min(6, 4)). */
	assert_int_equal(pmemram_cachemodel_distinct_slots(six, 6, 4, &d), 0);
	assert_int_equal(d, 4);
	/* 0, 4, 1, 5, 9 mod 4 -> 0, 0, 1, 1, 1: 2 slots. */
	assert_int_equal(pmemram_cachemodel_distinct_slots(pairs, 5, 4, &d), 0);
	assert_int_equal(d, 2);
	/* One slot holds everything: S = 1. */
	assert_int_equal(pmemram_cachemodel_distinct_slots(six, 6, 1, &d), 0);
	assert_int_equal(d, 1);
	/* S larger than any PFN: every page its own slot. */
	assert_int_equal(pmemram_cachemodel_distinct_slots(pairs, 5, 1000, &d), 0);
	assert_int_equal(d, 5);
	/* S = 2^48: 2^64 - 1 mod 2^48 = 2^48 - 1, the same slot as 2^48 - 1 itself. */
	assert_int_equal(pmemram_cachemodel_distinct_slots(top, 2, PMEMRAM_CACHEMODEL_MAX_SLOTS, &d), 0);
	assert_int_equal(d, 1);

	d = 42;
	assert_int_equal(pmemram_cachemodel_distinct_slots(dup, 3, 4, &d), -EINVAL);
	assert_int_equal(pmemram_cachemodel_distinct_slots(same, 0, 4, &d), -EINVAL);
	assert_int_equal(pmemram_cachemodel_distinct_slots(same, 4, 0, &d), -EINVAL);
	assert_int_equal(pmemram_cachemodel_distinct_slots(NULL, 4, 4, &d), -EINVAL);
	assert_int_equal(pmemram_cachemodel_distinct_slots(same, 4, 4, NULL), -EINVAL);
	assert_int_equal(pmemram_cachemodel_distinct_slots(same, PMEMRAM_CACHEMODEL_MAX_PAGES + 1, 4, &d), -E2BIG);
	assert_int_equal(pmemram_cachemodel_distinct_slots(same, 4, PMEMRAM_CACHEMODEL_MAX_SLOTS + 1, &d), -ERANGE);
	assert_int_equal(d, 42);
}

static void test_occupancy(void **state)
{
	const uint64_t pairs[] = { 0, 4, 1, 5, 9 }, six[] = { 0, 1, 2, 3, 4, 5 }, dup[] = { 1, 5, 1 };
	uint64_t c[4] = { 0 }, two[2] = { 0 };

	/* 0, 4, 1, 5, 9 mod 4 -> slot 0 holds 2 pages, slot 1 holds 3, slots 2 and 3 none. */
	assert_int_equal(pmemram_cachemodel_occupancy(pairs, 5, 4, c, 4), 0);
	assert_int_equal(c[0], 2);
	assert_int_equal(c[1], 0);
	assert_int_equal(c[2], 1);
	assert_int_equal(c[3], 1);
	/* The last count takes the slots of that many pages or more: 2 and 3 pages -> "1 or more". */
	assert_int_equal(pmemram_cachemodel_occupancy(pairs, 5, 4, two, 2), 0);
	assert_int_equal(two[0], 2);
	assert_int_equal(two[1], 2);
	/* 0..5 mod 4 -> 2, 2, 1, 1; a large cache: 5 slots of one page, the rest empty. */
	assert_int_equal(pmemram_cachemodel_occupancy(six, 6, 4, c, 4), 0);
	assert_int_equal(c[0], 0);
	assert_int_equal(c[1], 2);
	assert_int_equal(c[2], 2);
	assert_int_equal(c[3], 0);
	assert_int_equal(pmemram_cachemodel_occupancy(pairs, 5, PMEMRAM_CACHEMODEL_MAX_SLOTS, c, 4), 0);
	assert_int_equal(c[0], PMEMRAM_CACHEMODEL_MAX_SLOTS - 5);
	assert_int_equal(c[1], 5);
	assert_int_equal(c[2] + c[3], 0);

	assert_int_equal(pmemram_cachemodel_occupancy(dup, 3, 4, c, 4), -EINVAL);
	assert_int_equal(pmemram_cachemodel_occupancy(pairs, 5, 4, c, 1), -EINVAL);
	assert_int_equal(pmemram_cachemodel_occupancy(pairs, 5, 4, NULL, 4), -EINVAL);
	assert_int_equal(pmemram_cachemodel_occupancy(pairs, 5, 0, c, 4), -EINVAL);
}

static void test_expected_occupancy(void **state)
{
	double sum = 0.0;

	/* S = 4, n = 4: 4 * (3/4)^4 = 81/64 empty; 4 * 4 * (1/4) * (3/4)^3 = 27/16 with one page. */
	assert_double_near(pmemram_cachemodel_expected_occupancy(4, 4, 0), 81.0 / 64.0, 1e-12);
	assert_double_near(pmemram_cachemodel_expected_occupancy(4, 4, 1), 27.0 / 16.0, 1e-12);
	/* 4 * (1/4)^4 = 1/64 slots with all four. */
	assert_double_near(pmemram_cachemodel_expected_occupancy(4, 4, 4), 1.0 / 64.0, 1e-12);
	assert_double_near(pmemram_cachemodel_expected_occupancy(4, 4, 5), 0.0, 0.0);
	/* The expectations over k sum to the slots, and the empty ones are S - expected_slots(). */
	for (uint64_t k = 0; k <= 1000; k++)
		sum += pmemram_cachemodel_expected_occupancy(1000, 300, k);
	assert_double_near(sum, 300.0, 1e-9);
	assert_double_near(pmemram_cachemodel_expected_occupancy(1000, 300, 0),
			   300.0 - pmemram_cachemodel_expected_slots(1000, 300), 1e-9);
	assert_double_near(pmemram_cachemodel_expected_occupancy(6, 1, 6), 1.0, 0.0);
	assert_double_near(pmemram_cachemodel_expected_occupancy(6, 1, 2), 0.0, 0.0);
	assert_double_near(pmemram_cachemodel_expected_occupancy(6, 0, 0), 0.0, 0.0);
}

static void test_expected_slots(void **state)
{
	/* S = 4, n = 4: 4 * (1 - (3/4)^4) = 4 * (1 - 81/256) = 4 * 175/256 = 175/64 = 2.734375. */
	assert_double_near(pmemram_cachemodel_expected_slots(4, 4), 2.734375, 1e-14);
	/* n = 1: 4 * (1 - 3/4) = 1. */
	assert_double_near(pmemram_cachemodel_expected_slots(1, 4), 1.0, 1e-15);
	/* S = 2, n = 3: 2 * (1 - 1/8) = 1.75. */
	assert_double_near(pmemram_cachemodel_expected_slots(3, 2), 1.75, 1e-15);
	/* n > S: 4 * (1 - (3/4)^1000) = 4 to within 4 * 10^-124. */
	assert_double_near(pmemram_cachemodel_expected_slots(1000, 4), 4.0, 1e-15);
	/* S = 1: one slot, used as soon as there is a page. */
	assert_double_near(pmemram_cachemodel_expected_slots(5, 1), 1.0, 0.0);
	assert_double_near(pmemram_cachemodel_expected_slots(0, 4), 0.0, 0.0);
	assert_double_near(pmemram_cachemodel_expected_slots(4, 0), 0.0, 0.0);
	/*
	 * n = 2^24 pages in S = 2^48 slots, where 1 - (1 - 1/S)^n cancels: the series
	 * n - C(n,2)/S + C(n,3)/S^2 - ... = 2^24 - (2^24 (2^24 - 1) / 2) / 2^48 + O(2^-26)
	 * = 16777216 - 0.5 + 2^-25 + O(2^-26) = 16777215.5000000397 (60-digit decimal arithmetic).
	 */
	assert_double_near(pmemram_cachemodel_expected_slots(UINT64_C(1) << 24, UINT64_C(1) << 48),
			   16777215.5000000397, 1e-7);
	/* n = S = 2^20: S (1 - (1 - 1/S)^S) ~ S (1 - 1/e) = 662826.6 (1/e to within 1/(2S)). */
	assert_double_near(pmemram_cachemodel_expected_slots(1 << 20, 1 << 20), 1048576 * (1 - exp(-1.0)), 0.5);
}

/* Inverse of x ^= x >> shift. */
static uint64_t unxorshift(uint64_t y, unsigned shift)
{
	uint64_t x = y;

	for (unsigned k = shift; k < 64; k += shift)
		x ^= y >> k;
	return x;
}

/* Inverse of an odd multiplier mod 2^64 by Newton's iteration (each step doubles the good bits;
 * a * a = 1 mod 8 gives 3 to start with). */
static uint64_t inverse_u64(uint64_t a)
{
	uint64_t x = a;

	for (int i = 0; i < 5; i++)
		x *= 2 - a * x;
	return x;
}

/* Set the state so that the next pmemram_rng_next() returns x: splitmix64's output function is a
 * bijection, so undo it and the state increment. */
static void rng_force(struct pmemram_rng *rng, uint64_t x)
{
	uint64_t z = unxorshift(x, 31);

	z = unxorshift(z * inverse_u64(UINT64_C(0x94d049bb133111eb)), 27);
	z = unxorshift(z * inverse_u64(UINT64_C(0xbf58476d1ce4e5b9)), 30);
	rng->state = z - UINT64_C(0x9e3779b97f4a7c15);
}

/* The next pmemram_rng_double() returns m * 2^-53 (m < 2^53). */
static void rng_force_u(struct pmemram_rng *rng, uint64_t m)
{
	rng_force(rng, m << 11);
}

static void test_rng(void **state)
{
	struct pmemram_rng a, b;
	unsigned counts[3] = {};
	uint64_t second;

	/* splitmix64's published first outputs for seed 0. */
	pmemram_rng_init(&a, 0);
	assert_int_equal(pmemram_rng_next(&a), UINT64_C(0xe220a8397b1dcdaf));
	assert_int_equal(pmemram_rng_next(&a), UINT64_C(0x6e789e6aa1b965f4));
	assert_int_equal(pmemram_rng_next(&a), UINT64_C(0x06c45d188009454f));
	/* The default seed's, pinned so that reports stay comparable between versions
	 * (computed with an independent Python splitmix64). */
	pmemram_rng_init(&a, PMEMRAM_CACHEMODEL_SEED);
	assert_int_equal(pmemram_rng_next(&a), UINT64_C(0x804db17ba8163c2e));
	assert_int_equal(pmemram_rng_next(&a), UINT64_C(0xa6de8eb9682a859c));
	assert_int_equal(pmemram_rng_next(&a), UINT64_C(0x8590fde31bc28367));

	/* Same seed, same stream; another seed, another stream. */
	pmemram_rng_init(&a, 12345);
	pmemram_rng_init(&b, 12345);
	for (int i = 0; i < 1000; i++)
		assert_int_equal(pmemram_rng_next(&a), pmemram_rng_next(&b));
	pmemram_rng_init(&b, 12346);
	assert_int_not_equal(pmemram_rng_next(&a), pmemram_rng_next(&b));

	/* Doubles: (x >> 11) * 2^-53; 0x804db17ba8163c2e >> 11 = 0x1009b62f7502c7, over 2^53
	 * = 4514277712265927 / 9007199254740992 = 0.50118550... */
	pmemram_rng_init(&a, PMEMRAM_CACHEMODEL_SEED);
	assert_double_near(pmemram_rng_double(&a), (double)UINT64_C(0x1009b62f7502c7) / 9007199254740992.0, 0.0);
	for (int i = 0; i < 10000; i++) {
		double u = pmemram_rng_double(&a);

		assert_true(u >= 0.0 && u < 1.0);
	}

	/* Bounded: 0x804db17ba8163c2e = 9245240754720619566, mod 10 = 6 (far above 2^64 mod 10 = 6, kept). */
	pmemram_rng_init(&a, PMEMRAM_CACHEMODEL_SEED);
	assert_int_equal(pmemram_rng_below(&a, 10), 6);
	assert_int_equal(pmemram_rng_below(&a, 0), 0);
	assert_int_equal(pmemram_rng_below(&a, 1), 0);
	/* 30000 draws below 3: each residue 10000 times, to within 3 standard deviations (3 * 81.6). */
	for (int i = 0; i < 30000; i++) {
		uint64_t x = pmemram_rng_below(&a, 3);

		assert_true(x < 3);
		counts[x]++;
	}
	for (int i = 0; i < 3; i++)
		assert_true(counts[i] > 10000 - 245 && counts[i] < 10000 + 245);
	/* Forcing outputs (for the tests of the users) works: */
	rng_force(&a, UINT64_C(0x0123456789abcdef));
	assert_int_equal(pmemram_rng_next(&a), UINT64_C(0x0123456789abcdef));
	rng_force(&a, 0);
	assert_int_equal(pmemram_rng_next(&a), 0);
	/* Rejection: 2^64 mod 3 = 1 (2^64 = 4^32 = 1 mod 3), so a draw of 0 is rejected (it would make
	 * residue 0 one value more likely) and the draw after it is used instead. */
	rng_force(&a, 0);
	b = a;
	assert_int_equal(pmemram_rng_next(&b), 0);
	second = pmemram_rng_next(&b);
	assert_int_not_equal(second % 3, 0); /* else the test could not tell */
	assert_int_equal(pmemram_rng_below(&a, 3), second % 3);
	assert_int_equal(a.state, b.state);
	/* With bound 4, 2^64 mod 4 = 0: nothing is rejected, 1 gives 1. */
	rng_force(&a, 1);
	assert_int_equal(pmemram_rng_below(&a, 4), 1);
	/* Bounds above 2^63 reject most draws below 2^64 mod bound but still terminate. */
	for (int i = 0; i < 100; i++)
		assert_true(pmemram_rng_below(&a, UINT64_MAX - 1) < UINT64_MAX - 1);
}

static void test_zipf(void **state)
{
	_cleanup_(pmemram_zipf_done) struct pmemram_zipf z = {};
	/* guide[j] = first k with cdf[k] > j/3: j = 0 -> 0 (0.5 > 0), j = 1 -> 0 (0.5 > 1/3),
	 * j = 2 -> 2 (0.5 <= 2/3, 0.5 <= 2/3, 1 > 2/3). */
	double flat_cdf[] = { 0.5, 0.5, 1.0 };
	uint32_t flat_guide[] = { 0, 0, 2 };
	const struct pmemram_zipf flat = { .n = 3, .s = 1.0, .cdf = flat_cdf, .guide = flat_guide };
	struct pmemram_rng rng;
	unsigned counts[3] = {};

	/* n = 3, s = 1: H3 = 1 + 1/2 + 1/3 = 11/6; P = 6/11, 3/11, 2/11; CDF 6/11, 9/11, 1. */
	assert_int_equal(pmemram_zipf_init(&z, 3, 1.0), 0);
	assert_int_equal(z.n, 3);
	assert_double_near(z.cdf[0], 6.0 / 11, 1e-15);
	assert_double_near(z.cdf[1], 9.0 / 11, 1e-15);
	assert_double_near(z.cdf[2], 1.0, 0.0);
	assert_double_near(pmemram_zipf_probability(&z, 0), 6.0 / 11, 1e-15);
	assert_double_near(pmemram_zipf_probability(&z, 1), 3.0 / 11, 1e-15);
	assert_double_near(pmemram_zipf_probability(&z, 2), 2.0 / 11, 1e-15);
	assert_double_near(pmemram_zipf_probability(&z, 3), 0.0, 0.0);
	/* Guide: first k with cdf[k] > j/3: j = 0 -> 0 (6/11 > 0), j = 1 -> 0 (6/11 > 1/3),
	 * j = 2 -> 1 (6/11 = 0.545 <= 2/3 < 9/11 = 0.818). */
	assert_int_equal(z.guide[0], 0);
	assert_int_equal(z.guide[1], 0);
	assert_int_equal(z.guide[2], 1);
	/* 110000 draws: expected 60000, 30000, 20000 (6, 3, 2 in 11); 3 standard deviations of
	 * sqrt(N p (1 - p)) are 3 * 165.1, 3 * 147.7, 3 * 127.9. */
	pmemram_rng_init(&rng, PMEMRAM_CACHEMODEL_SEED);
	for (int i = 0; i < 110000; i++) {
		size_t k = pmemram_zipf_sample(&z, &rng);

		assert_true(k < 3);
		counts[k]++;
	}
	assert_true(counts[0] > 60000 - 496 && counts[0] < 60000 + 496);
	assert_true(counts[1] > 30000 - 444 && counts[1] < 30000 + 444);
	assert_true(counts[2] > 20000 - 384 && counts[2] < 20000 + 384);
	/* Boundaries: cdf[0] and cdf[1] lie in [1/2, 1), where doubles are multiples of 2^-53, so
	 * u can equal them: u = cdf[k] gives rank k + 1, one ulp less rank k. */
	for (size_t k = 0; k < 2; k++) {
		uint64_t m = (uint64_t)(z.cdf[k] * 0x1p53);

		assert_double_near((double)m * 0x1p-53, z.cdf[k], 0.0);
		rng_force_u(&rng, m);
		assert_int_equal(pmemram_zipf_sample(&z, &rng), k + 1);
		rng_force_u(&rng, m - 1);
		assert_int_equal(pmemram_zipf_sample(&z, &rng), k);
	}
	pmemram_zipf_done(&z);
	assert_null(z.cdf);

	/* s = 0 is uniform: n = 4, CDF 1/4, 2/4, 3/4, 1, all exact in binary. */
	assert_int_equal(pmemram_zipf_init(&z, 4, 0.0), 0);
	assert_double_near(z.cdf[0], 0.25, 0.0);
	assert_double_near(z.cdf[1], 0.5, 0.0);
	assert_double_near(z.cdf[2], 0.75, 0.0);
	assert_double_near(z.cdf[3], 1.0, 0.0);
	/* guide[j] = first k with cdf[k] > j/4, strictly: cdf[j - 1] = j/4 is not, so guide = 0 1 2 3. */
	for (uint32_t j = 0; j < 4; j++)
		assert_int_equal(z.guide[j], j);
	pmemram_zipf_done(&z);

	/* s = 2, n = 2: weights 1 and 1/4, sum 5/4: P = 4/5, 1/5. */
	assert_int_equal(pmemram_zipf_init(&z, 2, 2.0), 0);
	assert_double_near(pmemram_zipf_probability(&z, 0), 0.8, 1e-15);
	assert_double_near(pmemram_zipf_probability(&z, 1), 0.2, 1e-15);
	pmemram_zipf_done(&z);

	/* n = 1: always rank 0. */
	assert_int_equal(pmemram_zipf_init(&z, 1, 1.0), 0);
	for (int i = 0; i < 100; i++)
		assert_int_equal(pmemram_zipf_sample(&z, &rng), 0);
	pmemram_zipf_done(&z);

	/* A rank of probability 0 (flat CDF step) is never drawn: u < 0.5 -> 0, else 2. */
	for (int i = 0; i < 1000; i++)
		assert_int_not_equal(pmemram_zipf_sample(&flat, &rng), 1);
	/* At the boundaries (u forced to m * 2^-53): u = 0.5 = 2^52 * 2^-53 is not < cdf[0] = 0.5 nor
	 * cdf[1] = 0.5, so rank 2; one ulp below, rank 0; u = 0 -> 0; the largest u -> 2. */
	rng_force_u(&rng, UINT64_C(1) << 52);
	assert_int_equal(pmemram_zipf_sample(&flat, &rng), 2);
	rng_force_u(&rng, (UINT64_C(1) << 52) - 1);
	assert_int_equal(pmemram_zipf_sample(&flat, &rng), 0);
	rng_force_u(&rng, 0);
	assert_int_equal(pmemram_zipf_sample(&flat, &rng), 0);
	rng_force_u(&rng, (UINT64_C(1) << 53) - 1);
	assert_int_equal(pmemram_zipf_sample(&flat, &rng), 2);
	/* The guide only narrows the search: a wrong one (as rounding of u * n could make it) does not
	 * change the answer.  u = 0.4 lands in bucket j = 1 (0.4 * 3 = 1.2); a guide starting it at
	 * rank 2 is widened back (cdf[1] = 0.5 > 0.4) and gives rank 0.  u = 0.6 in bucket 1 with a
	 * guide ending it at rank 0 (cdf[0] = 0.5 <= 0.6) is widened to rank 2. */
	{
		uint32_t high[] = { 0, 2, 2 }, low[] = { 0, 0, 0 };
		const struct pmemram_zipf wrong_high = { .n = 3, .s = 1.0, .cdf = flat_cdf, .guide = high };
		const struct pmemram_zipf wrong_low = { .n = 3, .s = 1.0, .cdf = flat_cdf, .guide = low };

		rng_force_u(&rng, (uint64_t)(0.4 * 0x1p53));
		assert_int_equal(pmemram_zipf_sample(&wrong_high, &rng), 0);
		rng_force_u(&rng, (uint64_t)(0.6 * 0x1p53));
		assert_int_equal(pmemram_zipf_sample(&wrong_low, &rng), 2);
		rng_force_u(&rng, (uint64_t)(0.6 * 0x1p53));
		assert_int_equal(pmemram_zipf_sample(&flat, &rng), 2);
	}

	/* 2^20 items, s = 1: P(0) = 1/H(2^20), H(n) = ln n + gamma + 1/(2n) - 1/(12n^2) + O(n^-4)
	 * = 14.4369...; the compensated sum gets it to within a few ulps (a plain sum is off by
	 * 3.5e-15).  The CDF is non-decreasing and ends at 1. */
	assert_int_equal(pmemram_zipf_init(&z, 1 << 20, 1.0), 0);
	assert_double_near(z.cdf[0],
			   1.0 / (log(0x1p20) + 0.57721566490153286 + 0x1p-21 - 1.0 / (12 * 0x1p40)), 1e-16);
	for (size_t k = 1; k < z.n; k++)
		assert_true(z.cdf[k] >= z.cdf[k - 1]);
	assert_double_near(z.cdf[z.n - 1], 1.0, 0.0);
	pmemram_zipf_done(&z);

	assert_int_equal(pmemram_zipf_init(&z, 0, 1.0), -EINVAL);
	assert_int_equal(pmemram_zipf_init(&z, 3, -0.5), -EINVAL);
	assert_int_equal(pmemram_zipf_init(&z, 3, PMEMRAM_CACHEMODEL_MAX_ZIPF_S + 0.5), -EINVAL);
	assert_int_equal(pmemram_zipf_init(&z, 3, NAN), -EINVAL);
	assert_int_equal(pmemram_zipf_init(&z, 3, INFINITY), -EINVAL);
	assert_int_equal(pmemram_zipf_init(&z, PMEMRAM_CACHEMODEL_MAX_PAGES + 1, 1.0), -E2BIG);
	assert_int_equal(pmemram_zipf_init(NULL, 3, 1.0), -EINVAL);
	assert_null(z.cdf);
	/* The largest exponent: 2^-10 = 1/1024 for rank 1.  From about rank 38 on, (k + 1)^-10 / H is
	 * below half an ulp of 1 and the CDF (almost always) stays put: those ranks have probability 0
	 * and must never be drawn, while rank 0 (1/H = 0.99901...) takes almost every draw. */
	assert_int_equal(pmemram_zipf_init(&z, 1000, PMEMRAM_CACHEMODEL_MAX_ZIPF_S), 0);
	assert_double_near(pmemram_zipf_probability(&z, 1) / pmemram_zipf_probability(&z, 0), 1.0 / 1024, 1e-15);
	assert_double_near(pmemram_zipf_probability(&z, 999), 0.0, 0.0);
	for (int i = 0; i < 100000; i++)
		assert_true(pmemram_zipf_probability(&z, pmemram_zipf_sample(&z, &rng)) > 0.0);
}

static void test_simulate_one_slot(void **state)
{
	/* S = 4, PFNs 0, 4, 8, 12 all in slot 0; round robin 0 1 2 3 0 1 2 3. */
	const uint64_t pfns[] = { 0, 4, 8, 12 };
	const size_t trace[] = { 0, 1, 2, 3, 0, 1, 2, 3 };
	struct pmemram_cachemodel_sim s;

	/* DM: every access finds the previous page in slot 0 -> 8 misses.
	 * LRU with 4 entries holds all 4 pages: 4 cold misses, then 4 hits.
	 * Rates 8/8 = 1, 4/8 = 0.5; conflict (8 - 4) / 8 = 0.5. */
	assert_int_equal(pmemram_cachemodel_simulate(pfns, 4, 4, trace, 8, &s), 0);
	expect_sim(&s, 8, 8, 4);
	assert_double_near(s.dm_miss_rate, 1.0, 0.0);
	assert_double_near(s.lru_miss_rate, 0.5, 0.0);
	assert_double_near(s.conflict_rate, 0.5, 0.0);

	/* The same page twice in a row hits in both: 0 0 1 1 -> DM misses at 0, 1 = 2 of 4; LRU too. */
	const size_t pairs[] = { 0, 0, 1, 1 };
	assert_int_equal(pmemram_cachemodel_simulate(pfns, 4, 4, pairs, 4, &s), 0);
	expect_sim(&s, 4, 2, 2);
	assert_double_near(s.conflict_rate, 0.0, 0.0);
}

static void test_simulate_spread(void **state)
{
	/* PFNs 0..3 in slots 0..3: only cold misses in both, 4 of 8; conflict 0. */
	const uint64_t pfns[] = { 0, 1, 2, 3 };
	const size_t trace[] = { 0, 1, 2, 3, 0, 1, 2, 3 };
	struct pmemram_cachemodel_sim s;

	assert_int_equal(pmemram_cachemodel_simulate(pfns, 4, 4, trace, 8, &s), 0);
	expect_sim(&s, 8, 4, 4);
	assert_double_near(s.dm_miss_rate, 0.5, 0.0);
	assert_double_near(s.conflict_rate, 0.0, 0.0);

	/* Order of the PFN array does not matter, only pfn mod S: 7, 2, 5, 0 -> slots 3, 2, 1, 0. */
	const uint64_t shuffled[] = { 7, 2, 5, 0 };
	assert_int_equal(pmemram_cachemodel_simulate(shuffled, 4, 4, trace, 8, &s), 0);
	expect_sim(&s, 8, 4, 4);
}

static void test_simulate_more_pages_than_slots(void **state)
{
	struct pmemram_cachemodel_sim s;

	/*
	 * Two hot pages sharing a slot while the other slot stays free.  S = 2, PFNs 0 1 2 3
	 * (slots 0 1 0 1), trace 0 2 0 2 1 0:
	 *   DM:  0 miss [s0=0], 2 miss [s0=2], 0 miss [s0=0], 2 miss [s0=2], 1 miss [s1=1],
	 *        0 miss [s0=0]                                                    -> 6 misses
	 *   LRU (2 entries, MRU first): 0 miss [0], 2 miss [2 0], 0 hit [0 2], 2 hit [2 0],
	 *        1 miss, evicts 0 [1 2], 0 miss, evicts 2 [0 1]                   -> 4 misses
	 *   conflict (6 - 4) / 6 = 1/3.
	 */
	const uint64_t four[] = { 0, 1, 2, 3 };
	const size_t hot[] = { 0, 2, 0, 2, 1, 0 };
	assert_int_equal(pmemram_cachemodel_simulate(four, 4, 2, hot, 6, &s), 0);
	expect_sim(&s, 6, 6, 4);
	assert_double_near(s.conflict_rate, 1.0 / 3, 1e-15);

	/*
	 * LRU's worst case: a loop one page larger than the cache.  S = 2, PFNs 0 1 2 (slots 0 1 0),
	 * trace 0 1 2 0 1 2:
	 *   DM:  0 miss [s0=0], 1 miss [s1=1], 2 miss [s0=2], 0 miss [s0=0], 1 hit, 2 miss -> 5
	 *   LRU: 0 miss [0], 1 miss [1 0], 2 miss, evicts 0 [2 1], 0 miss, evicts 1 [0 2],
	 *        1 miss, evicts 2 [1 0], 2 miss, evicts 0 [2 1]                    -> 6
	 *   conflict (5 - 6) / 6 = -1/6: direct mapping wins.
	 */
	const uint64_t three[] = { 0, 1, 2 };
	const size_t loop[] = { 0, 1, 2, 0, 1, 2 };
	assert_int_equal(pmemram_cachemodel_simulate(three, 3, 2, loop, 6, &s), 0);
	expect_sim(&s, 6, 5, 6);
	assert_double_near(s.conflict_rate, -1.0 / 6, 1e-15);

	/*
	 * Phases, each fitting both caches after its cold misses.  S = 2, PFNs 0 1 2 3, trace
	 * 0 1 0 1 2 3 2 3 0 2:
	 *   DM:  misses at 0, 1, then 2 [s0=2], 3 [s1=3], then 0 [s0=0], 2 [s0=2]      -> 6
	 *   LRU: 0, 1 cold; 0 1 hit [1 0]; 2 evicts 0, 3 evicts 1 [3 2]; 2 3 hit [3 2];
	 *        0 evicts 2 [0 3], 2 evicts 3 [2 0]                                    -> 6
	 *   conflict 0.
	 */
	const size_t phases[] = { 0, 1, 0, 1, 2, 3, 2, 3, 0, 2 };
	assert_int_equal(pmemram_cachemodel_simulate(four, 4, 2, phases, 10, &s), 0);
	expect_sim(&s, 10, 6, 6);

	/*
	 * Recency, not insertion order: S = 2, PFNs 0 1 2 (slots 0 1 0), trace 0 1 0 2 0:
	 *   DM:  0 miss [s0=0], 1 miss [s1=1], 0 hit, 2 miss [s0=2], 0 miss [s0=0]         -> 4
	 *   LRU: 0 miss [0], 1 miss [1 0], 0 hit [0 1], 2 miss, evicts 1 [2 0], 0 hit      -> 3
	 *        (FIFO would evict 0, the oldest in, and miss on the last access too)
	 *   conflict (4 - 3) / 5 = 0.2.
	 */
	const size_t recency[] = { 0, 1, 0, 2, 0 };
	assert_int_equal(pmemram_cachemodel_simulate(three, 3, 2, recency, 5, &s), 0);
	expect_sim(&s, 5, 4, 3);
	assert_double_near(s.conflict_rate, 0.2, 1e-15);

	/* S = 1: both caches hold one page, so they miss on exactly the same accesses (here 4 of 5). */
	const size_t mixed[] = { 0, 1, 1, 3, 0 };
	assert_int_equal(pmemram_cachemodel_simulate(four, 4, 1, mixed, 5, &s), 0);
	expect_sim(&s, 5, 4, 4);
}

static void test_simulate_bad_input(void **state)
{
	const uint64_t pfns[] = { 0, 4, 8, 12 }, dup[] = { 3, 7, 3 };
	const size_t trace[] = { 0, 1, 2, 3 }, beyond[] = { 0, 4 };
	struct pmemram_cachemodel_sim s = { .accesses = 99 };

	assert_int_equal(pmemram_cachemodel_simulate(pfns, 0, 4, trace, 4, &s), -EINVAL);
	assert_int_equal(pmemram_cachemodel_simulate(pfns, 4, 0, trace, 4, &s), -EINVAL);
	assert_int_equal(pmemram_cachemodel_simulate(pfns, 4, 4, trace, 0, &s), -EINVAL);
	assert_int_equal(pmemram_cachemodel_simulate(NULL, 4, 4, trace, 4, &s), -EINVAL);
	assert_int_equal(pmemram_cachemodel_simulate(pfns, 4, 4, NULL, 4, &s), -EINVAL);
	assert_int_equal(pmemram_cachemodel_simulate(pfns, 4, 4, trace, 4, NULL), -EINVAL);
	/* Index 4 of 4 pages; a repeated PFN (3 twice). */
	assert_int_equal(pmemram_cachemodel_simulate(pfns, 4, 4, beyond, 2, &s), -EINVAL);
	assert_int_equal(pmemram_cachemodel_simulate(dup, 3, 4, trace, 3, &s), -EINVAL);
	/* The limits are checked before the arrays are read. */
	assert_int_equal(pmemram_cachemodel_simulate(pfns, PMEMRAM_CACHEMODEL_MAX_PAGES + 1, 4, trace, 4, &s), -E2BIG);
	assert_int_equal(pmemram_cachemodel_simulate(pfns, 4, PMEMRAM_CACHEMODEL_MAX_SLOTS + 1, trace, 4, &s), -ERANGE);
	assert_int_equal(pmemram_cachemodel_simulate(pfns, 4, 4, trace, PMEMRAM_CACHEMODEL_MAX_ACCESSES + 1, &s),
			 -ERANGE);
	assert_int_equal(s.accesses, 99);
}

/* The uniform trace pmemram_cachemodel_run() documents, rebuilt from the public RNG. */
static size_t *uniform_trace(uint64_t seed, size_t n, size_t k)
{
	size_t *t = calloc(k, sizeof(*t));
	struct pmemram_rng rng;

	assert_non_null(t);
	pmemram_rng_init(&rng, seed);
	for (size_t i = 0; i < k; i++)
		t[i] = (size_t)pmemram_rng_below(&rng, n);
	return t;
}

/* The Zipf trace it documents: Fisher-Yates deals ranks to pages, then Zipf ranks, same stream. */
static size_t *zipf_trace(uint64_t seed, size_t n, size_t k, double s)
{
	_cleanup_(pmemram_zipf_done) struct pmemram_zipf z = {};
	_cleanup_(freep) size_t *page_of_rank = calloc(n, sizeof(*page_of_rank));
	size_t *t = calloc(k, sizeof(*t));
	struct pmemram_rng rng;

	assert_non_null(t);
	assert_non_null(page_of_rank);
	assert_int_equal(pmemram_zipf_init(&z, n, s), 0);
	pmemram_rng_init(&rng, seed);
	for (size_t i = 0; i < n; i++)
		page_of_rank[i] = i;
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = (size_t)pmemram_rng_below(&rng, i + 1), x = page_of_rank[i];

		page_of_rank[i] = page_of_rank[j];
		page_of_rank[j] = x;
	}
	for (size_t i = 0; i < k; i++)
		t[i] = page_of_rank[pmemram_zipf_sample(&z, &rng)];
	return t;
}

static void expect_same_sim(const struct pmemram_cachemodel_sim *a, const struct pmemram_cachemodel_sim *b)
{
	expect_sim(a, b->accesses, b->dm_misses, b->lru_misses);
}

/* Misses computed without the model, for pages that all share one slot and fit the LRU cache:
 * DM misses whenever the page changes (and on the first access), LRU once per distinct page. */
static void one_slot_oracle(const size_t *t, size_t k, size_t n, uint64_t *ret_dm, uint64_t *ret_lru)
{
	_cleanup_(freep) bool *seen = calloc(n, sizeof(*seen));
	uint64_t dm = 0, lru = 0;

	assert_non_null(seen);
	for (size_t i = 0; i < k; i++) {
		if (i == 0 || t[i] != t[i - 1])
			dm++;
		if (!seen[t[i]]) {
			seen[t[i]] = true;
			lru++;
		}
	}
	*ret_dm = dm;
	*ret_lru = lru;
}

static void test_run_one_slot(void **state)
{
	const uint64_t pfns[] = { 0, 4, 8, 12 };
	struct pmemram_cachemodel_report r, again;
	struct pmemram_cachemodel_sim s;
	_cleanup_(freep) size_t *ut = NULL;
	_cleanup_(freep) size_t *zt = NULL;
	uint64_t dm, lru;

	assert_int_equal(pmemram_cachemodel_run(pfns, 4, 4, NULL, &r), 0);
	assert_int_equal(r.pages, 4);
	assert_int_equal(r.slots, 4);
	assert_int_equal(r.distinct_slots, 1);
	assert_int_equal(r.ideal_slots, 4);
	assert_double_near(r.expected_random_slots, 2.734375, 1e-14);
	assert_int_equal(r.seed, PMEMRAM_CACHEMODEL_SEED);
	assert_double_near(r.zipf_s, 1.0, 0.0);

	/* Default length 20 * 4 = 80; the documented traces replayed give the same counts. */
	ut = uniform_trace(PMEMRAM_CACHEMODEL_SEED, 4, 80);
	zt = zipf_trace(PMEMRAM_CACHEMODEL_SEED, 4, 80, 1.0);
	assert_int_equal(pmemram_cachemodel_simulate(pfns, 4, 4, ut, 80, &s), 0);
	expect_same_sim(&r.uniform, &s);
	assert_int_equal(pmemram_cachemodel_simulate(pfns, 4, 4, zt, 80, &s), 0);
	expect_same_sim(&r.zipf, &s);

	/* And those counts follow from the traces alone. */
	one_slot_oracle(ut, 80, 4, &dm, &lru);
	expect_sim(&r.uniform, 80, dm, lru);
	one_slot_oracle(zt, 80, 4, &dm, &lru);
	expect_sim(&r.zipf, 80, dm, lru);
	/* Uniform over 4 pages, 80 accesses: a change of page 3 times in 4, so about 60 DM misses
	 * against at most 4 LRU misses. */
	assert_true(r.uniform.dm_misses > 45 && r.uniform.lru_misses == 4);
	assert_true(r.uniform.conflict_rate > 0.5);
	/* Zipf repeats the hot page more often: fewer changes than uniform. */
	assert_true(r.zipf.dm_misses < r.uniform.dm_misses);

	/* Fixed seed: the same report again, field by field. */
	assert_int_equal(pmemram_cachemodel_run(pfns, 4, 4, NULL, &again), 0);
	expect_same_sim(&again.uniform, &r.uniform);
	expect_same_sim(&again.zipf, &r.zipf);
}

static void test_run_options(void **state)
{
	const uint64_t pfns[] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	struct pmemram_cachemodel_options o = PMEMRAM_CACHEMODEL_OPTIONS_INIT;
	struct pmemram_cachemodel_report r = {}, d;
	struct pmemram_cachemodel_sim s;
	_cleanup_(freep) size_t *zt = NULL;

	/* NULL options are the defaults. */
	assert_int_equal(pmemram_cachemodel_run(pfns, 8, 4, &o, &r), 0);
	assert_int_equal(pmemram_cachemodel_run(pfns, 8, 4, NULL, &d), 0);
	expect_same_sim(&r.uniform, &d.uniform);
	expect_same_sim(&r.zipf, &d.zipf);
	assert_int_equal(r.uniform.accesses, 160);
	/* 0..7 mod 4: 4 slots, ideal min(8, 4) = 4; expected 4 (1 - (3/4)^8) = 4 - 6561/16384
	 * = 3.59954833984375. */
	assert_int_equal(r.distinct_slots, 4);
	assert_int_equal(r.ideal_slots, 4);
	assert_double_near(r.expected_random_slots, 3.59954833984375, 1e-14);

	/* Another seed, length and exponent, echoed and used as documented. */
	o = (struct pmemram_cachemodel_options){ .seed = 7, .accesses = 1000, .zipf_s = 2.0 };
	assert_int_equal(pmemram_cachemodel_run(pfns, 8, 4, &o, &r), 0);
	assert_int_equal(r.seed, 7);
	assert_double_near(r.zipf_s, 2.0, 0.0);
	assert_int_equal(r.uniform.accesses, 1000);
	assert_int_equal(r.zipf.accesses, 1000);
	zt = zipf_trace(7, 8, 1000, 2.0);
	assert_int_equal(pmemram_cachemodel_simulate(pfns, 8, 4, zt, 1000, &s), 0);
	expect_same_sim(&r.zipf, &s);

	/* One page in one slot: 1 cold miss each, no conflicts. */
	o.accesses = 5;
	assert_int_equal(pmemram_cachemodel_run(pfns, 1, 1, &o, &r), 0);
	expect_sim(&r.uniform, 5, 1, 1);
	expect_sim(&r.zipf, 5, 1, 1);

	/* Limits: nothing written on failure. */
	d = r;
	o = PMEMRAM_CACHEMODEL_OPTIONS_INIT;
	o.accesses = PMEMRAM_CACHEMODEL_MAX_ACCESSES + 1;
	assert_int_equal(pmemram_cachemodel_run(pfns, 8, 4, &o, &r), -ERANGE);
	o = PMEMRAM_CACHEMODEL_OPTIONS_INIT;
	o.zipf_s = NAN;
	assert_int_equal(pmemram_cachemodel_run(pfns, 8, 4, &o, &r), -EINVAL);
	o.zipf_s = -1.0;
	assert_int_equal(pmemram_cachemodel_run(pfns, 8, 4, &o, &r), -EINVAL);
	assert_int_equal(pmemram_cachemodel_run(pfns, 0, 4, NULL, &r), -EINVAL);
	assert_int_equal(pmemram_cachemodel_run(pfns, 8, 0, NULL, &r), -EINVAL);
	assert_int_equal(pmemram_cachemodel_run(NULL, 8, 4, NULL, &r), -EINVAL);
	assert_int_equal(pmemram_cachemodel_run(pfns, 8, 4, NULL, NULL), -EINVAL);
	assert_int_equal(pmemram_cachemodel_run(pfns, PMEMRAM_CACHEMODEL_MAX_PAGES + 1, 4, NULL, &r), -E2BIG);
	assert_int_equal(pmemram_cachemodel_run(pfns, 8, PMEMRAM_CACHEMODEL_MAX_SLOTS + 1, NULL, &r), -ERANGE);
	const uint64_t dup[] = { 1, 2, 1 };
	assert_int_equal(pmemram_cachemodel_run(dup, 3, 4, NULL, &r), -EINVAL);
	assert_int_equal(r.uniform.accesses, d.uniform.accesses);
}

static void test_run_larger(void **state)
{
	enum { N = 4096 };
	_cleanup_(freep) uint64_t *pfns = calloc(N, sizeof(*pfns));
	struct pmemram_cachemodel_report r;
	struct pmemram_rng rng;
	size_t n = N;

	assert_non_null(pfns);

	/* Contiguous frames 0..4095 in 4096 slots: one page per slot, and neither cache ever
	 * evicts: 4096 cold misses of 20 * 4096 accesses in both, conflict exactly 0. */
	for (size_t i = 0; i < N; i++)
		pfns[i] = UINT64_C(0x100000) + i;
	assert_int_equal(pmemram_cachemodel_run(pfns, N, N, NULL, &r), 0);
	assert_int_equal(r.distinct_slots, N);
	assert_int_equal(r.ideal_slots, N);
	assert_int_equal(r.uniform.dm_misses, r.uniform.lru_misses);
	assert_int_equal(r.zipf.dm_misses, r.zipf.lru_misses);
	assert_true(r.uniform.dm_misses <= N && r.zipf.dm_misses <= N);
	assert_double_near(r.uniform.conflict_rate, 0.0, 0.0);
	assert_double_near(r.zipf.conflict_rate, 0.0, 0.0);

	/* The same frames in 1024 slots (4 pages per slot, evenly): under uniform access any cache
	 * of 1024 pages hits about 1/4 of the time, so the conflict rate stays near 0 (within 0.02);
	 * under Zipf the LRU cache keeps the hot pages and direct mapping loses some to collisions. */
	assert_int_equal(pmemram_cachemodel_run(pfns, N, N / 4, NULL, &r), 0);
	assert_int_equal(r.distinct_slots, N / 4);
	assert_int_equal(r.ideal_slots, N / 4);
	assert_double_near(r.uniform.lru_miss_rate, 0.75, 0.02);
	assert_double_near(r.uniform.dm_miss_rate, 0.75, 0.02);
	assert_double_near(r.uniform.conflict_rate, 0.0, 0.02);
	assert_true(r.zipf.conflict_rate > 0.0);
	assert_true(r.zipf.lru_miss_rate < r.uniform.lru_miss_rate);

	/* Random frames below 2^40 in 1024 slots: distinct slots close to the expectation
	 * 1024 (1 - (1023/1024)^4096) = 1005.28 (standard deviation about 4). */
	pmemram_rng_init(&rng, 99);
	for (size_t i = 0; i < N; i++)
		pfns[i] = pmemram_rng_next(&rng) >> 24;
	assert_int_equal(pmemram_cachemodel_unique(pfns, &n), 0);
	assert_int_equal(n, N); /* 4096 draws of 2^40 do not collide (p ~ 2^-17), nor with this seed */
	assert_int_equal(pmemram_cachemodel_run(pfns, n, N / 4, NULL, &r), 0);
	assert_double_near(r.expected_random_slots, 1005.2814051256457, 1e-9);
	assert_double_near((double)r.distinct_slots, r.expected_random_slots, 20.0);
	assert_true(r.distinct_slots <= r.ideal_slots);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slots),
		cmocka_unit_test(test_unique),
		cmocka_unit_test(test_distinct_slots),
		cmocka_unit_test(test_expected_slots),
		cmocka_unit_test(test_occupancy),
		cmocka_unit_test(test_expected_occupancy),
		cmocka_unit_test(test_rng),
		cmocka_unit_test(test_zipf),
		cmocka_unit_test(test_simulate_one_slot),
		cmocka_unit_test(test_simulate_spread),
		cmocka_unit_test(test_simulate_more_pages_than_slots),
		cmocka_unit_test(test_simulate_bad_input),
		cmocka_unit_test(test_run_one_slot),
		cmocka_unit_test(test_run_options),
		cmocka_unit_test(test_run_larger),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
