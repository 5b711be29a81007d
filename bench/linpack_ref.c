/* Reference for bench/compare-linpack: a plain C call of LAPACK's dgesv_
 * on the library it is linked with (Debian's OpenBLAS), on the same system
 * nodebench solves: A column-major with entries from the same counter-based
 * SplitMix64 stream (uniform in [-0.5, 0.5)), b after it, the same leading
 * dimension rule, the matrix on 2 MiB-aligned memory advised for transparent
 * huge pages as nodebench's. Times dgesv_ alone per trial (A and b rewritten
 * untimed before each), prints one line per trial and checks the last
 * solution with HPL's normalised residual.
 *
 * Usage: linpack_ref N TRIALS THREADS
 * Output: "trial K time S gflops G" lines, then "residual_norm R" and
 * "PASSED"/"FAILED". */
#define _GNU_SOURCE
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

extern void dgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv,
                   double *b, const int *ldb, int *info);
extern void openblas_set_num_threads(int);
extern char *openblas_get_config(void);

static double element(uint64_t seed, uint64_t k) {
    uint64_t z = seed + (k + 1) * 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return (double)(z >> 11) * (1.0 / 9007199254740992.0) - 0.5;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: linpack_ref N TRIALS THREADS\n");
        return 2;
    }
    const int n = atoi(argv[1]), trials = atoi(argv[2]), threads = atoi(argv[3]);
    if (n <= 0 || trials <= 0 || threads <= 0) {
        fprintf(stderr, "linpack_ref: N, TRIALS and THREADS must be positive\n");
        return 2;
    }
    const uint64_t seed = 42;
    int lda = (n + 7) / 8 * 8;
    if (lda % 512 == 0) lda += 8;
    size_t bytes = (size_t)lda * n * sizeof(double);
    double *a = aligned_alloc(2 << 20, (bytes + (2 << 20) - 1) / (2 << 20) * (2 << 20));
    double *x = malloc(sizeof(double) * n);
    int *ipiv = malloc(sizeof(int) * n);
    if (!a || !x || !ipiv) {
        fprintf(stderr, "linpack_ref: out of memory\n");
        return 1;
    }
    madvise(a, bytes, MADV_HUGEPAGE);
    openblas_set_num_threads(threads);
    printf("library %s\n", openblas_get_config());
    const double flops = 2.0 / 3.0 * n * (double)n * n + 1.5 * (double)n * n;
    const int one = 1;
    for (int t = 1; t <= trials; t++) {
        for (size_t j = 0; j < (size_t)n; j++)
            for (size_t i = 0; i < (size_t)n; i++) a[i + j * lda] = element(seed, j * n + i);
        for (int i = 0; i < n; i++) x[i] = element(seed, (uint64_t)n * n + i);
        int info = 0;
        double t0 = now();
        dgesv_(&n, &one, a, &lda, ipiv, x, &n, &info);
        double secs = now() - t0;
        if (info != 0) {
            printf("dgesv info %d\nFAILED\n", info);
            return 1;
        }
        printf("trial %d time %.6f gflops %.4f\n", t, secs, flops / secs / 1e9);
    }
    double r_max = 0, a_max = 0, x_max = 0, b_max = 0;
    for (int i = 0; i < n; i++) x_max = fmax(x_max, fabs(x[i]));
    for (int i = 0; i < n; i++) {
        double b = element(seed, (uint64_t)n * n + i), r = -b, row = 0;
        for (int j = 0; j < n; j++) {
            double v = element(seed, (uint64_t)j * n + i);
            r += v * x[j];
            row += fabs(v);
        }
        r_max = fmax(r_max, fabs(r));
        a_max = fmax(a_max, row);
        b_max = fmax(b_max, fabs(b));
    }
    double norm = r_max / (DBL_EPSILON * (a_max * x_max + b_max) * n);
    printf("residual_norm %.6e\n%s\n", norm, norm < 16.0 ? "PASSED" : "FAILED");
    return norm < 16.0 ? 0 : 1;
}
