/*
 * stream_ref.c - a clean-room reference implementation of the STREAM
 * memory-bandwidth benchmark method (Copy, Scale, Add, Triad), written for
 * nodebench's bench/compare-stream from a description of STREAM's kernels
 * and run rules. It is not McCalpin's stream.c and shares no code with it;
 * figures from it should be called "STREAM-method", not "STREAM" results.
 *
 * Usage:  stream_ref N [NTIMES]
 *   N       elements per array (three double arrays: a, b, c)
 *   NTIMES  timed repetitions of the four kernels (default 10, at least 2);
 *           the first repetition is a warm-up and is not reported.
 *
 * Threads come from OpenMP (OMP_NUM_THREADS, OMP_PROC_BIND, OMP_PLACES).
 *
 * Build:  gcc -O3 -march=native -fopenmp stream_ref.c -o stream_ref
 *
 * Method:
 *   - the arrays are page-aligned (aligned_alloc 4096) and first touched by
 *     the same static OpenMP schedule the kernels use, so every thread's
 *     pages are local to it;
 *   - each kernel is one `omp parallel for schedule(static)` loop, timed
 *     with omp_get_wtime() around the whole parallel loop;
 *   - bytes moved per kernel: Copy and Scale 2 x 8 x N, Add and Triad
 *     3 x 8 x N (write-allocate traffic is not counted, as in STREAM);
 *   - rate = bytes / best (minimum) time, in MB/s = 1e6 B/s;
 *   - the results are validated by replaying the recurrence on scalars and
 *     comparing the average absolute error of each array, relative to the
 *     expected value, against 1e-13.
 *
 * Exit status: 0 when the solution validates, 1 when it does not, 2 on a
 * usage or allocation error.
 *
 * Compiling with -DSTREAM_REF_CORRUPT makes one element of `a` wrong after
 * the timed loops (average relative error 0.5/N, far above 1e-13 for any
 * N below 10^12); it exists only to check that validation catches a wrong
 * result (bench/compare-stream never builds it that way).
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SCALAR 3.0
#define EPSILON 1e-13
#define ALIGN 4096

enum { COPY, SCALE, ADD, TRIAD, NKERNELS };
static const char *const kernel_label[NKERNELS] = {"Copy:", "Scale:", "Add:", "Triad:"};

static double *alloc_array(size_t n) {
    size_t bytes = n * sizeof(double);
    /* aligned_alloc wants a size that is a multiple of the alignment */
    bytes = (bytes + ALIGN - 1) / ALIGN * ALIGN;
    double *p = aligned_alloc(ALIGN, bytes);
    if (p == NULL) {
        fprintf(stderr, "stream_ref: cannot allocate %zu bytes: %s\n", bytes, strerror(errno));
        exit(2);
    }
    return p;
}

static int parse_count(const char *s, const char *what, long long min, long long *out) {
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < min) {
        fprintf(stderr, "stream_ref: %s must be an integer >= %lld, got '%s'\n", what, min, s);
        return -1;
    }
    *out = v;
    return 0;
}

/* Average absolute error of x[] against the expected value, relative to it. */
static double rel_avg_err(const double *x, size_t n, double expected) {
    double sum = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
    for (size_t j = 0; j < n; j++)
        sum += fabs(x[j] - expected);
    return (sum / (double)n) / fabs(expected);
}

int main(int argc, char **argv) {
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: %s N [NTIMES]\n", argv[0]);
        return 2;
    }
    long long n_arg, ntimes_arg = 10;
    if (parse_count(argv[1], "N", 1, &n_arg) != 0)
        return 2;
    if (argc == 3 && parse_count(argv[2], "NTIMES", 2, &ntimes_arg) != 0)
        return 2;
    const size_t n = (size_t)n_arg;
    const int ntimes = (int)ntimes_arg;

    double *restrict a = alloc_array(n);
    double *restrict b = alloc_array(n);
    double *restrict c = alloc_array(n);

    int threads_max = omp_get_max_threads();
    int threads_counted = 0;
#pragma omp parallel reduction(+ : threads_counted)
    threads_counted += 1;

    const double mib = 1024.0 * 1024.0;
    printf("-------------------------------------------------------------\n");
    printf("stream_ref: clean-room STREAM-method benchmark (nodebench bench/)\n");
    printf("-------------------------------------------------------------\n");
    printf("Array size = %zu (elements)\n", n);
    printf("Memory per array = %.1f MiB (= %.3f GiB).\n", n * sizeof(double) / mib,
           n * sizeof(double) / mib / 1024.0);
    printf("Total memory required = %.1f MiB (= %.3f GiB).\n", 3.0 * n * sizeof(double) / mib,
           3.0 * n * sizeof(double) / mib / 1024.0);
    printf("Each kernel will be executed %d times; the best time of the last %d is reported.\n",
           ntimes, ntimes - 1);
    printf("Number of Threads requested = %d\n", threads_max);
    printf("Number of Threads counted = %d\n", threads_counted);
    printf("Timer resolution (omp_get_wtick) = %.3g s\n", omp_get_wtick());

    /* First touch with the kernels' own static schedule. */
