/* fasta: the Computer Language Benchmarks Game's DNA sequences (a repeat of the ALU
   sequence, then two sequences drawn with the benchmark's linear congruential generator
   from nucleotide frequencies, cumulated in float and compared in float), 60 nucleotides
   a line, written for scripts/bench as the native reference of run/fasta.pexe: the same
   output, computed as the pexe computes it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IM 139968
#define IA 3877
#define IC 29573

static unsigned seed = 42;

struct nucleotide { char letter; float probability; };

static const char alu[] =
    "GGCCGGGCGCGGTGGCTCACGCCTGTAATCCCAGCACTTTGG"
    "GAGGCCGAGGCGGGCGGATCACCTGAGGTCAGGAGTTCGAGA"
    "CCAGCCTGGCCAACATGGTGAAACCCCGTCTCTACTAAAAAT"
    "ACAAAAATTAGCCGGGCGTGGTGGCGCGCGCCTGTAATCCCA"
    "GCTACTCGGGAGGCTGAGGCAGGAGAATCGCTTGAACCCGGG"
    "AGGCGGAGGTTGCAGTGAGCCGAGATCGCGCCACTGCACTCC"
    "AGCCTGGGCGACAGAGCGAGACTCCGTCTCAAAAA";

static const struct nucleotide iub[] = {
    {'a', 0.27f}, {'c', 0.12f}, {'g', 0.12f}, {'t', 0.27f}, {'B', 0.02f}, {'D', 0.02f},
    {'H', 0.02f}, {'K', 0.02f}, {'M', 0.02f}, {'N', 0.02f}, {'R', 0.02f}, {'S', 0.02f},
    {'V', 0.02f}, {'W', 0.02f}, {'Y', 0.02f},
};

static const struct nucleotide homo_sapiens[] = {
    {'a', 0.3029549426680f}, {'c', 0.1979883004921f}, {'g', 0.1975473066391f},
    {'t', 0.3015094502008f},
};

static void line_out(char *line, int k) {
    line[k] = '\n';
    fwrite(line, 1, (size_t)k + 1, stdout);
}

static void repeat(const char *s, int n) {
    size_t len = strlen(s), pos = 0;
    char line[61];
    while (n > 0) {
        int k = n < 60 ? n : 60;
        for (int i = 0; i < k; i++) {
            line[i] = s[pos];
            if (++pos == len) pos = 0;
        }
        line_out(line, k);
        n -= k;
    }
}

/* As the pexe computes it: blocks of up to 61440 random numbers, drawn first (as floats),
   then each turned into the nucleotide whose cumulated threshold it reaches, 60 a line,
   each line written by itself. The thresholds are an array of nt floats on the stack, as
   in the pexe (a dynamic alloca of 4 * nt bytes: a variable-length array in its source,
   which takes a register for the frame pointer on x86-32). */
#define BLOCK 61440
static float randoms[BLOCK];
static char text[BLOCK + BLOCK / 60];

static void random_sequence(const struct nucleotide *t, int nt, int n) {
    float threshold[nt], cumulative = 0;
    for (int k = 0; k < nt; k++) {
        cumulative += t[k].probability;
        threshold[k] = cumulative * IM;
    }
    while (n > 0) {
        int count = n < BLOCK ? n : BLOCK;
        for (int i = 0; i < count; i++) {
            seed = (seed * IA + IC) % IM;
            randoms[i] = (float)seed;
        }
        char *o = text;
        for (int i = 0, col = 0; i < count; i++) {
            int index = 0;
            for (int k = 0; k < nt; k++) index += threshold[k] <= randoms[i];
            *o++ = t[index < nt ? index : nt - 1].letter;
            if (++col == 60 || i == count - 1) {
                *o++ = '\n';
                col = 0;
            }
        }
        for (char *line = text; line < o; line += 61) {
            size_t len = (size_t)(o - line) < 61 ? (size_t)(o - line) : 61;
            fwrite(line, 1, len, stdout);
        }
        n -= count;
    }
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    fputs(">ONE Homo sapiens alu\n", stdout);
    repeat(alu, 2 * n);
    fputs(">TWO IUB ambiguity codes\n", stdout);
    random_sequence(iub, sizeof iub / sizeof iub[0], 3 * n);
    fputs(">THREE Homo sapiens frequency\n", stdout);
    random_sequence(homo_sapiens, sizeof homo_sapiens / sizeof homo_sapiens[0], 5 * n);
    return 0;
}
