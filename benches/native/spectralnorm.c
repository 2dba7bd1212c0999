/* spectralnorm: the Computer Language Benchmarks Game's spectral norm of the infinite
   matrix A(i,j) = 1/((i+j)(i+j+1)/2+i+1), by ten rounds of the power method on A'A,
   written for scripts/bench as the native reference of run/spectralnorm.pexe. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static double a(int i, int j) { return 1.0 / ((i + j) * (i + j + 1) / 2 + i + 1); }

static void times(int n, const double *u, double *au) {
    for (int i = 0; i < n; i++) {
        double s = 0;
        for (int j = 0; j < n; j++) s += a(i, j) * u[j];
        au[i] = s;
    }
}

static void times_transposed(int n, const double *u, double *au) {
    for (int i = 0; i < n; i++) {
        double s = 0;
        for (int j = 0; j < n; j++) s += a(j, i) * u[j];
        au[i] = s;
    }
}

static void ata_times(int n, const double *u, double *r, double *tmp) {
    times(n, u, tmp);
    times_transposed(n, tmp, r);
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 100;
    double *u = malloc(n * sizeof *u), *v = malloc(n * sizeof *v), *tmp = malloc(n * sizeof *tmp);
    for (int i = 0; i < n; i++) u[i] = 1;
    for (int i = 0; i < 10; i++) {
        ata_times(n, u, v, tmp);
        ata_times(n, v, u, tmp);
    }
    double vbv = 0, vv = 0;
    for (int i = 0; i < n; i++) {
        vbv += u[i] * v[i];
        vv += v[i] * v[i];
    }
    printf("%0.9f\n", sqrt(vbv / vv));
    return 0;
}