#pragma omp parallel for schedule(static)
    for (size_t j = 0; j < n; j++) {
        a[j] = 1.0;
        b[j] = 2.0;
        c[j] = 0.0;
    }

    double t = omp_get_wtime();
#pragma omp parallel for schedule(static)
    for (size_t j = 0; j < n; j++)
        a[j] = 2.0 * a[j];
    t = omp_get_wtime() - t;
    printf("One pass over one array (a = 2.0*a) took %.0f microseconds (%.0f timer ticks).\n",
           t * 1e6, t / omp_get_wtick());

    double *times = malloc(sizeof(double) * NKERNELS * (size_t)ntimes);
    if (times == NULL) {
        fprintf(stderr, "stream_ref: cannot allocate the timing table\n");
        return 2;
    }
#define TIME(kernel, k) times[(size_t)(kernel) * ntimes + (k)]

    const double scalar = SCALAR;
    for (int k = 0; k < ntimes; k++) {
        t = omp_get_wtime();
#pragma omp parallel for schedule(static)
        for (size_t j = 0; j < n; j++)
            c[j] = a[j];
        TIME(COPY, k) = omp_get_wtime() - t;

        t = omp_get_wtime();
#pragma omp parallel for schedule(static)
        for (size_t j = 0; j < n; j++)
            b[j] = scalar * c[j];
        TIME(SCALE, k) = omp_get_wtime() - t;

        t = omp_get_wtime();
#pragma omp parallel for schedule(static)
        for (size_t j = 0; j < n; j++)
            c[j] = a[j] + b[j];
        TIME(ADD, k) = omp_get_wtime() - t;

        t = omp_get_wtime();
#pragma omp parallel for schedule(static)
        for (size_t j = 0; j < n; j++)
            a[j] = b[j] + scalar * c[j];
        TIME(TRIAD, k) = omp_get_wtime() - t;
    }

#ifdef STREAM_REF_CORRUPT
    a[n / 2] *= 1.5; /* one wrong element: average relative error 0.5/N */
#endif

    const double bytes[NKERNELS] = {
        2.0 * sizeof(double) * (double)n,
        2.0 * sizeof(double) * (double)n,
        3.0 * sizeof(double) * (double)n,
        3.0 * sizeof(double) * (double)n,
    };
    printf("-------------------------------------------------------------\n");
    printf("Function    Best Rate MB/s  Avg time     Min time     Max time\n");
    double min_overall = DBL_MAX;
    for (int kern = 0; kern < NKERNELS; kern++) {
        double sum = 0.0, mn = DBL_MAX, mx = 0.0;
        for (int k = 1; k < ntimes; k++) { /* iteration 0 is the warm-up */
            double tk = TIME(kern, k);
            sum += tk;
            if (tk < mn)
                mn = tk;
            if (tk > mx)
                mx = tk;
        }
        if (mn < min_overall)
            min_overall = mn;
        printf("%-12s%14.1f  %11.6f  %11.6f  %11.6f\n", kernel_label[kern], 1e-6 * bytes[kern] / mn,
               sum / (ntimes - 1), mn, mx);
    }
    printf("-------------------------------------------------------------\n");
    if (min_overall < 20.0 * omp_get_wtick())
        printf("WARNING: the fastest kernel took fewer than 20 timer ticks; use larger arrays.\n");

    /* Validation: replay the recurrence on scalars. */
    double aj = 1.0, bj = 2.0, cj = 0.0;
    aj = 2.0 * aj;
    for (int k = 0; k < ntimes; k++) {
        cj = aj;
        bj = scalar * cj;
        cj = aj + bj;
        aj = bj + scalar * cj;
    }
    const double ea = rel_avg_err(a, n, aj);
    const double eb = rel_avg_err(b, n, bj);
    const double ec = rel_avg_err(c, n, cj);
    int failed = 0;
    if (ea > EPSILON) {
        printf("Failed Validation on array a[]: expected %e, average relative error %e > %e\n", aj,
               ea, EPSILON);
        failed = 1;
    }
    if (eb > EPSILON) {
        printf("Failed Validation on array b[]: expected %e, average relative error %e > %e\n", bj,
               eb, EPSILON);
        failed = 1;
    }
    if (ec > EPSILON) {
        printf("Failed Validation on array c[]: expected %e, average relative error %e > %e\n", cj,
               ec, EPSILON);
        failed = 1;
    }
    if (!failed)
        printf("Solution Validates: average relative error below %g on all arrays\n", EPSILON);
    printf("-------------------------------------------------------------\n");

    free(times);
    free(a);
    free(b);
    free(c);
    return failed ? 1 : 0;
}
