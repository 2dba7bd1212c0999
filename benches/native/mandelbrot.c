/* mandelbrot: the Computer Language Benchmarks Game's Mandelbrot set as a PBM bitmap of
   N x N pixels (50 iterations, escape at |z|^2 > 4), written for scripts/bench as the
   native reference of run/mandelbrot.pexe. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 200;
    printf("P4\n%d %d\n", n, n);
    int bits = 0;
    unsigned char acc = 0;
    for (int y = 0; y < n; y++) {
        double ci = 2.0 * y / n - 1.0;
        for (int x = 0; x < n; x++) {
            double cr = 2.0 * x / n - 1.5;
            double zr = 0, zi = 0, tr = 0, ti = 0;
            for (int i = 0; i < 50 && tr + ti <= 4.0; i++) {
                zi = 2.0 * zr * zi + ci;
                zr = tr - ti + cr;
                tr = zr * zr;
                ti = zi * zi;
            }
            acc = (unsigned char)(acc << 1 | (tr + ti <= 4.0));
            if (++bits == 8) {
                putchar(acc);
                acc = 0;
                bits = 0;
            } else if (x == n - 1) {
                putchar((unsigned char)(acc << (8 - n % 8)));
                acc = 0;
                bits = 0;
            }
        }
    }
    return 0;
}
