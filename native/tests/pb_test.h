/* pb_test.h — a few helpers shared by the C tests (header-only). */
#ifndef PB_TEST_H
#define PB_TEST_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int pb_failures;

#define CHECK(cond, ...)                                                                       \
	do {                                                                                       \
		if (!(cond)) {                                                                         \
			pb_failures++;                                                                     \
			fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                   \
			fprintf(stderr, __VA_ARGS__);                                                      \
			fputc('\n', stderr);                                                               \
		}                                                                                      \
	} while (0)

/* required reports whether PEAKBENCH_REQUIRE_LIBS (comma-separated, or "all") names lib. */
static inline int required(const char *lib)
{
	const char *env = getenv("PEAKBENCH_REQUIRE_LIBS");
	if (env == NULL)
		return 0;
	size_t n = strlen(lib);
	for (const char *p = env; *p != '\0';) {
		while (*p == ',' || *p == ' ')
			p++;
		size_t l = strcspn(p, ", ");
		if ((l == n && strncmp(p, lib, n) == 0) || (l == 3 && strncmp(p, "all", 3) == 0))
			return 1;
		p += l;
	}
	return 0;
}

/* A deterministic generator of values in [-1, 1). */
static unsigned long long pb_rng = 88172645463325252ULL;
static inline double urand(void)
{
	pb_rng ^= pb_rng << 13;
	pb_rng ^= pb_rng >> 7;
	pb_rng ^= pb_rng << 17;
	return (double)(pb_rng >> 11) * 0x1p-52 - 1.0;
}

#endif
